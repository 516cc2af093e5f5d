// The maximum product row matching (Duff and Koster 2001): a minimum cost assignment on log-scaled entries,
// found by successive shortest augmenting paths on the host.
#include "core/preconditioner/row_matching.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

#include "core/components/instantiation.hpp"

namespace larch {
namespace preconditioner {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr std::int64_t unmatched = -1;

/// The matrix by columns with the matching costs: column j's rows and costs at [column_ptrs[j], column_ptrs[j + 1]).
struct CostGraph {
    std::vector<std::int64_t> column_ptrs;
    std::vector<std::int64_t> rows;
    std::vector<double> costs;
};

/// c(i, j) = log(max_i' |a(i', j)|) - log |a(i, j)| on the nonzero finite entries, read by columns from
/// the transpose of A (its row k holds column k of A).
template <typename V, typename I>
CostGraph build_cost_graph(const matrix::Csr<V, I>& transposed)
{
    const auto n = transposed.get_size().rows;
    const auto ptrs = transposed.get_const_row_ptrs();
    const auto rows = transposed.get_const_col_idxs();
    const auto values = transposed.get_const_values();
    CostGraph graph;
    graph.column_ptrs.push_back(0);
    for (size_type column = 0; column < n; ++column) {
        double largest = 0;
        for (auto k = ptrs[column]; k < ptrs[column + 1]; ++k) {
            const auto magnitude = std::abs(static_cast<double>(values[k]));
            largest = std::isfinite(magnitude) ? std::max(largest, magnitude) : largest;
        }
        for (auto k = ptrs[column]; k < ptrs[column + 1]; ++k) {
            const auto magnitude = std::abs(static_cast<double>(values[k]));
            if (magnitude > 0 && std::isfinite(magnitude)) {
                graph.rows.push_back(static_cast<std::int64_t>(rows[k]));
                graph.costs.push_back(std::log(largest) - std::log(magnitude));
            }
        }
        graph.column_ptrs.push_back(static_cast<std::int64_t>(graph.rows.size()));
    }
    return graph;
}

/// The assignment with its dual potentials: reduced cost r(i, j) = (c(i, j) - row_potential[i]) -
/// column_potential[j] >= 0 on every edge and = 0 on every matched edge (rounding may leave tiny negatives,
/// clamped to 0).
class Assignment {
public:
    explicit Assignment(const CostGraph& graph)
        : graph_{graph},
          num_rows_{graph.column_ptrs.size() - 1},
          row_potential_(num_rows_, infinity),
          column_potential_(num_rows_, 0),
          column_of_row_(num_rows_, unmatched),
          row_of_column_(num_rows_, unmatched),
          distance_(num_rows_, infinity),
          reached_from_(num_rows_, unmatched)
    {}

    /// Potentials from the smallest cost of each row, then of each column, and every column matched to a
    /// free row of zero reduced cost where it has one: on a matrix whose largest entries form a matching
    /// this is already the whole answer.
    void start_greedily()
    {
        for (size_type column = 0; column < num_rows_; ++column) {
            for (auto k = graph_.column_ptrs[column]; k < graph_.column_ptrs[column + 1]; ++k) {
                auto& potential = row_potential_[static_cast<size_type>(graph_.rows[k])];
                potential = std::min(potential, graph_.costs[k]);
            }
        }
        for (auto& potential : row_potential_) {
            potential = std::isfinite(potential) ? potential : 0;  // an empty row
        }
        for (size_type column = 0; column < num_rows_; ++column) {
            auto smallest = infinity;
            for (auto k = graph_.column_ptrs[column]; k < graph_.column_ptrs[column + 1]; ++k) {
                smallest = std::min(smallest, graph_.costs[k] - row_potential_[static_cast<size_type>(graph_.rows[k])]);
            }
            column_potential_[column] = std::isfinite(smallest) ? smallest : 0;  // an empty column
            for (auto k = graph_.column_ptrs[column]; k < graph_.column_ptrs[column + 1]; ++k) {
                const auto row = static_cast<size_type>(graph_.rows[k]);
                if (column_of_row_[row] == unmatched && reduced_cost(k, column) == 0) {
                    match(row, column);
                    break;
                }
            }
        }
    }

    /// Matches `column` along a shortest augmenting path (Dijkstra over the rows, a matched row leading on
    /// to its column); false if no path exists (the matrix is structurally singular).
    bool augment(size_type column)
    {
        using Candidate = std::pair<double, size_type>;  // (distance, row)
        std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
        std::vector<size_type> touched;
        std::vector<size_type> settled;
        const auto relax = [&](size_type from_column, double base) {
            for (auto k = graph_.column_ptrs[from_column]; k < graph_.column_ptrs[from_column + 1]; ++k) {
                const auto row = static_cast<size_type>(graph_.rows[k]);
                const auto distance = base + reduced_cost(k, from_column);
                if (distance < distance_[row]) {
                    if (!std::isfinite(distance_[row])) {
                        touched.push_back(row);
                    }
                    distance_[row] = distance;
                    reached_from_[row] = static_cast<std::int64_t>(from_column);
                    queue.emplace(distance, row);
                }
            }
        };
        relax(column, 0);
        auto free_row = static_cast<size_type>(unmatched);
        auto path_length = infinity;
        while (!queue.empty()) {
            const auto [distance, row] = queue.top();
            queue.pop();
            if (distance > distance_[row]) {
                continue;  // a stale entry (a row is pushed again only with a strictly smaller distance, and
                           // never once settled, since reduced costs are >= 0)
            }
            if (column_of_row_[row] == unmatched) {
                free_row = row;
                path_length = distance;
                break;
            }
            settled.push_back(row);
            relax(static_cast<size_type>(column_of_row_[row]), distance);
        }
        const bool found = free_row != static_cast<size_type>(unmatched);
        if (found) {
            // Potentials that keep every reduced cost >= 0 and make the path's edges tight.
            column_potential_[column] += path_length;
            for (const auto row : settled) {
                const auto slack = path_length - distance_[row];
                column_potential_[static_cast<size_type>(column_of_row_[row])] += slack;
                row_potential_[row] -= slack;
            }
            for (auto row = free_row;;) {
                const auto from_column = static_cast<size_type>(reached_from_[row]);
                const auto previous_row = row_of_column_[from_column];
                match(row, from_column);
                if (from_column == column) {
                    break;
                }
                row = static_cast<size_type>(previous_row);
            }
        }
        for (const auto row : touched) {
            distance_[row] = infinity;
            reached_from_[row] = unmatched;
        }
        return found;
    }

    /// Row k of P A is row result[k] of A; unmatched columns take the unmatched rows in ascending order.
    template <typename I>
    std::vector<I> row_of_column() const
    {
        std::vector<I> result(num_rows_);
        size_type next_free_row = 0;
        for (size_type column = 0; column < num_rows_; ++column) {
            if (row_of_column_[column] == unmatched) {
                while (column_of_row_[next_free_row] != unmatched) {
                    ++next_free_row;
                }
                result[column] = static_cast<I>(next_free_row++);
            } else {
                result[column] = static_cast<I>(row_of_column_[column]);
            }
        }
        return result;
    }

    bool is_matched(size_type column) const { return row_of_column_[column] != unmatched; }

private:
    double reduced_cost(std::int64_t entry, size_type column) const
    {
        const auto row = static_cast<size_type>(graph_.rows[entry]);
        return std::max(0.0, (graph_.costs[entry] - row_potential_[row]) - column_potential_[column]);
    }

    void match(size_type row, size_type column)
    {
        column_of_row_[row] = static_cast<std::int64_t>(column);
        row_of_column_[column] = static_cast<std::int64_t>(row);
    }

    const CostGraph& graph_;
    size_type num_rows_;
    std::vector<double> row_potential_;
    std::vector<double> column_potential_;
    std::vector<std::int64_t> column_of_row_;
    std::vector<std::int64_t> row_of_column_;
    std::vector<double> distance_;        // per row during one search; infinity outside
    std::vector<std::int64_t> reached_from_;  // the column a row was reached from during one search
};

}  // namespace

template <typename V, typename I>
std::vector<I> find_maximum_product_matching(const matrix::Csr<V, I>& a)
{
    LARCH_ENSURE(a.get_executor()->is_host(), NotSupported,
                 "find_maximum_product_matching: the matrix must live on a host executor, got " +
                     a.get_executor()->get_name());
    const auto n = a.get_size().rows;
    const auto graph = build_cost_graph(*a.transpose());
    Assignment assignment{graph};
    assignment.start_greedily();
    for (size_type column = 0; column < n; ++column) {
        if (!assignment.is_matched(column)) {
            assignment.augment(column);
        }
    }
    return assignment.template row_of_column<I>();
}

template <typename V, typename I>
std::unique_ptr<matrix::Csr<V, I>> permute_rows(const matrix::Csr<V, I>& a, const std::vector<I>& row_of_position)
{
    const auto exec = a.get_executor();
    const auto n = a.get_size().rows;
    const auto row_ptrs = a.get_const_row_ptrs();
    array<I> permuted_row_ptrs{exec, n + 1};
    array<I> permuted_col_idxs{exec, a.get_num_stored_elements()};
    array<V> permuted_values{exec, a.get_num_stored_elements()};
    permuted_row_ptrs.get_data()[0] = 0;
    for (size_type position = 0; position < n; ++position) {
        const auto row = static_cast<size_type>(row_of_position[position]);
        const auto begin = permuted_row_ptrs.get_data()[position];
        const auto length = row_ptrs[row + 1] - row_ptrs[row];
        std::copy_n(a.get_const_col_idxs() + row_ptrs[row], length, permuted_col_idxs.get_data() + begin);
        std::copy_n(a.get_const_values() + row_ptrs[row], length, permuted_values.get_data() + begin);
        permuted_row_ptrs.get_data()[position + 1] = begin + length;
    }
    return matrix::Csr<V, I>::create(exec, a.get_size(), std::move(permuted_values), std::move(permuted_col_idxs),
                                     std::move(permuted_row_ptrs));
}

#define LARCH_INSTANTIATE_ROW_MATCHING(V, I)                                                              \
    template std::vector<I> find_maximum_product_matching<V, I>(const matrix::Csr<V, I>&);                \
    template std::unique_ptr<matrix::Csr<V, I>> permute_rows<V, I>(const matrix::Csr<V, I>&, \
                                                                   const std::vector<I>&)
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_ROW_MATCHING);

}  // namespace preconditioner
}  // namespace larch
