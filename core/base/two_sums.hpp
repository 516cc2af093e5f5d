// TwoSums<T>: two sums formed side by side in one pass, so that one reduction (one launch, one read of the
// vectors) gives both: a conjugate-gradient step's r^T r and r^T D^{-1} r where the scalar Jacobi scaling
// D^{-1} is folded into the step. Every backend's reductions take it like a number: T{}-style zero
// initialization, + and +=, each component combined in the same order as a plain sum would be.
#pragma once

#include "core/base/host_device.hpp"

namespace larch {
namespace kernels {

template <typename T>
struct TwoSums {
    T first;
    T second;
};

template <typename T>
LARCH_HOST_DEVICE TwoSums<T> operator+(TwoSums<T> a, TwoSums<T> b)
{
    return {a.first + b.first, a.second + b.second};
}

template <typename T>
LARCH_HOST_DEVICE TwoSums<T>& operator+=(TwoSums<T>& a, TwoSums<T> b)
{
    a.first += b.first;
    a.second += b.second;
    return a;
}

}  // namespace kernels
}  // namespace larch
