// Scalar Jacobi's rule for a row's diagonal entry, written once for every backend of
// preconditioner::BlockJacobi.
#pragma once

#include "core/base/host_device.hpp"

namespace larch {
namespace kernels {

/// Whether scalar Jacobi leaves a row with diagonal entry d unscaled (D^{-1}(i, i) = 1, reported as a zero
/// diagonal): when 1 / d is not a finite number, i.e. d is zero (or missing), NaN, or subnormal with a
/// reciprocal that overflows. Dividing by such a d would put Inf or NaN into every application.
template <typename T>
LARCH_HOST_DEVICE bool jacobi_leaves_unscaled(T diagonal_entry)
{
    const T inverse = T{1} / diagonal_entry;
    return !(inverse - inverse == T{});  // x - x is 0 exactly for a finite x, NaN for Inf and NaN
}

}  // namespace kernels
}  // namespace larch
