// atomic_add for every value and index type larch instantiates, on CUDA and HIP alike (neither runtime
// has an atomicAdd for the signed 64-bit `long` that std::int64_t is on Linux).
#pragma once

#include <cstdint>

#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/// *address += value, atomically; returns the old value. float/double need sm_60+ (always true here).
template <typename T>
__device__ __forceinline__ T atomic_add(T* address, T value)
{
    return atomicAdd(address, value);
}

/// Signed 64-bit through the unsigned overload: two's complement addition is the same operation.
__device__ __forceinline__ std::int64_t atomic_add(std::int64_t* address, std::int64_t value)
{
    return static_cast<std::int64_t>(atomicAdd(reinterpret_cast<unsigned long long*>(address),
                                               static_cast<unsigned long long>(value)));
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
