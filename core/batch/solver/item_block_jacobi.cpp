// Block-Jacobi per item of a batched solve: supervariable blocking and extraction on the host, inversion of
// all blocks of all items in one batched Gauss-Jordan call on the executor.
#include "core/batch/solver/item_block_jacobi.hpp"

#include <algorithm>
#include <numeric>

#include "core/components/instantiation.hpp"
#include "core/preconditioner/block_jacobi_item_algorithms.hpp"
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
    const auto host = ReferenceExecutor::create();
    row_of_position = preconditioner::find_maximum_product_matching(*matrix::Csr<T, I>::create(host, item));
    std::vector<I> position_of_row(row_of_position.size());
    for (size_type k = 0; k < row_of_position.size(); ++k) {
        position_of_row[static_cast<size_type>(row_of_position[k])] = static_cast<I>(k);
    }
    auto permuted = item;
    for (auto& e : permuted.entries) {
        e.row = position_of_row[static_cast<size_type>(e.row)];
    }
    return permuted;
}

}  // namespace

template <typename T, typename I>
ItemBlockJacobi<T> generate_item_block_jacobi(std::shared_ptr<const Executor> exec,
                                              const std::vector<matrix_data<T, I>>& items,
                                              size_type max_block_size)
{
    // The items whose diagonal blocks would be singular are replaced by P_i A_i (the others are used as given).
    std::vector<matrix_data<T, I>> matched_items;
    std::vector<bool> matched(items.size());
    std::vector<std::int32_t> gather_rows;
    std::vector<I> row_of_position;
    for (size_type i = 0; i < items.size(); ++i) {
        row_of_position.resize(items[i].size.rows);
        std::iota(row_of_position.begin(), row_of_position.end(), I{0});
        matched[i] = has_zero_diagonal(items[i]);
        if (matched[i]) {
            matched_items.push_back(match_rows(items[i], row_of_position));
        }
        for (const auto row : row_of_position) {
            gather_rows.push_back(static_cast<std::int32_t>(row));
        }
    }
    std::vector<const matrix_data<T, I>*> block_items;
    for (size_type i = 0, next = 0; i < items.size(); ++i) {
        block_items.push_back(matched[i] ? &matched_items[next++] : &items[i]);
    }
    // First pass: each item's blocks, so that the blocks of the whole batch are allocated once (growing one
    // vector of gigabytes by doubling spent most of the setup in copies and page faults).
    std::vector<std::vector<size_type>> item_offsets;
    item_offsets.reserve(items.size());
    std::vector<dim2> sizes;
    size_type total_values = 0;
    size_type total_rows = 0;
    for (const auto* item : block_items) {
        const auto n = item->size.rows;
        std::vector<std::vector<I>> patterns(n);
        for (const auto& e : item->entries) {
            patterns[static_cast<size_type>(e.row)].push_back(e.col);
        }
        for (auto& pattern : patterns) {
            std::sort(pattern.begin(), pattern.end());
        }
        // the supervariable agglomeration of preconditioner::BlockJacobi, from the rows where the pattern changes
        std::vector<std::uint8_t> starts(n);
        for (size_type row = 0; row < n; ++row) {
            starts[row] = row == 0 || patterns[row] != patterns[row - 1];
        }
        std::vector<size_type> offsets(n + 1);
        size_type largest_block = 0;
        offsets.resize(kernels::block_jacobi_item::agglomerate_supervariables(starts.data(), n, max_block_size,
                                                                              offsets.data(), largest_block) +
                       1);
        for (size_type block = 0; block + 1 < offsets.size(); ++block) {
            const auto order = offsets[block + 1] - offsets[block];
            sizes.push_back(dim2{order, order});
            total_values += order * order;
        }
        total_rows += n;
        item_offsets.push_back(std::move(offsets));
    }
    // Second pass: the blocks, transposed (block entry (r, c) stored at c * order + r, zeros where the item
    // has no entry, duplicates summed in order), and the per-row tables.
    std::vector<T> blocks(total_values, T{});
    std::vector<std::int32_t> first_rows;
    std::vector<std::int32_t> block_sizes;
    std::vector<std::int64_t> inverse_rows;
    std::vector<T> diagonals;  // for the scalar fallback of singular blocks
    first_rows.reserve(total_rows);
    block_sizes.reserve(total_rows);
    inverse_rows.reserve(total_rows);
    diagonals.reserve(total_rows);
    std::vector<size_type> block_of_row;
    std::vector<size_type> block_starts;
    size_type start = 0;
    for (size_type i = 0; i < items.size(); ++i) {
        const auto& offsets = item_offsets[i];
        const auto num_blocks = offsets.size() - 1;
        block_of_row.resize(block_items[i]->size.rows);
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
        for (const auto& e : block_items[i]->entries) {
            size_type at = 0;
            if (position(static_cast<size_type>(e.row), static_cast<size_type>(e.col), at)) {
                blocks[at] += e.value;
            }
        }
        for (size_type r = 0; r < block_items[i]->size.rows; ++r) {
            size_type at = 0;
            position(r, r, at);
            const auto block = block_of_row[r];
            diagonals.push_back(blocks[at]);
            first_rows.push_back(static_cast<std::int32_t>(offsets[block]));
            block_sizes.push_back(static_cast<std::int32_t>(offsets[block + 1] - offsets[block]));
            inverse_rows.push_back(static_cast<std::int64_t>(block_starts[block] + (r - offsets[block])));
        }
    }
    ItemBlockJacobi<T> result;
    result.num_blocks = sizes.size();
    result.num_matched_items = matched_items.size();
    if (!matched_items.empty()) {
        result.gather_rows = array<std::int32_t>{exec, gather_rows.begin(), gather_rows.end()};
    }
    // The blocks go to the executor once and are inverted there in place (a batch::Dense viewing them as
    // row-major matrices, that is as the transposed blocks, whose inverses are the wanted column-major ones).
    result.inverses = array<T>{exec, blocks.begin(), blocks.end()};
    std::vector<T>{}.swap(blocks);
    auto dense = Dense<T>::create(exec, sizes, array<T>::view(exec, total_values, result.inverses.get_data()));
    const auto info = invert(*dense).copy_to_host();
    // A singular block falls back to scalar Jacobi: its inverse becomes diag(1 / a_ii) (1 where a_ii = 0,
    // the same in either storage order), written over it on the executor.
    std::vector<T> fallback;
    size_type row = 0;
    for (size_type block = 0; block < sizes.size(); ++block) {
        const auto order = sizes[block].rows;
        if (info[block] != 0) {
            ++result.num_singular_blocks;
            fallback.assign(order * order, T{});
            for (size_type r = 0; r < order; ++r) {
                const T d = diagonals[row + r];
                fallback[r * order + r] = d == T{} ? T{1} : T{1} / d;
            }
            exec->copy_from(*exec->get_host(), fallback.size() * sizeof(T), fallback.data(),
                            result.inverses.get_data() + inverse_rows[row]);  // the block's start
        }
        row += order;
    }
    result.first_rows = array<std::int32_t>{exec, first_rows.begin(), first_rows.end()};
    result.block_sizes = array<std::int32_t>{exec, block_sizes.begin(), block_sizes.end()};
    result.inverse_rows = array<std::int64_t>{exec, inverse_rows.begin(), inverse_rows.end()};
    return result;
}

#define LARCH_INSTANTIATE_ITEM_BLOCK_JACOBI(T, I)                                                    \
    template ItemBlockJacobi<T> generate_item_block_jacobi<T, I>(std::shared_ptr<const Executor>,    \
                                                                 const std::vector<matrix_data<T, I>>&, \
                                                                 size_type)
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_ITEM_BLOCK_JACOBI);

}  // namespace batch
}  // namespace larch
