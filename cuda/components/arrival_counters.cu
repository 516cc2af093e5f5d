// The arrival counters of the device-wide column reductions (cuda/components/reduction.cuh).
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "cuda/base/runtime.hpp"
#include "cuda/components/reduction.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

unsigned int* get_arrival_counters(const GpuExecutor& exec, std::int64_t count)
{
    struct Counters {
        unsigned int* data = nullptr;
        std::int64_t size = 0;
    };
    static std::mutex mutex;
    static std::vector<Counters> devices;
    std::lock_guard<std::mutex> lock{mutex};
    const auto device = static_cast<std::size_t>(exec.get_device_id());
    if (devices.size() <= device) {
        devices.resize(device + 1);
    }
    auto& counters = devices[device];
    if (counters.size < count) {
        DeviceGuard guard{exec.get_device_id()};
        // Never freed: not at exit (that could run after the runtime shut down), nor when a larger array
        // replaces this one (a reduction prepared on another thread may still launch with it).
        const auto size = std::max<std::int64_t>(count, 1024);
        const auto bytes = static_cast<std::size_t>(size) * sizeof(unsigned int);
        LARCH_DEVICE_CHECK(LARCH_RT(Malloc)(reinterpret_cast<void**>(&counters.data), bytes));
        LARCH_DEVICE_CHECK(LARCH_RT(Memset)(counters.data, 0, bytes));
        counters.size = size;
    }
    return counters.data;
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
