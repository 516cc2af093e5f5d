// Host timers, the choice of timer per executor type (typed dispatch, no name comparisons), and the copy
// bandwidth measurement.
#include "benchmark/driver/timer.hpp"

#include <chrono>
#include <cstring>
#include <vector>

#include "benchmark/driver/device_timing.hpp"
#include "benchmark/driver/host_memory.hpp"
#include "benchmark/driver/statistics.hpp"
#include "larch/base/array.hpp"
#include "larch/config.hpp"

namespace larch {
namespace benchmark {
namespace {

/// steady_clock around a synchronize of the executor (exact for host executors, which run synchronously).
class HostTimer final : public Timer {
public:
    explicit HostTimer(std::shared_ptr<const Executor> exec) : exec_{std::move(exec)} {}

    void start() override
    {
        exec_->synchronize();
        start_ = std::chrono::steady_clock::now();
    }

    double stop() override
    {
        exec_->synchronize();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    std::shared_ptr<const Executor> exec_;
    std::chrono::steady_clock::time_point start_;
};

/// An Operation whose overloads pick the timer and description for each executor type.
class DescribeExecutor final : public Operation {
public:
    explicit DescribeExecutor(std::shared_ptr<const Executor> exec) : exec_{std::move(exec)} {}

    const char* get_name() const override { return "benchmark::describe_executor"; }
    void run(const ReferenceExecutor&) const override
    {
        timer = std::make_unique<HostTimer>(exec_);
        description = "reference (sequential)";
    }
    void run(const OmpExecutor& exec) const override
    {
        timer = std::make_unique<HostTimer>(exec_);
        description = "omp, " + std::to_string(exec.get_num_threads()) + " threads";
    }
    void run(const CudaExecutor& exec) const override
    {
#if LARCH_HAVE_CUDA
        timer = create_cuda_event_timer(exec);
        description = describe_cuda_device(exec);
#else
        (void)exec;
#endif
    }
    void run(const HipExecutor& exec) const override
    {
        // HIP is compile-checked only (no AMD GPU to run on), so host timing is enough for now.
        timer = std::make_unique<HostTimer>(exec_);
        description = exec.get_name();
    }

    mutable std::unique_ptr<Timer> timer;
    mutable std::string description;

private:
    std::shared_ptr<const Executor> exec_;
};

/// Copies `count` doubles within one executor's memory, in parallel on omp.
class CopyWithin final : public Operation {
public:
    CopyWithin(const double* source, double* destination, size_type count)
        : source_{source}, destination_{destination}, count_{count}
    {}

    const char* get_name() const override { return "benchmark::copy_within"; }
    void run(const ReferenceExecutor&) const override
    {
        std::memcpy(destination_, source_, count_ * sizeof(double));
    }
    void run(const OmpExecutor&) const override
    {
        // One memcpy runs on one core; a parallel loop measures what the omp kernels can reach.
        const auto count = static_cast<long long>(count_);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < count; ++i) {
            destination_[i] = source_[i];
        }
    }
    void run(const CudaExecutor& exec) const override { copy_on_device(exec); }
    void run(const HipExecutor& exec) const override { copy_on_device(exec); }

private:
    void copy_on_device(const Executor& exec) const
    {
        exec.copy_from(exec, count_ * sizeof(double), source_, destination_);
    }

    const double* source_;
    double* destination_;
    size_type count_;
};

}  // namespace

std::unique_ptr<Timer> create_timer(std::shared_ptr<const Executor> exec)
{
    DescribeExecutor describe{exec};
    exec->run(describe);
    return std::move(describe.timer);
}

std::string describe_executor(const std::shared_ptr<const Executor>& exec)
{
    DescribeExecutor describe{exec};
    exec->run(describe);
    return describe.description;
}

double measure_copy_bandwidth(std::shared_ptr<const Executor> exec, size_type num_bytes,
                              int repetitions, Timer& timer)
{
    const size_type count = std::max<size_type>(num_bytes / sizeof(double), 1);
    // the source's host values, and on a host executor the source and destination themselves
    ensure_fits_host_memory(static_cast<double>(count * sizeof(double)) * (exec->is_host() ? 3.0 : 1.0));
    // Real values in the source: untouched pages would be read from the zero page, too fast.
    const std::vector<double> host_values(count, 1.0);
    const array<double> source{exec, host_values.begin(), host_values.end()};
    array<double> destination{exec, count};
    const CopyWithin copy{source.get_const_data(), destination.get_data(), count};
    exec->run(copy);
    std::vector<double> seconds;
    for (int i = 0; i < repetitions; ++i) {
        timer.start();
        exec->run(copy);
        seconds.push_back(timer.stop());
    }
    return 2.0 * static_cast<double>(count * sizeof(double)) / summarize(seconds).median / 1e9;
}

}  // namespace benchmark
}  // namespace larch
