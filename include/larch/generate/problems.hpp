// Test problem generators: stencil matrices (Laplace 2D/3D, convection-diffusion), a block-structured
// FEM-like matrix, the structures of Anzt et al. 2018 (batched Gauss-Jordan), Figure 8 (arrow, tridiagonal,
// random block-diagonal,
// Laplace), and right-hand sides. All host-side, deterministic for a given seed.
#pragma once

#include <cstdint>
#include <vector>

#include "larch/base/matrix_data.hpp"

namespace larch {
namespace generate {

/**
 * Every generator returns matrix_data<V, I> with entries sorted by row, then column, no duplicates,
 * the exact number of entries reserved up front. V is float or double, I int32 or int64.
 * Grid unknowns are numbered x fastest, then y, then z; boundaries are Dirichlet (no wrap-around).
 * Random values come from a SplitMix64 stream of the seed, so results are the same on every platform.
 * @throws BadInput for a zero size or when the number of rows or of nonzeros does not fit I (a CSR
 *         matrix of index type I could not address them), naming the generator and the offending value.
 */

/// 2D Laplace, 5-point stencil on an n x n grid: n^2 rows, diagonal 4, neighbours -1, 5n^2 - 4n
/// nonzeros. Symmetric positive definite.
template <typename V, typename I = std::int32_t>
matrix_data<V, I> laplace_2d(size_type n);

/// 3D Laplace, 7-point stencil on an n x n x n grid: n^3 rows, diagonal 6, neighbours -1,
/// 7n^3 - 6n^2 nonzeros. Symmetric positive definite. n = 216 (10 million rows) takes 1-2 seconds
/// and 16 bytes per nonzero (double, int32).
template <typename V, typename I = std::int32_t>
matrix_data<V, I> laplace_3d(size_type n);

/**
 * 2D convection-diffusion -Laplace(u) + w . grad(u) with wind w = (c, c) / h on an n x n grid,
 * central differences, scaled by h^2: diagonal 4, west and south -1 - c/2, east and north -1 + c/2
 * (5n^2 - 4n nonzeros). Unsymmetric for c != 0; its symmetric part is laplace_2d, so it is
 * nonsingular for every c (positive real). For |c| > 2 it is no longer diagonally dominant.
 * @param convection  c, the convection strength per cell (finite; BadInput otherwise)
 */
template <typename V, typename I = std::int32_t>
matrix_data<V, I> convection_diffusion_2d(size_type n, double convection);

/**
 * FEM-like block-structured matrix: a grid of n^dimension nodes (5-point graph in 2D, 7-point in 3D),
 * `block_size` unknowns per node (node p's unknowns are rows p*block_size ...), and a dense
 * block_size x block_size coupling between each node and itself and each grid neighbour.
 * Off-diagonal values are pseudo-random in (-1, -0.5], symmetric; each diagonal entry is the sum of
 * the magnitudes of its row's off-diagonal entries plus 1, so the matrix is symmetric positive
 * definite and strictly diagonally dominant. nnz = (5n^2 - 4n) k^2 in 2D, (7n^3 - 6n^2) k^2 in 3D.
 * @param dimension  2 or 3 (BadInput otherwise)
 */
template <typename V, typename I = std::int32_t>
matrix_data<V, I> block_fem(size_type n, size_type dimension, size_type block_size, std::uint64_t seed);

/// Arrow (Anzt et al. 2018, batched Gauss-Jordan, Fig. 8): the diagonal plus the last row and column. Diagonal
/// 2 (n in the last
/// row), the other entries 1: strictly diagonally dominant. 3n - 2 nonzeros, symmetric.
template <typename V, typename I = std::int32_t>
matrix_data<V, I> arrow(size_type n);

/// Tridiagonal (Anzt et al. 2018, batched Gauss-Jordan, Fig. 8): 1D Laplace, diagonal 2, off-diagonals -1; 3n
/// - 2 nonzeros, SPD.
template <typename V, typename I = std::int32_t>
matrix_data<V, I> tridiagonal(size_type n);

/**
 * Block boundaries for n rows cut into blocks of random size in [min_block, max_block] (the last
 * block is cut short where the rows run out, so it may be smaller than min_block). Returns
 * num_blocks + 1 row offsets, starting at 0 and ending at n (the block_pointers of block-Jacobi).
 * @throws BadInput for n == 0, min_block == 0 or min_block > max_block.
 */
template <typename I = std::int32_t>
std::vector<I> random_block_pointers(size_type n, size_type min_block, size_type max_block,
                                     std::uint64_t seed);

/**
 * Block-diagonal matrix with a dense block per [block_pointers[b], block_pointers[b + 1]) range:
 * off-diagonal values pseudo-random in [-1, 1), each diagonal entry the sum of the magnitudes of its
 * row's off-diagonal entries plus 1 (nonsingular, unsymmetric).
 * @throws BadInput unless block_pointers starts at 0, increases strictly and has at least 2 entries.
 */
template <typename V, typename I = std::int32_t>
matrix_data<V, I> block_diagonal(const std::vector<I>& block_pointers, std::uint64_t seed);

/// Random block-diagonal (Anzt et al. 2018, batched Gauss-Jordan, Fig. 8):
/// block_diagonal(random_block_pointers(...), seed).
template <typename V, typename I = std::int32_t>
matrix_data<V, I> random_block_diagonal(size_type n, size_type min_block, size_type max_block,
                                        std::uint64_t seed);

/// Kinds of right-hand side.
enum class RhsKind {
    ones,     ///< every entry 1
    uniform,  ///< pseudo-random, uniform in [0, 1), from the seed
};

/// A right-hand side of n entries (n may be 0).
template <typename V>
std::vector<V> right_hand_side(size_type n, RhsKind kind, std::uint64_t seed = 42);

}  // namespace generate
}  // namespace larch
