// The block-diagonal join of a batch of sparse items as one CSR matrix (host arrays): the single-matrix
// baselines of the batched benchmarks (cuSPARSE SpMV, larch's single-system solver) run on it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "larch/base/matrix_data.hpp"

namespace larch {
namespace benchmark {

template <typename V, typename I>
struct JoinedCsr {
    std::vector<I> row_ptrs{0};
    std::vector<I> col_idxs;
    std::vector<V> values;
};

/// Item i's rows and columns shifted by the rows and columns of the items before it. Built directly in CSR
/// (entries of each item ordered by row and column first), since a coordinate list of the whole join would
/// be sorted again: at 100,000 items of 1,024 rows that took minutes.
template <typename V, typename I>
JoinedCsr<V, I> join_block_diagonal(const std::vector<matrix_data<V, I>>& items)
{
    JoinedCsr<V, I> join;
    std::size_t nonzeros = 0;
    for (const auto& item : items) {
        nonzeros += item.entries.size();
    }
    join.col_idxs.reserve(nonzeros);
    join.values.reserve(nonzeros);
    std::int64_t col_offset = 0;
    for (const auto& item : items) {
        const auto by_position = [](const auto& x, const auto& y) { return std::tie(x.row, x.col) < std::tie(y.row, y.col); };
        auto entries = item.entries;
        if (!std::is_sorted(entries.begin(), entries.end(), by_position)) {
            std::sort(entries.begin(), entries.end(), by_position);
        }
        std::vector<I> row_lengths(item.size.rows, 0);
        for (const auto& e : entries) {
            ++row_lengths[e.row];
            join.col_idxs.push_back(static_cast<I>(e.col + col_offset));
            join.values.push_back(e.value);
        }
        for (const auto length : row_lengths) {
            join.row_ptrs.push_back(join.row_ptrs.back() + length);
        }
        col_offset += static_cast<std::int64_t>(item.size.cols);
    }
    return join;
}

}  // namespace benchmark
}  // namespace larch
