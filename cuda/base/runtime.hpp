// Portability shim over the CUDA and HIP runtimes: every device source of larch is written once against
// these names and compiled by nvcc (CUDA backend) and by hipcc (HIP backend).
#pragma once

#include <string>

#include "larch/base/exception.hpp"
#include "larch/base/executor.hpp"

#if defined(__HIP__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>
#define LARCH_RT(name) hip##name
/// The namespace (larch::kernels::<backend>) the device kernels of this compilation belong to.
#define LARCH_DEVICE_NAMESPACE hip
#define LARCH_DEVICE_NAME "HIP"
#define LARCH_DEVICE_EXECUTOR HipExecutor
#define LARCH_DEVICE_PROPERTIES hipDeviceProp_t
// Page-locked host memory (the two runtimes name these differently; HIP deprecated its cuda-like names).
#define LARCH_PINNED_HOST_ALLOC(ptr, num_bytes) hipHostMalloc(ptr, num_bytes, hipHostMallocDefault)
#define LARCH_PINNED_HOST_FREE(ptr) hipHostFree(ptr)
// HIP has no opt-in beyond the default shared memory per block.
#define LARCH_MAX_SHARED_MEMORY_PER_BLOCK(properties) (properties).sharedMemPerBlock
#else
#include <cuda_runtime.h>
#define LARCH_RT(name) cuda##name
#define LARCH_DEVICE_NAMESPACE cuda
#define LARCH_DEVICE_NAME "CUDA"
#define LARCH_DEVICE_EXECUTOR CudaExecutor
#define LARCH_DEVICE_PROPERTIES cudaDeviceProp
#define LARCH_PINNED_HOST_ALLOC(ptr, num_bytes) cudaMallocHost(ptr, num_bytes)
#define LARCH_PINNED_HOST_FREE(ptr) cudaFreeHost(ptr)
#define LARCH_MAX_SHARED_MEMORY_PER_BLOCK(properties) (properties).sharedMemPerBlockOptin
#endif

namespace larch {

/// The executor type of the backend this file is compiled for.
using DeviceExecutor = LARCH_DEVICE_EXECUTOR;

// Everything compiled from device sources lives in larch::kernels::cuda or larch::kernels::hip, so the two
// builds of one source can be linked into one library without clashing.
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

using error_t = LARCH_RT(Error_t);

/// Throws DeviceError naming the failed call, where it was made and the runtime's error string.
inline void check(error_t status, const char* call, const char* file, int line)
{
    if (status != LARCH_RT(Success)) {
        throw DeviceError(file, line,
                          std::string{LARCH_DEVICE_NAME " call "} + call + " failed: " +
                              LARCH_RT(GetErrorName)(status) + ": " +
                              LARCH_RT(GetErrorString)(status));
    }
}

/// Makes `device_id` current for the lifetime of the guard and restores the previous device after.
class DeviceGuard {
public:
    explicit DeviceGuard(int device_id);
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = -1;
};

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch

/// Checks a CUDA/HIP runtime call; throws DeviceError on failure.
#define LARCH_DEVICE_CHECK(call) ::larch::kernels::LARCH_DEVICE_NAMESPACE::check((call), #call, __FILE__, __LINE__)

/// Checks that the last kernel launch succeeded (launch configuration, missing device code, ...).
#define LARCH_LAUNCH_CHECK(kernel_name) \
    ::larch::kernels::LARCH_DEVICE_NAMESPACE::check(LARCH_RT(GetLastError)(), "launch of " kernel_name, __FILE__, __LINE__)
