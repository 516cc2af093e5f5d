// CUDA Gram-Schmidt kernels: the projections as one column reduction per basis vector (all of them in one
// pair of launches of the deterministic reduce_columns), the update with one thread per entry of w.
#include "core/solver/gram_schmidt_kernels.hpp"

#include <cstdint>

#include "cuda/components/launch.cuh"
#include "cuda/components/reduction.cuh"
#include "cuda/components/warp.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace gram_schmidt {
namespace {

using index64 = std::int64_t;

/// Entry (k, i) of the reduction: basis(i, k) * w(k); column i sums to the coefficient of basis vector i.
template <typename T>
struct BasisProduct {
    const T* basis;
    index64 basis_stride;
    const T* w;
    index64 w_stride;
    __device__ T operator()(index64 k, index64 i) const { return basis[i * basis_stride + k] * w[k * w_stride]; }
};

/// One thread per entry k of w: consecutive threads read consecutive entries of each basis row.
template <typename T>
struct SubtractCombination {
    const T* basis;
    index64 basis_stride;
    index64 count;
    const T* coefficients;
    T* w;
    index64 w_stride;
    __device__ void operator()(index64 k) const
    {
        T combination{0};
        for (index64 i = 0; i < count; ++i) {
            combination += coefficients[i] * basis[i * basis_stride + k];
        }
        w[k * w_stride] -= combination;
    }
};

}  // namespace

template <typename T>
void project(const DefaultExecutor& exec, const matrix::Dense<T>& basis, const matrix::Dense<T>& w,
             matrix::Dense<T>& coefficients)
{
    const auto size = basis.get_size();
    if (size.rows == 0) {
        return;
    }
    reduce_columns(exec, static_cast<index64>(size.cols), static_cast<index64>(size.rows),
                   BasisProduct<T>{basis.get_const_values(), static_cast<index64>(basis.get_stride()),
                                   w.get_const_values(), static_cast<index64>(w.get_stride())},
                   warp::Sum{}, T{0}, KeepTotal{}, coefficients.get_values(), EntryLayout::column_major);
}

template <typename T>
void subtract(const DefaultExecutor& exec, const matrix::Dense<T>& basis, const matrix::Dense<T>& coefficients,
              matrix::Dense<T>& w)
{
    const auto size = basis.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    launch_for_each(exec, static_cast<index64>(size.cols),
                    SubtractCombination<T>{basis.get_const_values(), static_cast<index64>(basis.get_stride()),
                                           static_cast<index64>(size.rows), coefficients.get_const_values(),
                                           w.get_values(), static_cast<index64>(w.get_stride())},
                    "launch of gram_schmidt::subtract");
}

LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();

}  // namespace gram_schmidt
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
