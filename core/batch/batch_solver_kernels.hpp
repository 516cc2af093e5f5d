// Kernels of the batched Krylov solvers (include/larch/batch/solver/), declared once for every backend:
// the whole solve of every item of a batch in one call.
//
// Contract (core checks it before the call; kernels do not re-check):
// - num_items > 0, every item of `a` square, b and x with the item sizes of `a` and one column, x not b,
//   all in memory the executor can address; x holds the initial guess.
// - `outputs` points to executor memory: per item a tolerance (> 0), and room for a status, an iteration
//   count and a residual norm; history_slots (per item, -1: none) selects rows of max_iterations + 1
//   entries of `history`.
#pragma once

#include <cstdint>

#include "core/base/kernel_dispatch.hpp"
#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/solver/batch_iterative_solver.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace batch {

/// The solve as the kernels see it (plain data, passed by value to device kernels).
struct SolveSettings {
    KrylovMethod method;
    ItemPreconditioner preconditioner;
    bool absolute_tolerance;
    int max_iterations;
    int max_residual_replacements;
    int krylov_dim;  ///< GMRES restart length
    double kappa;    ///< BiCGSTAB's omega safeguard (0: none)
};

/// Executor memory the kernels read the tolerances from and write their per-item results to.
template <typename T>
struct SolveOutputs {
    const T* tolerances;
    std::int32_t* statuses;
    std::int32_t* iterations;
    T* residual_norms;
    T* thresholds;
    const std::int32_t* history_slots;
    T* history;
    /// block_jacobi only (else null), per row of the batch (see core/batch/solver/item_block_jacobi.hpp).
    const std::int32_t* block_first_rows;
    const std::int32_t* block_sizes;
    const std::int64_t* block_inverse_rows;
    const T* block_inverses;
    /// block_jacobi with a row-matched item (else null): per row of the batch, its item's row matching, and
    /// per item whether it is matched (the others read their rows directly).
    const std::int32_t* block_gather_rows;
    const std::uint8_t* block_item_matched;
};

}  // namespace batch

namespace kernels {

LARCH_DECLARE_KERNEL(namespace batch_solver {
    template <typename T, typename Matrix>
    void solve(const DefaultExecutor& exec, const Matrix& a, const batch::SolveSettings& settings,
               const batch::Vector<T>& b, batch::Vector<T>& x,
               const batch::SolveOutputs<T>& outputs);

    /// scales[i] = detail::right_hand_side_scale(max_r |b_i(r)|) for every item (b: one column).
    template <typename T>
    void right_hand_side_scales(const DefaultExecutor& exec, const batch::Vector<T>& b, T* scales);

    /// v_i *= factors[i] for every item (v: one column; factors on the executor).
    template <typename T>
    void multiply_items(const DefaultExecutor& exec, const T* factors, batch::Vector<T>& v);
})

/// The explicit instantiations every backend's batch_solver kernel file ends with:
/// LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SOLVER_KERNELS); inside
/// namespace <backend>::batch_solver.
#define LARCH_INSTANTIATE_BATCH_SOLVER_KERNELS(T, I)                                               \
    template void solve<T, batch::Csr<T, I>>(const DefaultExecutor&, const batch::Csr<T, I>&,     \
                                             const batch::SolveSettings&,                         \
                                             const batch::Vector<T>&, batch::Vector<T>&,          \
                                             const batch::SolveOutputs<T>&);                      \
    template void solve<T, batch::Coo<T, I>>(const DefaultExecutor&, const batch::Coo<T, I>&,     \
                                             const batch::SolveSettings&,                         \
                                             const batch::Vector<T>&, batch::Vector<T>&,          \
                                             const batch::SolveOutputs<T>&);                      \
    template void solve<T, batch::Ell<T, I>>(const DefaultExecutor&, const batch::Ell<T, I>&,     \
                                             const batch::SolveSettings&,                         \
                                             const batch::Vector<T>&, batch::Vector<T>&,          \
                                             const batch::SolveOutputs<T>&)

/// The per-value-type kernels of the batched solve, instantiated the same way with
/// LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE.
#define LARCH_INSTANTIATE_BATCH_SOLVER_SCALING_KERNELS(T)                                                 \
    template void right_hand_side_scales<T>(const DefaultExecutor&, const batch::Vector<T>&, T*);       \
    template void multiply_items<T>(const DefaultExecutor&, const T*, batch::Vector<T>&)

}  // namespace kernels
}  // namespace larch
