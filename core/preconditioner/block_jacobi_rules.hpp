// The per-block rules of block-Jacobi, written once for the host and the device: the greedy agglomeration
// of supervariable pieces into blocks, the choice of a block's kind and storage precision, and the bytes a
// stored block takes. Every backend's kernels call these, so all backends decide alike.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/base/host_device.hpp"
#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "larch/base/half.hpp"

namespace larch {
namespace kernels {
namespace block_jacobi_rules {

/**
 * Greedy agglomeration, one piece at a time: `open_rows` rows are in the block being filled (0 before the
 * first piece). A piece of `piece_rows` rows that does not fit under `bound` closes the open block and starts
 * the next one. Returns true if a block starts at the piece; open_rows becomes the rows of the open block.
 */
LARCH_HOST_DEVICE bool take_piece(int& open_rows, int piece_rows, int bound)
{
    const bool closes = open_rows > 0 && open_rows + piece_rows > bound;
    open_rows = closes ? piece_rows : open_rows + piece_rows;
    return closes;
}

/**
 * Rows of the piece that starts at a row `offset` rows into its supervariable, `remaining` rows before the
 * supervariable ends: a supervariable longer than the bound is cut into pieces of `bound` rows from its
 * start. 0 if no piece starts there.
 */
LARCH_HOST_DEVICE int piece_rows_at(std::int64_t offset, std::int64_t remaining, int bound)
{
    if (offset % bound != 0) {
        return 0;
    }
    return static_cast<int>(remaining < bound ? remaining : bound);
}

/// Unit roundoff of the storage precisions (indexed by the block_jacobi_storage precision codes).
LARCH_HOST_DEVICE double unit_roundoff(std::uint8_t precision)
{
    return precision == block_jacobi_storage::double_precision   ? 0x1p-53
           : precision == block_jacobi_storage::single_precision ? 0x1p-24
                                                                 : 0x1p-11;
}

/// Bytes of one stored value in a precision.
LARCH_HOST_DEVICE std::int64_t value_bytes(std::uint8_t precision)
{
    return precision == block_jacobi_storage::double_precision   ? 8
           : precision == block_jacobi_storage::single_precision ? 4
                                                                 : 2;
}

/// Bytes a stored block of n rows takes, rounded up to 8 so that the next block starts 8-byte aligned.
LARCH_HOST_DEVICE std::int64_t stored_block_bytes(std::int64_t n, std::uint8_t kind, std::uint8_t precision)
{
    const auto values = kind == block_jacobi_storage::diagonal ? n : n * n;
    return (values * value_bytes(precision) + 7) / 8 * 8;
}

/// The precision code of the working precision V (double or float).
template <typename V>
LARCH_HOST_DEVICE constexpr std::uint8_t working_precision()
{
    return sizeof(V) == 8 ? block_jacobi_storage::double_precision : block_jacobi_storage::single_precision;
}

/// A block's kind and storage precision (block_jacobi_storage codes).
struct BlockChoice {
    std::uint8_t kind;
    std::uint8_t precision;
};

/**
 * The kind and precision of a block of n rows in working precision V (see classify_blocks): singular
 * blocks (`failed`: a nonzero info; a condition number above 1 / (n eps) or not finite; a non-finite norm of
 * the stored values) become `diagonal` in the working precision.
 */
/// The condition number above which a block of n rows in working precision V counts as numerically singular.
template <typename V>
LARCH_HOST_DEVICE double singular_condition_bound(std::int64_t n)
{
    return 1.0 / (static_cast<double>(n) * std::numeric_limits<V>::epsilon());
}

template <typename V>
LARCH_HOST_DEVICE BlockChoice choose_storage(std::int64_t n, double cond, bool failed, double stored_norm,
                                             std::uint8_t block_kind, bool adaptive, double accuracy)
{
    constexpr std::uint8_t working = working_precision<V>();
    if (failed || !(cond <= singular_condition_bound<V>(n)) || !std::isfinite(stored_norm)) {
        return {block_jacobi_storage::diagonal, working};
    }
    BlockChoice choice{block_kind, working};
    if (!adaptive) {
        return choice;
    }
    // Half's range (6e-5 to 65504) is too narrow for Gauss-Huard factors: a small pivot would round to zero
    // and the solve divide by it, so factors are stored in single at the least.
    const bool half_fits = block_kind == block_jacobi_storage::inverse && stored_norm <= half_max / 2 &&
                           stored_norm >= 0x1p-14 / unit_roundoff(block_jacobi_storage::half_precision);
    const bool single_fits = stored_norm <= std::numeric_limits<float>::max() / 2 &&
                             stored_norm >= std::numeric_limits<float>::min() /
                                                unit_roundoff(block_jacobi_storage::single_precision);
    if (half_fits && unit_roundoff(block_jacobi_storage::half_precision) * cond < accuracy) {
        choice.precision = block_jacobi_storage::half_precision;
    } else if (working == block_jacobi_storage::double_precision && single_fits &&
               unit_roundoff(block_jacobi_storage::single_precision) * cond < accuracy) {
        choice.precision = block_jacobi_storage::single_precision;
    }
    return choice;
}

}  // namespace block_jacobi_rules
}  // namespace kernels
}  // namespace larch
