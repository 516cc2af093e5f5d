// Block-Jacobi per item of a batched solve: supervariable blocking and extraction on the host, inversion of
// all blocks of all items in one batched Gauss-Jordan call on the executor.
#include "core/batch/solver/item_block_jacobi.hpp"

#include <algorithm>

#include "core/components/instantiation.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/gauss_jordan.hpp"

namespace larch {
namespace batch {

namespace {

/// Block row offsets of one item (rows sorted by column within each row in `rows`): a supervariable (rows
/// with one column pattern) longer than `bound` is cut into pieces of `bound` rows, and consecutive
/// pieces join the open block while it stays within `bound` rows.
template <typename I>
std::vector<size_type> block_offsets(const std::vector<std::vector<I>>& rows, size_type bound)
{
    std::vector<size_type> offsets{0};
    size_type open = 0;
    size_type row = 0;
    while (row < rows.size()) {
        auto end = row + 1;
        while (end < rows.size() && rows[end] == rows[row]) {
            ++end;
        }
        for (auto piece = row; piece < end; piece += bound) {
            const auto length = std::min(bound, end - piece);
            if (open + length > bound) {
                offsets.push_back(piece);
                open = 0;
            }
            open += length;
        }
        row = end;
    }
    offsets.push_back(rows.size());
    return offsets;
}

}  // namespace

template <typename T, typename I>
ItemBlockJacobi<T> generate_item_block_jacobi(std::shared_ptr<const Executor> exec,
                                              const std::vector<matrix_data<T, I>>& items,
                                              size_type max_block_size)
{
    std::vector<dim2> sizes;
    std::vector<T> blocks;
    std::vector<std::int32_t> first_rows;
    std::vector<std::int32_t> block_sizes;
    std::vector<std::int64_t> inverse_rows;
    std::vector<T> diagonals;  // for the scalar fallback of singular blocks
    for (const auto& item : items) {
        const auto n = item.size.rows;
        std::vector<std::vector<I>> patterns(n);
        std::vector<std::vector<std::pair<I, T>>> entries(n);
        for (const auto& e : item.entries) {
            patterns[static_cast<size_type>(e.row)].push_back(e.col);
            entries[static_cast<size_type>(e.row)].push_back({e.col, e.value});
        }
        for (auto& pattern : patterns) {
            std::sort(pattern.begin(), pattern.end());
        }
        const auto offsets = block_offsets(patterns, max_block_size);
        for (size_type block = 0; block + 1 < offsets.size(); ++block) {
            const auto first = offsets[block];
            const auto order = offsets[block + 1] - first;
            const auto start = static_cast<std::int64_t>(blocks.size());
            blocks.resize(blocks.size() + order * order, T{});
            for (size_type r = 0; r < order; ++r) {
                for (const auto& [col, value] : entries[first + r]) {
                    const auto c = static_cast<size_type>(col);
                    if (c >= first && c < first + order) {
                        blocks[static_cast<size_type>(start) + r * order + (c - first)] += value;
                    }
                }
                diagonals.push_back(blocks[static_cast<size_type>(start) + r * order + r]);
                first_rows.push_back(static_cast<std::int32_t>(first));
                block_sizes.push_back(static_cast<std::int32_t>(order));
                inverse_rows.push_back(start + static_cast<std::int64_t>(r * order));
            }
            sizes.push_back(dim2{order, order});
        }
    }
    auto dense = Dense<T>::create(exec, sizes, blocks);
    const auto info = invert(*dense).copy_to_host();
    auto inverses = dense->copy_to_host();
    ItemBlockJacobi<T> result;
    result.num_blocks = sizes.size();
    // A singular block falls back to scalar Jacobi: its inverse becomes diag(1 / a_ii) (1 where a_ii = 0).
    size_type row = 0;
    for (size_type block = 0; block < sizes.size(); ++block) {
        const auto order = sizes[block].rows;
        if (info[block] != 0) {
            ++result.num_singular_blocks;
            const auto start = static_cast<size_type>(inverse_rows[row]);
            std::fill(inverses.begin() + static_cast<std::ptrdiff_t>(start),
                      inverses.begin() + static_cast<std::ptrdiff_t>(start + order * order), T{});
            for (size_type r = 0; r < order; ++r) {
                const T d = diagonals[row + r];
                inverses[start + r * order + r] = d == T{} ? T{1} : T{1} / d;
            }
        }
        row += order;
    }
    result.first_rows = array<std::int32_t>{exec, first_rows.begin(), first_rows.end()};
    result.block_sizes = array<std::int32_t>{exec, block_sizes.begin(), block_sizes.end()};
    result.inverse_rows = array<std::int64_t>{exec, inverse_rows.begin(), inverse_rows.end()};
    result.inverses = array<T>{exec, inverses.begin(), inverses.end()};
    return result;
}

#define LARCH_INSTANTIATE_ITEM_BLOCK_JACOBI(T, I)                                                    \
    template ItemBlockJacobi<T> generate_item_block_jacobi<T, I>(std::shared_ptr<const Executor>,    \
                                                                 const std::vector<matrix_data<T, I>>&, \
                                                                 size_type)
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_ITEM_BLOCK_JACOBI);

}  // namespace batch
}  // namespace larch
