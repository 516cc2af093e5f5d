// DiagonalScaling<V>: a preconditioner that may be the scaling M^{-1} = D^{-1} by a diagonal.
#pragma once

#include "larch/base/array.hpp"

namespace larch {
namespace preconditioner {

/**
 * Offered by preconditioners that can be a diagonal scaling (scalar Jacobi): a solver then folds
 * z = D^{-1} r into the vector update that forms r, which saves reading r again and, on a GPU, a launch.
 * Applying the preconditioner and scaling by the diagonal give the same bits.
 */
template <typename V>
class DiagonalScaling {
public:
    virtual ~DiagonalScaling() = default;

    /// D^{-1}, one entry per row on this operator's executor, when this operator is a diagonal scaling;
    /// nullptr otherwise.
    virtual const array<V>* get_scaling_diagonal() const noexcept = 0;
};

}  // namespace preconditioner
}  // namespace larch
