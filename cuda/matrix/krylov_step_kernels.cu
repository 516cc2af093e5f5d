// Device kernels of the fused Krylov steps (core/matrix/dense_kernels.hpp, cg_state and bicgstab_state): each
// step's vector updates run inside the column reduction that gives its norms, on scalars that stay on the
// device. The functors are cg_step.cuh's and bicgstab_step.cuh's.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/matrix/dense_kernels.hpp"
#include "core/base/reduction_completion.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/column_entries.cuh"
#include "cuda/components/launch.cuh"
#include "cuda/components/reduction.cuh"
#include "cuda/components/warp.cuh"
#include "cuda/matrix/bicgstab_step.cuh"
#include "cuda/matrix/cg_step.cuh"
#include "cuda/matrix/product_entries.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace dense {
namespace {

using index64 = std::int64_t;

/// finish(col): a step's finalize functor applied to the column's sums over all processes (a distributed
/// solve, one thread per column).
template <typename Sums, typename Finish>
struct FinishFromSums {
    Finish finish;
    const Sums* sums;

    __device__ void operator()(std::int64_t col) const { finish(col, sums[col]); }
};

/// The fused reduction of a Krylov step: `entry` updates the vectors and gives each entry's share of the
/// column's Sums (a sum of squares, or TwoSums), `finish` records each column's step from them. On one
/// process one reduction, one launch whose last block finishes; in a distributed solve this process's sums
/// are completed over the group on the host first.
template <typename Sums, typename T, typename Entry, typename Finish>
void reduce_step(const DefaultExecutor& exec, dim2 size, Entry entry, Finish finish, T* norms, array<T>& workspace,
                 const char* finish_launch_name)
{
    const Sums zero{};
    if (!::larch::current_reduction_group()) {
        reduce_columns(exec, size.rows, size.cols, entry, warp::Sum{}, zero, finish, norms, workspace);
        return;
    }
    constexpr size_type sums_per_column = sizeof(Sums) / sizeof(T);
    array<T> sums{exec.shared_from_this(), sums_per_column * size.cols};
    // TwoSums lie as (first, second) pairs, column after column; complete_sums adds entry by entry.
    const auto column_sums = reinterpret_cast<Sums*>(sums.get_data());
    reduce_columns(exec, size.rows, size.cols, entry, warp::Sum{}, zero, KeepTotal{}, column_sums, workspace);
    ::larch::detail::complete_sums(exec, sums.get_data(), sums_per_column * size.cols);
    launch_for_each(exec, static_cast<index64>(size.cols), FinishFromSums<Sums, Finish>{finish, column_sums},
                    finish_launch_name);
}

/// Stores the leading totals of reduce_short_columns_after_lead where compute_dot (one sum per column) or
/// compute_dot_pair (the first sums of every column, then the second ones) would write them.
template <typename T>
struct StoreLeadTotals {
    T* totals;
    index64 cols;

    __device__ void operator()(index64 col, T total) const { totals[col] = total; }
    __device__ void operator()(index64 col, TwoSums<T> total) const
    {
        totals[col] = total.first;
        totals[cols + col] = total.second;
    }
};

/// Whether a step and the reduction that its scalars come from run as one launch
/// (reduce_short_columns_after_lead): for columns one block reduces, on one process (a distributed solve
/// completes the leading sums over the group between the two).
bool fuses_lead_reduction(dim2 size)
{
    return size.rows <= static_cast<size_type>(max_short_column_rows) && !::larch::current_reduction_group();
}

/// reduce_step's one-process launch after the leading reduction `lead` of each column, whose totals
/// `store_lead` puts where `entry` reads them (fuses_lead_reduction).
template <typename Sums, typename LeadSums, typename T, typename Lead, typename Entry, typename Finish>
void reduce_step_after_lead(dim2 size, Lead lead, StoreLeadTotals<T> store_lead, Entry entry, Finish finish, T* norms,
                            const char* launch_name)
{
    if (size.cols == 0) {
        return;
    }
    reduce_short_columns_after_lead<<<static_cast<unsigned>(std::min<index64>(size.cols, max_grid_y)),
                                      reduction_block_size>>>(static_cast<index64>(size.rows),
                                                              static_cast<index64>(size.cols), lead, LeadSums{},
                                                              store_lead, entry, warp::Sum{}, Sums{}, finish, norms);
    check(LARCH_RT(GetLastError)(), launch_name, __FILE__, __LINE__);
}

}  // namespace

template <typename T>
void cg_step_solution(const DefaultExecutor& exec, const matrix::Dense<T>& p, const matrix::Dense<T>& q,
                      matrix::Dense<T>& x, matrix::Dense<T>& r, size_type slot, array<T>& state,
                      array<T>& workspace, const array<T>* inverse_diagonal)
{
    const auto size = x.get_size();
    const auto make_entry = [&](auto folds_scaling) {
        return CgSolutionEntry<T, decltype(folds_scaling)::value>{
            state.get_const_data(),
            size.cols,
            {x.get_values(), static_cast<index64>(x.get_stride()), r.get_values(), static_cast<index64>(r.get_stride()),
             p.get_const_values(), static_cast<index64>(p.get_stride()), q.get_const_values(),
             static_cast<index64>(q.get_stride()), inverse_diagonal ? inverse_diagonal->get_const_data() : nullptr}};
    };
    const CgFinishStep<T> finish{state.get_data(), size.cols, slot};
    const auto norms = state.get_data() + (cg_state::norms + slot) * size.cols;
    const auto finish_name = "launch of dense::cg_step_solution's finish";
    if (inverse_diagonal) {
        reduce_step<TwoSums<T>>(exec, size, make_entry(std::true_type{}), finish, norms, workspace, finish_name);
    } else {
        reduce_step<T>(exec, size, make_entry(std::false_type{}), finish, norms, workspace, finish_name);
    }
}

template <typename T>
void cg_step_direction(const DefaultExecutor& exec, const matrix::Dense<T>& z, matrix::Dense<T>& p,
                       size_type slot, const array<T>& state, const array<T>* inverse_diagonal)
{
    const auto size = p.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    const CgDirectionEntries<T> entries{state.get_const_data(),
                                        size.cols,
                                        slot,
                                        {p.get_values(), static_cast<index64>(p.get_stride()), z.get_const_values(),
                                         static_cast<index64>(z.get_stride()),
                                         inverse_diagonal ? inverse_diagonal->get_const_data() : nullptr}};
    launch_for_each_column_entry(exec, static_cast<index64>(size.rows), static_cast<index64>(size.cols), entries,
                                 "launch of dense::cg_step_direction");
}

template <typename T>
void bicgstab_step_direction(const DefaultExecutor& exec, const matrix::Dense<T>& r, const matrix::Dense<T>& v,
                             matrix::Dense<T>& p, const array<T>& state, const FusedScaling<T>& p_hat)
{
    const auto size = p.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    const BicgstabDirectionEntries<T> entries{
        state.get_const_data(),
        size.cols,
        {p.get_values(), static_cast<index64>(p.get_stride()), r.get_const_values(),
         static_cast<index64>(r.get_stride()), v.get_const_values(), static_cast<index64>(v.get_stride()),
         device_scaling(p_hat)}};
    launch_for_each_column_entry(exec, static_cast<index64>(size.rows), static_cast<index64>(size.cols), entries,
                                 "launch of dense::bicgstab_step_direction");
}

template <typename T>
void bicgstab_step_half(const DefaultExecutor& exec, const matrix::Dense<T>& shadow, const matrix::Dense<T>& v,
                        matrix::Dense<T>& r, size_type slot, array<T>& state, array<T>& workspace,
                        const FusedScaling<T>& s_hat)
{
    const auto size = r.get_size();
    const BicgstabHalfStepEntry<T> entry{state.get_const_data(),
                                         size.cols,
                                         {r.get_values(), static_cast<index64>(r.get_stride()), v.get_const_values(),
                                          static_cast<index64>(v.get_stride()), device_scaling(s_hat)}};
    const BicgstabFinishHalfStep<T> finish{state.get_data(), size.cols, slot};
    const auto norms = state.get_data() + (bicgstab_state::norms + slot) * size.cols;
    auto shadow_v = state_rows(state, bicgstab_state::shadow_v, 1, size.cols);
    if (fuses_lead_reduction(size)) {
        reduce_step_after_lead<T, T>(size, product_entry(shadow, v),
                                     StoreLeadTotals<T>{shadow_v.get_data(), static_cast<index64>(size.cols)}, entry,
                                     finish, norms, "launch of dense::bicgstab_step_half");
        return;
    }
    compute_dot(exec, shadow, v, shadow_v, workspace);
    ::larch::detail::complete_sums(exec, shadow_v.get_data(), shadow_v.get_size());
    reduce_step<T>(exec, size, entry, finish, norms, workspace, "launch of dense::bicgstab_step_half's finish");
}

template <typename T>
void bicgstab_step_solution(const DefaultExecutor& exec, const matrix::Dense<T>& p_hat, const matrix::Dense<T>& s_hat,
                            const matrix::Dense<T>& t, const matrix::Dense<T>& shadow, matrix::Dense<T>& x,
                            matrix::Dense<T>& r, size_type slot, array<T>& state, array<T>& workspace)
{
    const auto size = x.get_size();
    const BicgstabSolutionEntry<T> entry{
        state.get_const_data(),
        size.cols,
        {x.get_values(), static_cast<index64>(x.get_stride()), r.get_values(), static_cast<index64>(r.get_stride()),
         p_hat.get_const_values(), static_cast<index64>(p_hat.get_stride()), s_hat.get_const_values(),
         static_cast<index64>(s_hat.get_stride()), t.get_const_values(), static_cast<index64>(t.get_stride()),
         shadow.get_const_values(), static_cast<index64>(shadow.get_stride())}};
    const BicgstabFinishSolutionStep<T> finish{state.get_data(), size.cols, slot};
    const auto norms = state.get_data() + (bicgstab_state::norms + slot) * size.cols;
    // t^T t and t^T s, s still in r
    auto t_products = state_rows(state, bicgstab_state::t_t, 2, size.cols);
    if (fuses_lead_reduction(size)) {
        reduce_step_after_lead<TwoSums<T>, TwoSums<T>>(
            size, TwoProductsEntry<T>{product_pair_entry(t, t, r)},
            StoreLeadTotals<T>{t_products.get_data(), static_cast<index64>(size.cols)}, entry, finish, norms,
            "launch of dense::bicgstab_step_solution");
        return;
    }
    compute_dot_pair(exec, t, t, r, t_products, workspace);
    ::larch::detail::complete_sums(exec, t_products.get_data(), t_products.get_size());
    reduce_step<TwoSums<T>>(exec, size, entry, finish, norms, workspace,
                            "launch of dense::bicgstab_step_solution's finish");
}

LARCH_INSTANTIATE_KRYLOV_STEP_KERNELS();

}  // namespace dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
