// Fixed-order sums of several columns of row-major Dense blocks in one pass over the rows. Summing column by
// column reads every cache line of a block once per column (8 right-hand sides: each line eight times); here
// a few rows at a time take every column in turn, and every column's sum keeps the bits fixed_order_sum
// gives it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "omp/components/dense_column.hpp"
#include "omp/components/fixed_order_sum.hpp"
#include "omp/components/parallel_rows.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace components {

/// 0, 1, ..., cols - 1: every column of a block.
inline std::vector<size_type> all_columns(size_type cols)
{
    std::vector<size_type> columns(cols);
    for (size_type col = 0; col < cols; ++col) {
        columns[col] = col;
    }
    return columns;
}

/**
 * sums[col] = fixed_order_sum<S>(rows, term) for the term make_term(col, column col of each of ms...) returns,
 * for every col of `columns`, bit for bit (the same chunks, lanes and order of additions per column); the
 * other entries of `sums` are left alone. `make_term(col, column...)` returns a functor
 * `S(std::ptrdiff_t row)`; each term is evaluated exactly once per row, in increasing rows (the terms of a
 * chunk in blocks of sum_lanes rows, one term after the other), so a term may write its own entries, not
 * another term's. One column goes to fixed_order_sum itself, with unit-stride columns where with_columns
 * finds them.
 */
template <typename S, typename MakeTerm, typename... M>
void fixed_order_column_sums(std::ptrdiff_t rows, const std::vector<size_type>& columns, S* sums,
                             MakeTerm make_term, M&... ms)
{
    if (columns.empty()) {
        return;
    }
    if (columns.size() == 1) {
        const auto col = columns.front();
        sums[col] = with_columns(
            col, [&](auto... column) { return fixed_order_sum<S>(rows, make_term(col, column...)); }, ms...);
        return;
    }
    using Term = decltype(make_term(size_type{}, column_of<false>(ms, 0)...));
    std::vector<Term> terms;
    terms.reserve(columns.size());
    for (const auto col : columns) {
        terms.push_back(make_term(col, column_of<false>(ms, col)...));
    }
    const auto num_columns = static_cast<std::ptrdiff_t>(terms.size());
    const auto num_chunks = (rows + fixed_order_chunk_length - 1) / fixed_order_chunk_length;
    // chunk_sums[chunk * num_columns + k]: column k's lane sum over the chunk, as lane_sum forms it.
    std::vector<S> chunk_sums(static_cast<std::size_t>(num_chunks * num_columns));
    // `lanes` holds sum_lanes partial sums per column, a buffer of the calling thread reused chunk after chunk.
    const auto sum_chunk = [&](std::ptrdiff_t chunk, std::vector<S>& lanes) {
        const auto begin = chunk * fixed_order_chunk_length;
        const auto end = std::min(rows, begin + fixed_order_chunk_length);
        std::fill(lanes.begin(), lanes.end(), S{});
        // sum_lanes rows of one term at a time, written out as lane_sum does, so that the compiler can keep
        // them in vector registers; then the rows left over, one lane each.
        auto row = begin;
        for (; row + sum_lanes <= end; row += sum_lanes) {
            for (std::ptrdiff_t k = 0; k < num_columns; ++k) {
                add_to_lanes(lanes.data() + k * sum_lanes, row, terms[static_cast<std::size_t>(k)],
                             std::make_index_sequence<static_cast<std::size_t>(sum_lanes)>{});
            }
        }
        for (; row < end; ++row) {
            const auto lane = (row - begin) % sum_lanes;
            for (std::ptrdiff_t k = 0; k < num_columns; ++k) {
                lanes[static_cast<std::size_t>(k * sum_lanes + lane)] += terms[static_cast<std::size_t>(k)](row);
            }
        }
        for (std::ptrdiff_t k = 0; k < num_columns; ++k) {
            chunk_sums[static_cast<std::size_t>(chunk * num_columns + k)] =
                combine_lanes(lanes.data() + k * sum_lanes);
        }
    };
    const auto lanes_size = static_cast<std::size_t>(num_columns * sum_lanes);
    if (runs_serially(rows * num_columns)) {
        std::vector<S> lanes(lanes_size);
        for (std::ptrdiff_t chunk = 0; chunk < num_chunks; ++chunk) {
            sum_chunk(chunk, lanes);
        }
    } else {
#pragma omp parallel
        {
            std::vector<S> lanes(lanes_size);
#pragma omp for schedule(static)
            for (std::ptrdiff_t chunk = 0; chunk < num_chunks; ++chunk) {
                sum_chunk(chunk, lanes);
            }
        }
    }
    for (std::ptrdiff_t k = 0; k < num_columns; ++k) {
        S sum{};
        for (std::ptrdiff_t chunk = 0; chunk < num_chunks; ++chunk) {
            sum += chunk_sums[static_cast<std::size_t>(chunk * num_columns + k)];
        }
        sums[columns[static_cast<std::size_t>(k)]] = sum;
    }
}

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
