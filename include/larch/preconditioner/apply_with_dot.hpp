// ApplyWithDot<V>: a preconditioner that forms z = M^{-1} r and the column dot products r^T z in one pass.
#pragma once

#include "larch/base/array.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace preconditioner {

/**
 * Offered by preconditioners that can form z = M^{-1} r together with dots[j] = r_j^T z_j while reading r and
 * writing z once: conjugate gradients needs both every iteration, and on a GPU the fused pass also saves a
 * launch. The dots are this process's own sums (a distributed solver completes them over its processes), with
 * the bits that apply followed by matrix::Dense::compute_dot would give.
 */
template <typename V>
class ApplyWithDot {
public:
    virtual ~ApplyWithDot() = default;

    /// Whether apply_with_dot() is available for this operator (e.g. scalar Jacobi but not larger blocks).
    virtual bool has_apply_with_dot() const noexcept = 0;

    /**
     * z = M^{-1} r and dots[j] = r_j^T z_j. Throws DimensionMismatch when r or z is not of this operator's
     * rows or they differ in columns, or dots does not have one entry per column; NotSupported when this
     * operator has no fused pass (has_apply_with_dot() is false) or an array lives on another executor.
     * `workspace` as for matrix::Dense::compute_dot.
     */
    virtual void apply_with_dot(const matrix::Dense<V>& r, matrix::Dense<V>& z, array<V>& dots,
                                array<V>& workspace) const = 0;
};

}  // namespace preconditioner
}  // namespace larch
