// CUDA event timer and device description of the benchmark (compiled only when LARCH_BUILD_CUDA).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "benchmark/driver/device_timing.hpp"

namespace larch {
namespace benchmark {
namespace {

void check(cudaError_t status, const char* call)
{
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string{"benchmark: CUDA call "} + call + " failed: " +
                                 cudaGetErrorString(status));
    }
}

#define LARCH_BENCHMARK_CUDA_CHECK(call) check((call), #call)

/// Device events around the work on the default stream, which larch's kernels and cuSPARSE use.
class CudaEventTimer final : public Timer {
public:
    explicit CudaEventTimer(int device_id) : device_id_{device_id}
    {
        LARCH_BENCHMARK_CUDA_CHECK(cudaSetDevice(device_id_));
        LARCH_BENCHMARK_CUDA_CHECK(cudaEventCreate(&start_));
        LARCH_BENCHMARK_CUDA_CHECK(cudaEventCreate(&stop_));
    }

    ~CudaEventTimer() override
    {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }

    CudaEventTimer(const CudaEventTimer&) = delete;
    CudaEventTimer& operator=(const CudaEventTimer&) = delete;

    void start() override
    {
        LARCH_BENCHMARK_CUDA_CHECK(cudaSetDevice(device_id_));
        LARCH_BENCHMARK_CUDA_CHECK(cudaEventRecord(start_));
    }

    double stop() override
    {
        LARCH_BENCHMARK_CUDA_CHECK(cudaSetDevice(device_id_));
        LARCH_BENCHMARK_CUDA_CHECK(cudaEventRecord(stop_));
        LARCH_BENCHMARK_CUDA_CHECK(cudaEventSynchronize(stop_));
        float milliseconds = 0.0f;
        LARCH_BENCHMARK_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_, stop_));
        return 1e-3 * milliseconds;
    }

private:
    int device_id_;
    cudaEvent_t start_{};
    cudaEvent_t stop_{};
};

}  // namespace

std::unique_ptr<Timer> create_cuda_event_timer(const CudaExecutor& exec)
{
    return std::make_unique<CudaEventTimer>(exec.get_device_id());
}

std::string describe_cuda_device(const CudaExecutor& exec)
{
    cudaDeviceProp properties{};
    LARCH_BENCHMARK_CUDA_CHECK(cudaGetDeviceProperties(&properties, exec.get_device_id()));
    return std::string{properties.name} + " (" +
           std::to_string(properties.totalGlobalMem >> 30) + " GiB, " +
           std::to_string(properties.multiProcessorCount) + " SMs, compute capability " +
           std::to_string(properties.major) + "." + std::to_string(properties.minor) + ")";
}

}  // namespace benchmark
}  // namespace larch
