// Generators of the sparsity structures of Anzt et al. 2018 (batched Gauss-Jordan), Figure 8, that are not
// grid stencils (arrow and
// random block-diagonal; tridiagonal and Laplace are in grid_problems.cpp), and right-hand sides.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/generate/generator_support.hpp"
#include "larch/generate/problems.hpp"

namespace larch {
namespace generate {

template <typename V, typename I>
matrix_data<V, I> arrow(size_type n)
{
    detail::ensure_positive("arrow", "the size n", n);
    const auto nonzeros = detail::checked_product("arrow", "nonzeros", 3, n) - 2;
    detail::ensure_fits_index_type<I>("arrow", n, nonzeros);
    const auto last = n - 1;
    matrix_data<V, I> data{dim2{n}};
    data.entries.reserve(nonzeros);
    for (size_type row = 0; row < last; ++row) {
        data.entries.push_back({static_cast<I>(row), static_cast<I>(row), V{2}});
        data.entries.push_back({static_cast<I>(row), static_cast<I>(last), V{1}});
    }
    for (size_type col = 0; col < last; ++col) {
        data.entries.push_back({static_cast<I>(last), static_cast<I>(col), V{1}});
    }
    // The last row holds n - 1 ones; a diagonal of n keeps it strictly dominant.
    data.entries.push_back({static_cast<I>(last), static_cast<I>(last), static_cast<V>(n)});
    return data;
}

template <typename I>
std::vector<I> random_block_pointers(size_type n, size_type min_block, size_type max_block,
                                     std::uint64_t seed)
{
    detail::ensure_positive("random_block_pointers", "the size n", n);
    detail::ensure_positive("random_block_pointers", "the smallest block size", min_block);
    LARCH_ENSURE(min_block <= max_block, BadInput,
                 "random_block_pointers: the smallest block size " + std::to_string(min_block) +
                     " exceeds the largest " + std::to_string(max_block));
    detail::ensure_fits_index_type<I>("random_block_pointers", n, 0);
    detail::SplitMix64 random{seed};
    std::vector<I> block_pointers{0};
    for (size_type start = 0; start < n;) {
        start += std::min(random.between(min_block, max_block), n - start);
        block_pointers.push_back(static_cast<I>(start));
    }
    return block_pointers;
}

template <typename V, typename I>
matrix_data<V, I> block_diagonal(const std::vector<I>& block_pointers, std::uint64_t seed)
{
    const char* generator = "block_diagonal";
    LARCH_ENSURE(block_pointers.size() >= 2 && block_pointers.front() == 0, BadInput,
                 "block_diagonal: block_pointers must hold at least 2 offsets and start at 0");
    size_type nonzeros = 0;
    for (size_type b = 0; b + 1 < block_pointers.size(); ++b) {
        LARCH_ENSURE(block_pointers[b] < block_pointers[b + 1], BadInput,
                     "block_diagonal: block_pointers must increase strictly, but block_pointers[" +
                         std::to_string(b) + "] = " + std::to_string(block_pointers[b]) +
                         " and block_pointers[" + std::to_string(b + 1) +
                         "] = " + std::to_string(block_pointers[b + 1]));
        const auto block_size = static_cast<size_type>(block_pointers[b + 1] - block_pointers[b]);
        nonzeros += detail::checked_product(generator, "nonzeros", block_size, block_size);
    }
    const auto rows = static_cast<size_type>(block_pointers.back());
    detail::ensure_fits_index_type<I>(generator, rows, nonzeros);
    detail::SplitMix64 random{seed};
    matrix_data<V, I> data{dim2{rows}};
    data.entries.reserve(nonzeros);
    std::vector<double> row_values;
    for (size_type b = 0; b + 1 < block_pointers.size(); ++b) {
        const auto first = static_cast<size_type>(block_pointers[b]);
        const auto end = static_cast<size_type>(block_pointers[b + 1]);
        for (size_type row = first; row < end; ++row) {
            // Draw the row's off-diagonal values first: the diagonal is their magnitude sum plus 1.
            row_values.assign(end - first, 0.0);
            double diagonal = 1.0;
            for (size_type col = first; col < end; ++col) {
                if (col != row) {
                    row_values[col - first] = 2.0 * random.uniform() - 1.0;
                    diagonal += std::abs(row_values[col - first]);
                }
            }
            row_values[row - first] = diagonal;
            for (size_type col = first; col < end; ++col) {
                data.entries.push_back(
                    {static_cast<I>(row), static_cast<I>(col), static_cast<V>(row_values[col - first])});
            }
        }
    }
    return data;
}

template <typename V, typename I>
matrix_data<V, I> random_block_diagonal(size_type n, size_type min_block, size_type max_block,
                                        std::uint64_t seed)
{
    // The block values use a stream independent of the block sizes' stream.
    return block_diagonal<V, I>(random_block_pointers<I>(n, min_block, max_block, seed), ~seed);
}

template <typename V>
std::vector<V> right_hand_side(size_type n, RhsKind kind, std::uint64_t seed)
{
    std::vector<V> rhs(n, V{1});
    if (kind == RhsKind::uniform) {
        detail::SplitMix64 random{seed};
        for (auto& value : rhs) {
            // Rounding to float could give exactly 1; draw again to stay inside [0, 1).
            do {
                value = static_cast<V>(random.uniform());
            } while (value >= V{1});
        }
    }
    return rhs;
}

#define LARCH_INSTANTIATE_STRUCTURES(V, I)                                                 \
    template matrix_data<V, I> arrow<V, I>(size_type);                                     \
    template matrix_data<V, I> block_diagonal<V, I>(const std::vector<I>&, std::uint64_t); \
    template matrix_data<V, I> random_block_diagonal<V, I>(size_type, size_type, size_type, std::uint64_t)

LARCH_INSTANTIATE_STRUCTURES(float, std::int32_t);
LARCH_INSTANTIATE_STRUCTURES(float, std::int64_t);
LARCH_INSTANTIATE_STRUCTURES(double, std::int32_t);
LARCH_INSTANTIATE_STRUCTURES(double, std::int64_t);
#undef LARCH_INSTANTIATE_STRUCTURES

template std::vector<std::int32_t> random_block_pointers<std::int32_t>(size_type, size_type, size_type,
                                                                       std::uint64_t);
template std::vector<std::int64_t> random_block_pointers<std::int64_t>(size_type, size_type, size_type,
                                                                       std::uint64_t);
template std::vector<float> right_hand_side<float>(size_type, RhsKind, std::uint64_t);
template std::vector<double> right_hand_side<double>(size_type, RhsKind, std::uint64_t);

}  // namespace generate
}  // namespace larch
