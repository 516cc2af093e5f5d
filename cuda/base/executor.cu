// The GPU executor (CudaExecutor under nvcc, HipExecutor under hipcc): device memory, copies, devices.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

DeviceGuard::DeviceGuard(int device_id)
{
    LARCH_DEVICE_CHECK(LARCH_RT(GetDevice)(&previous_));
    if (previous_ != device_id) {
        LARCH_DEVICE_CHECK(LARCH_RT(SetDevice)(device_id));
    }
}

DeviceGuard::~DeviceGuard()
{
    int current = -1;
    // A destructor must not throw; a failed restore leaves the other device current, which is harmless
    // because every larch entry point sets its own device.
    if (LARCH_RT(GetDevice)(&current) == LARCH_RT(Success) && current != previous_) {
        (void)LARCH_RT(SetDevice)(previous_);
    }
}

}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels

int DeviceExecutor::get_num_devices()
{
    int count = 0;
    // No driver or no device both mean "none": make_executor reports that as DeviceNotFound.
    if (LARCH_RT(GetDeviceCount)(&count) != LARCH_RT(Success)) {
        (void)LARCH_RT(GetLastError)();
        return 0;
    }
    return count;
}

std::shared_ptr<DeviceExecutor> DeviceExecutor::create(int device_id)
{
    const int count = get_num_devices();
    if (device_id < 0 || device_id >= count) {
        LARCH_THROW(DeviceNotFound,
                    std::string{LARCH_DEVICE_NAME " device "} + std::to_string(device_id) +
                        " does not exist: this machine has " + std::to_string(count) +
                        " visible device(s); pick another executor (omp) or device number");
    }
    return std::shared_ptr<DeviceExecutor>(new DeviceExecutor(device_id, OmpExecutor::create()));
}

DeviceExecutor::LARCH_DEVICE_EXECUTOR(int device_id, std::shared_ptr<const Executor> host)
    : GpuExecutor(device_id, std::move(host))
{
    LARCH_DEVICE_PROPERTIES properties;
    LARCH_DEVICE_CHECK(LARCH_RT(GetDeviceProperties)(&properties, device_id));
    num_multiprocessors_ = properties.multiProcessorCount;
    warp_size_ = properties.warpSize;
    shared_memory_per_block_ = properties.sharedMemPerBlock;
    max_shared_memory_per_block_ = LARCH_MAX_SHARED_MEMORY_PER_BLOCK(properties);
    // Device memory comes from the device's stream-ordered pool, which keeps freed memory for the next
    // allocation instead of returning it to the driver: a solver's or preconditioner's temporaries then
    // cost no cudaMalloc/cudaFree (hundreds of microseconds for large buffers) after the first use.
    const char* pool_setting = std::getenv("LARCH_GPU_MEMORY_POOL");
    uses_memory_pool_ = !(pool_setting && (std::string{pool_setting} == "off" || std::string{pool_setting} == "0"));
    if (!uses_memory_pool_) {
        return;
    }
    LARCH_RT(MemPool_t) pool;
    LARCH_DEVICE_CHECK(LARCH_RT(DeviceGetDefaultMemPool)(&pool, device_id));
    std::uint64_t keep_everything = UINT64_MAX;
    LARCH_DEVICE_CHECK(LARCH_RT(MemPoolSetAttribute)(pool, LARCH_RT(MemPoolAttrReleaseThreshold), &keep_everything));
}

void DeviceExecutor::run(const Operation& op) const
{
    kernels::LARCH_DEVICE_NAMESPACE::DeviceGuard guard{device_id_};
    op.run(*this);
}

void* DeviceExecutor::raw_alloc(size_type num_bytes) const
{
    kernels::LARCH_DEVICE_NAMESPACE::DeviceGuard guard{device_id_};
    void* ptr = nullptr;
    // stream-ordered on the default stream, where every larch kernel and copy runs
    const auto status = uses_memory_pool_ ? LARCH_RT(MallocAsync)(&ptr, num_bytes, 0) : LARCH_RT(Malloc)(&ptr, num_bytes);
    if (status != LARCH_RT(Success)) {
        (void)LARCH_RT(GetLastError)();
        LARCH_THROW(AllocationError, get_name() + ": could not allocate " +
                                         std::to_string(num_bytes) + " bytes: " +
                                         LARCH_RT(GetErrorString)(status));
    }
    return ptr;
}

void DeviceExecutor::free_bytes(void* ptr) const noexcept
{
    if (ptr) {
        // Freeing cannot report errors from a destructor; a failure here means the context is gone.
        int previous = -1;
        (void)LARCH_RT(GetDevice)(&previous);
        (void)LARCH_RT(SetDevice)(device_id_);
        (void)(uses_memory_pool_ ? LARCH_RT(FreeAsync)(ptr, 0) : LARCH_RT(Free)(ptr));
        (void)LARCH_RT(SetDevice)(previous);
    }
}

void* DeviceExecutor::alloc_pinned_host(size_type num_bytes) const
{
    if (num_bytes == 0) {
        return nullptr;
    }
    kernels::LARCH_DEVICE_NAMESPACE::DeviceGuard guard{device_id_};
    void* ptr = nullptr;
    const auto status = LARCH_PINNED_HOST_ALLOC(&ptr, num_bytes);
    if (status != LARCH_RT(Success)) {
        (void)LARCH_RT(GetLastError)();
        LARCH_THROW(AllocationError, get_name() + ": could not allocate " + std::to_string(num_bytes) +
                                         " bytes of page-locked host memory: " + LARCH_RT(GetErrorString)(status));
    }
    return ptr;
}

void DeviceExecutor::free_pinned_host(void* ptr) const noexcept
{
    if (ptr) {
        // As in free_bytes(): no error can be reported from here.
        (void)LARCH_PINNED_HOST_FREE(ptr);
    }
}

void DeviceExecutor::synchronize() const
{
    kernels::LARCH_DEVICE_NAMESPACE::DeviceGuard guard{device_id_};
    LARCH_DEVICE_CHECK(LARCH_RT(DeviceSynchronize)());
}

void DeviceExecutor::raw_copy_from_host(const void* host_src, size_type num_bytes,
                                        void* dest) const
{
    kernels::LARCH_DEVICE_NAMESPACE::DeviceGuard guard{device_id_};
    LARCH_DEVICE_CHECK(LARCH_RT(Memcpy)(dest, host_src, num_bytes, LARCH_RT(MemcpyHostToDevice)));
}

void DeviceExecutor::raw_copy_to_host(const void* src, size_type num_bytes, void* host_dest) const
{
    kernels::LARCH_DEVICE_NAMESPACE::DeviceGuard guard{device_id_};
    LARCH_DEVICE_CHECK(LARCH_RT(Memcpy)(host_dest, src, num_bytes, LARCH_RT(MemcpyDeviceToHost)));
}

void DeviceExecutor::raw_copy_same_backend(const Executor& src_exec, const void* src,
                                           size_type num_bytes, void* dest) const
{
    const int src_device = static_cast<const GpuExecutor&>(src_exec).get_device_id();
    kernels::LARCH_DEVICE_NAMESPACE::DeviceGuard guard{device_id_};
    if (src_device == device_id_) {
        LARCH_DEVICE_CHECK(LARCH_RT(Memcpy)(dest, src, num_bytes, LARCH_RT(MemcpyDeviceToDevice)));
    } else {
        LARCH_DEVICE_CHECK(LARCH_RT(MemcpyPeer)(dest, device_id_, src, src_device, num_bytes));
    }
}

}  // namespace larch
