// Block-Jacobi per item of a batched solve: row matching, supervariable blocking and extraction on the host,
// inversion of all blocks of all items in one batched Gauss-Jordan call on the executor per round of splits.
#include "core/batch/solver/item_block_jacobi.hpp"

#include <algorithm>
#include <numeric>

#include "core/components/instantiation.hpp"
#include "core/preconditioner/block_jacobi_item_algorithms.hpp"
#include "core/preconditioner/scalar_jacobi_rule.hpp"
#include "core/preconditioner/row_matching.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/gauss_jordan.hpp"
#include "larch/matrix/csr.hpp"

namespace larch {
namespace batch {
namespace {

/// Whether the item has a zero or missing diagonal entry (duplicates summed).
template <typename T, typename I>
bool has_zero_diagonal(const matrix_data<T, I>& item)
{
    std::vector<T> diagonal(item.size.rows, T{});
    for (const auto& e : item.entries) {
        if (e.row == e.col) {
            diagonal[static_cast<size_type>(e.row)] += e.value;
        }
    }
    return std::find(diagonal.begin(), diagonal.end(), T{}) != diagonal.end();
}

/// P A for the maximum product row matching P of `item`; row_of_position receives P (row k of P A is row
/// row_of_position[k] of A).
template <typename T, typename I>
matrix_data<T, I> match_rows(const matrix_data<T, I>& item, std::vector<I>& row_of_position)
{
    const auto a = matrix::Csr<T, I>::create(ReferenceExecutor::create(), item);
    row_of_position = preconditioner::find_maximum_product_matching(*a);
    return preconditioner::permute_rows(*a, row_of_position)->to_data();
}

/// The block boundaries of one item: its supervariables (consecutive rows with one column pattern)
/// agglomerated up to max_block_size rows, as preconditioner::BlockJacobi finds them.
template <typename T, typename I>
std::vector<size_type> supervariable_blocks(const matrix_data<T, I>& item, size_type max_block_size)
{
    const auto n = item.size.rows;
    std::vector<std::vector<I>> patterns(n);
    for (const auto& e : item.entries) {
        patterns[static_cast<size_type>(e.row)].push_back(e.col);
    }
    for (auto& pattern : patterns) {
        std::sort(pattern.begin(), pattern.end());
    }
    std::vector<std::uint8_t> starts(n);
    for (size_type row = 0; row < n; ++row) {
        starts[row] = row == 0 || patterns[row] != patterns[row - 1];
    }
    std::vector<size_type> offsets(n + 1);
    size_type largest_block = 0;
    offsets.resize(kernels::block_jacobi_item::agglomerate_supervariables(starts.data(), n, max_block_size,
                                                                          offsets.data(), largest_block) +
                   1);
    return offsets;
}

/// The diagonal blocks of a batch on the host: each transposed (block entry (r, c) stored at c * order + r,
/// zeros where the item has no entry, duplicates summed in order), and the per-row tables of ItemBlockJacobi.
template <typename T>
struct HostBlocks {
    std::vector<dim2> sizes;
    std::vector<T> values;
    std::vector<std::int32_t> first_rows;
    std::vector<std::int32_t> block_sizes;
    std::vector<std::int64_t> inverse_rows;
    /// The diagonal entry of every row, for the scalar fallback of a singular 1 x 1 block.
    std::vector<T> diagonals;
};

template <typename T, typename I>
HostBlocks<T> extract_blocks(const std::vector<const matrix_data<T, I>*>& items,
                             const std::vector<std::vector<size_type>>& item_offsets)
{
    // The sizes first, so that the blocks of the whole batch are allocated once (growing one vector of
    // gigabytes by doubling spent most of the setup in copies and page faults).
    HostBlocks<T> result;
    size_type total_values = 0;
    size_type total_rows = 0;
    for (size_type i = 0; i < items.size(); ++i) {
        const auto& offsets = item_offsets[i];
        for (size_type block = 0; block + 1 < offsets.size(); ++block) {
            const auto order = offsets[block + 1] - offsets[block];
            result.sizes.push_back(dim2{order, order});
            total_values += order * order;
        }
        total_rows += items[i]->size.rows;
    }
    result.values.assign(total_values, T{});
    result.first_rows.reserve(total_rows);
    result.block_sizes.reserve(total_rows);
    result.inverse_rows.reserve(total_rows);
    result.diagonals.reserve(total_rows);
    std::vector<size_type> block_of_row;
    std::vector<size_type> block_starts;
    size_type start = 0;
    for (size_type i = 0; i < items.size(); ++i) {
        const auto& offsets = item_offsets[i];
        const auto num_blocks = offsets.size() - 1;
        block_of_row.resize(items[i]->size.rows);
        block_starts.resize(num_blocks);
        for (size_type block = 0; block < num_blocks; ++block) {
            std::fill(block_of_row.begin() + static_cast<std::ptrdiff_t>(offsets[block]),
                      block_of_row.begin() + static_cast<std::ptrdiff_t>(offsets[block + 1]), block);
            block_starts[block] = start;
            start += (offsets[block + 1] - offsets[block]) * (offsets[block + 1] - offsets[block]);
        }
        // the position of (r, c) in its block (column-major), if c lies in the block of row r
        const auto position = [&](size_type r, size_type c, size_type& at) {
            const auto block = block_of_row[r];
            const auto first = offsets[block];
            const auto order = offsets[block + 1] - first;
            at = block_starts[block] + (c - first) * order + (r - first);
            return c >= first && c < first + order;
        };
        for (const auto& e : items[i]->entries) {
            size_type at = 0;
            if (position(static_cast<size_type>(e.row), static_cast<size_type>(e.col), at)) {
                result.values[at] += e.value;
            }
        }
        for (size_type r = 0; r < items[i]->size.rows; ++r) {
            size_type at = 0;
            position(r, r, at);
            const auto block = block_of_row[r];
            result.diagonals.push_back(result.values[at]);
            result.first_rows.push_back(static_cast<std::int32_t>(offsets[block]));
            result.block_sizes.push_back(static_cast<std::int32_t>(offsets[block + 1] - offsets[block]));
            result.inverse_rows.push_back(static_cast<std::int64_t>(block_starts[block] + (r - offsets[block])));
        }
    }
    return result;
}

}  // namespace

template <typename T, typename I>
ItemBlockJacobi<T> generate_item_block_jacobi(std::shared_ptr<const Executor> exec,
                                              const std::vector<matrix_data<T, I>>& items,
                                              size_type max_block_size,
                                              preconditioner::BlockJacobiRowMatching row_matching)
{
    // The items whose diagonal blocks would be singular are replaced by P_i A_i (the others are used as given).
    std::vector<matrix_data<T, I>> matched_items;
    std::vector<std::uint8_t> matched(items.size());
    std::vector<std::int32_t> gather_rows;
    std::vector<I> row_of_position;
    for (size_type i = 0; i < items.size(); ++i) {
        row_of_position.resize(items[i].size.rows);
        std::iota(row_of_position.begin(), row_of_position.end(), I{0});
        matched[i] = row_matching == preconditioner::BlockJacobiRowMatching::maximum_product ||
                     (row_matching == preconditioner::BlockJacobiRowMatching::automatic && has_zero_diagonal(items[i]));
        if (matched[i]) {
            matched_items.push_back(match_rows(items[i], row_of_position));
        }
        for (const auto row : row_of_position) {
            gather_rows.push_back(static_cast<std::int32_t>(row));
        }
    }
    std::vector<const matrix_data<T, I>*> block_items;
    std::vector<std::vector<size_type>> item_offsets;
    item_offsets.reserve(items.size());
    for (size_type i = 0, next = 0; i < items.size(); ++i) {
        block_items.push_back(matched[i] ? &matched_items[next++] : &items[i]);
        item_offsets.push_back(supervariable_blocks(*block_items.back(), max_block_size));
    }
    ItemBlockJacobi<T> result;
    result.num_matched_items = matched_items.size();
    if (!matched_items.empty()) {
        result.gather_rows = array<std::int32_t>{exec, gather_rows.begin(), gather_rows.end()};
        result.item_matched = array<std::uint8_t>{exec, matched.begin(), matched.end()};
    }
    // Rounds of extraction and inversion: a singular block of several rows is split in halves, as
    // preconditioner::BlockJacobi does, and the blocks are extracted and inverted again, until only 1 x 1
    // blocks are singular (at most log2(32) + 1 rounds). The blocks go to the executor once per round and are
    // inverted there in place (a batch::Dense viewing them as row-major matrices, that is as the transposed
    // blocks, whose inverses are the wanted column-major ones).
    while (true) {
        auto blocks = extract_blocks(block_items, item_offsets);
        result.num_blocks = blocks.sizes.size();
        result.inverses = array<T>{exec, blocks.values.begin(), blocks.values.end()};
        std::vector<T>{}.swap(blocks.values);
        auto dense = Dense<T>::create(exec, blocks.sizes,
                                      array<T>::view(exec, result.inverses.get_size(), result.inverses.get_data()));
        const auto info = invert(*dense).copy_to_host();
        size_type cut = 0;
        for (size_type i = 0, first_block = 0; i < items.size(); ++i) {
            const auto num_blocks = item_offsets[i].size() - 1;
            cut += kernels::block_jacobi_item::split_in_halves(
                item_offsets[i], [&](size_type block) { return info[first_block + block] != 0; });
            first_block += num_blocks;
        }
        result.num_split_blocks += cut;
        if (cut == 0) {
            // A singular 1 x 1 block (a zero, subnormal or non-finite diagonal entry) falls back to scalar Jacobi:
            // 1 / a_ii, or 1 where that is not finite (kernels::jacobi_leaves_unscaled: 1 / 1e-310 would put Inf
            // into every application), written over it on the executor.
            for (size_type b = 0, row = 0; b < blocks.sizes.size(); row += blocks.sizes[b].rows, ++b) {
                if (info[b] != 0) {
                    ++result.num_singular_blocks;
                    const T d = blocks.diagonals[row];
                    const T fallback = kernels::jacobi_leaves_unscaled(d) ? T{1} : T{1} / d;
                    exec->copy_from(*exec->get_host(), sizeof(T), &fallback,
                                    result.inverses.get_data() + blocks.inverse_rows[row]);
                }
            }
            result.first_rows = array<std::int32_t>{exec, blocks.first_rows.begin(), blocks.first_rows.end()};
            result.block_sizes = array<std::int32_t>{exec, blocks.block_sizes.begin(), blocks.block_sizes.end()};
            result.inverse_rows = array<std::int64_t>{exec, blocks.inverse_rows.begin(), blocks.inverse_rows.end()};
            return result;
        }
    }
}

#define LARCH_INSTANTIATE_ITEM_BLOCK_JACOBI(T, I)                                                    \
    template ItemBlockJacobi<T> generate_item_block_jacobi<T, I>(std::shared_ptr<const Executor>,    \
                                                                 const std::vector<matrix_data<T, I>>&, \
                                                                 size_type, preconditioner::BlockJacobiRowMatching)
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_ITEM_BLOCK_JACOBI);

}  // namespace batch
}  // namespace larch
