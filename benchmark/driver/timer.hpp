// Timing on an executor: device events on CUDA, steady_clock around a synchronize elsewhere; and the
// measured copy bandwidth that every rate is compared with.
#pragma once

#include <memory>
#include <string>

#include "larch/base/executor.hpp"

namespace larch {
namespace benchmark {

/// Measures the time between start() and stop() of work queued on one executor.
class Timer {
public:
    virtual ~Timer() = default;
    virtual void start() = 0;
    /// Waits for the work queued since start() and returns its duration in seconds.
    virtual double stop() = 0;
};

/// The best timer for `exec`: CUDA events on a CudaExecutor, steady_clock otherwise.
std::unique_ptr<Timer> create_timer(std::shared_ptr<const Executor> exec);

/// A one-line description of the executor for the results ("NVIDIA H100 80GB HBM3", "omp, 16 threads").
std::string describe_executor(const std::shared_ptr<const Executor>& exec);

/**
 * The executor's copy bandwidth in GB/s (1e9 bytes/s): a copy of `num_bytes` within the executor's memory
 * (a device-to-device cudaMemcpy on CUDA, a parallel loop on omp, memcpy on reference), counting the
 * bytes read plus the bytes written, median of `repetitions` timed copies after one warm-up copy.
 */
double measure_copy_bandwidth(std::shared_ptr<const Executor> exec, size_type num_bytes,
                              int repetitions, Timer& timer);

}  // namespace benchmark
}  // namespace larch
