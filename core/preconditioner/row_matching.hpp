// The maximum product row matching of block-Jacobi: a row permutation P that puts large entries on the
// diagonal of P A, so that a matrix with zero diagonal entries (saddle points, circuit and chemistry
// matrices) gets diagonal blocks that can be inverted.
#pragma once

#include <memory>
#include <vector>

#include "larch/base/types.hpp"
#include "larch/matrix/csr.hpp"

namespace larch {
namespace preconditioner {

/**
 * The maximum product transversal of the square CSR matrix `a` (on a host executor): row_of_column (n
 * entries) such that the product of |a(row_of_column[j], j)| over all columns j is largest (Duff and Koster 2001, the
 * bipartite weighted matching behind MC64). Row k of P A is row row_of_column[k] of A, so the matched entries
 * lie on the diagonal of P A.
 *
 * Computed as a minimum cost assignment with the costs c(i, j) = log(max_i' |a(i', j)|) - log |a(i, j)| >= 0
 * (zero and non-finite entries are not edges), by successive shortest augmenting
 * paths (Dijkstra with dual potentials), one path per column, after a greedy start on the zero reduced cost
 * entries. Cost: O(nnz) for a matrix whose largest entries already form a matching, at worst
 * O(n nnz log n). A structurally singular matrix (no complete matching) keeps the matching of as many
 * columns as the search finds; the unmatched columns receive the unmatched rows in ascending order.
 */
template <typename V, typename I>
std::vector<I> find_maximum_product_matching(const matrix::Csr<V, I>& a);

/// P A on a's executor, which must be the host: row k is row row_of_position[k] of `a` (a permutation of
/// the rows, as find_maximum_product_matching returns).
template <typename V, typename I>
std::unique_ptr<matrix::Csr<V, I>> permute_rows(const matrix::Csr<V, I>& a, const std::vector<I>& row_of_position);

}  // namespace preconditioner
}  // namespace larch
