// residual_norm(A, b, x): ||b - A x||, the check every solve ends with, in one call.
#pragma once

#include <string>
#include <vector>

#include "larch/base/lin_op.hpp"
#include "larch/base/process_group.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {

/**
 * Per column j: the Euclidean norm of b_j - A x_j, computed with A's own apply on A's executor (one
 * temporary copy of b). Operands may be references, raw, shared or unique pointers. Throws what
 * LinOp::apply throws (DimensionMismatch, NotSupported for operands A's executor cannot address).
 * For A spread over processes (distributed::Matrix) the norms are those of the whole residual, on every
 * process (collective).
 */
template <typename T>
std::vector<double> residual_norms(ptr_param<const LinOp> a, ptr_param<const matrix::Dense<T>> b,
                                   ptr_param<const matrix::Dense<T>> x)
{
    auto residual = b->clone_dense(a->get_executor());
    a->apply(-1.0, *x, 1.0, *residual);
    const auto split = dynamic_cast<const SplitOperator*>(a.get());
    const auto group = split ? split->get_process_group() : nullptr;
    ReductionScope reductions{group.get()};
    const auto norms = residual->compute_norm2();
    return std::vector<double>(norms.begin(), norms.end());
}

/// ||b - A x|| for one right-hand side (b and x with one column; DimensionMismatch otherwise).
template <typename T>
double residual_norm(ptr_param<const LinOp> a, ptr_param<const matrix::Dense<T>> b,
                     ptr_param<const matrix::Dense<T>> x)
{
    LARCH_ENSURE(b->get_size().cols == 1, DimensionMismatch,
                 "residual_norm: b has " + std::to_string(b->get_size().cols) +
                     " columns; use residual_norms for several right-hand sides");
    return residual_norms<T>(a, b, x)[0];
}

}  // namespace larch
