// The OpenMP executor: host memory, 64-byte aligned so vectorized kernels start on a cache line.
#include <omp.h>

#include <cstring>
#include <new>

#include "larch/base/executor.hpp"

namespace larch {

namespace {
constexpr std::align_val_t cache_line{64};
}

std::shared_ptr<OmpExecutor> OmpExecutor::create()
{
    return std::shared_ptr<OmpExecutor>(new OmpExecutor);
}

int OmpExecutor::get_num_threads() const { return omp_get_max_threads(); }

void* OmpExecutor::raw_alloc(size_type num_bytes) const
{
    void* ptr = ::operator new(num_bytes, cache_line, std::nothrow);
    LARCH_ENSURE(ptr, AllocationError,
                 "omp: could not allocate " + std::to_string(num_bytes) + " bytes");
    return ptr;
}

void OmpExecutor::free_bytes(void* ptr) const noexcept { ::operator delete(ptr, cache_line); }

void OmpExecutor::raw_copy_from_host(const void* host_src, size_type num_bytes, void* dest) const
{
    std::memcpy(dest, host_src, num_bytes);
}

void OmpExecutor::raw_copy_to_host(const void* src, size_type num_bytes, void* host_dest) const
{
    std::memcpy(host_dest, src, num_bytes);
}

void OmpExecutor::raw_copy_same_backend(const Executor&, const void* src, size_type num_bytes,
                                        void* dest) const
{
    std::memcpy(dest, src, num_bytes);
}

}  // namespace larch
