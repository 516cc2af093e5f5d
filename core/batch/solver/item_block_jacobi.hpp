// Block-Jacobi inside every item of a batched solve: each item's diagonal blocks from its supervariables
// (consecutive rows with one column pattern, agglomerated up to max_block_size rows), inverted all at once by
// the batched Gauss-Jordan kernels (batch::invert) on the solver's executor, and stored per row for the
// solve kernels' preconditioner apply (out[r] = sum_j inverse(r - first, j) in[first + j]).
//
// An item with a zero or missing diagonal entry gets the blocks of P_i A_i instead, P_i its maximum product
// row matching (as preconditioner::BlockJacobi's automatic row matching): its diagonal blocks of A_i would
// be singular, so scalar Jacobi with unit diagonals would be all that is left. The apply then reads
// in[gather[first + j]] (P_i in) in place of in[first + j].
//
// Each inverse is stored column-major: the GPU applies it with one thread per row, and column-major
// storage makes a warp's consecutive rows of a block read consecutive words at every step j (row-major,
// each thread read its own 256-byte row, 32 cache lines per load instruction). The blocks are inverted
// transposed to get there: inv(A^T) stored row-major is inv(A) stored column-major.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/preconditioner/block_jacobi.hpp"

namespace larch {
namespace batch {

/// The generated blocks, per row of the batch (rows of all items concatenated, as a batch::Vector's).
template <typename T>
struct ItemBlockJacobi {
    /// Item-local first row of the row's block, and the block's order.
    array<std::int32_t> first_rows;
    array<std::int32_t> block_sizes;
    /// Offset in `inverses` of the row's entry in column 0 of its block inverse; entry j of the row is
    /// `order` values further per column (column-major blocks, see block_row_product).
    array<std::int64_t> inverse_rows;
    array<T> inverses;
    /// Per row of the batch, the item-local row that row k of P_i in comes from (identity outside the matched
    /// items); empty when no item is matched.
    array<std::int32_t> gather_rows;
    /// Per item, 1 where it is matched (its apply gathers through gather_rows); empty with gather_rows.
    array<std::uint8_t> item_matched;
    size_type num_blocks = 0;
    /// Items whose blocks are those of P_i A_i.
    size_type num_matched_items = 0;
    /// Blocks of several rows Gauss-Jordan found singular, each split in halves (and its halves again, until
    /// they are regular or 1 x 1), as preconditioner::BlockJacobi splits them.
    size_type num_split_blocks = 0;
    /// Singular 1 x 1 blocks left after the splits (a zero, subnormal or non-finite diagonal entry): they fall
    /// back to scalar Jacobi (1 / a_ii, 1 where that is not finite), so a singular block never stops its item's
    /// solve.
    size_type num_singular_blocks = 0;
};

/// Generates the blocks of every item (host blocking and extraction, inversion on `exec`); max_block_size
/// in 1..32; `row_matching` says which items get the blocks of P_i A_i (see batch_common_parameters).
template <typename T, typename I>
ItemBlockJacobi<T> generate_item_block_jacobi(std::shared_ptr<const Executor> exec,
                                              const std::vector<matrix_data<T, I>>& items,
                                              size_type max_block_size,
                                              preconditioner::BlockJacobiRowMatching row_matching);

}  // namespace batch
}  // namespace larch
