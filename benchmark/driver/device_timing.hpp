// CUDA-only pieces of the benchmark's timing (defined in benchmark/cuda/, built when LARCH_BUILD_CUDA).
#pragma once

#include <memory>
#include <string>

#include "benchmark/driver/timer.hpp"

namespace larch {
namespace benchmark {

/// A timer recording cudaEvents on the executor's device (default stream).
std::unique_ptr<Timer> create_cuda_event_timer(const CudaExecutor& exec);

/// The device's name and memory, e.g. "NVIDIA H100 80GB HBM3 (79 GiB, 132 SMs)".
std::string describe_cuda_device(const CudaExecutor& exec);

}  // namespace benchmark
}  // namespace larch
