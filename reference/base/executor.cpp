// The reference executor: host memory through operator new, copies through memcpy.
#include <cstring>
#include <new>

#include "larch/base/executor.hpp"

namespace larch {

std::shared_ptr<ReferenceExecutor> ReferenceExecutor::create()
{
    return std::shared_ptr<ReferenceExecutor>(new ReferenceExecutor);
}

void* ReferenceExecutor::raw_alloc(size_type num_bytes) const
{
    void* ptr = ::operator new(num_bytes, std::nothrow);
    LARCH_ENSURE(ptr, AllocationError,
                 "reference: could not allocate " + std::to_string(num_bytes) + " bytes");
    return ptr;
}

void ReferenceExecutor::free_bytes(void* ptr) const noexcept { ::operator delete(ptr); }

void ReferenceExecutor::raw_copy_from_host(const void* host_src, size_type num_bytes,
                                           void* dest) const
{
    std::memcpy(dest, host_src, num_bytes);
}

void ReferenceExecutor::raw_copy_to_host(const void* src, size_type num_bytes,
                                         void* host_dest) const
{
    std::memcpy(host_dest, src, num_bytes);
}

void ReferenceExecutor::raw_copy_same_backend(const Executor&, const void* src,
                                              size_type num_bytes, void* dest) const
{
    std::memcpy(dest, src, num_bytes);
}

}  // namespace larch
