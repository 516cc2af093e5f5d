// The OpenMP executor: host memory, 64-byte aligned so vectorized kernels start on a cache line (large arrays on
// transparent huge pages where the system has them).
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "larch/base/executor.hpp"

namespace larch {

namespace {

constexpr size_type cache_line = 64;
/// Arrays from this size on start on a 2 MiB boundary and ask for transparent huge pages: a solver's vectors
/// are allocated on every apply, and with 4 KiB pages their first touch faulted once per page (8 columns at
/// 10M unknowns: 640 MB per vector, most of a short solve's time in the kernel).
constexpr size_type huge_page = size_type{2} << 20;

size_type round_up(size_type num_bytes, size_type multiple)
{
    return (num_bytes + multiple - 1) / multiple * multiple;
}

}  // namespace

std::shared_ptr<OmpExecutor> OmpExecutor::create()
{
    return std::shared_ptr<OmpExecutor>(new OmpExecutor);
}

int OmpExecutor::get_num_threads() const { return omp_get_max_threads(); }

void* OmpExecutor::raw_alloc(size_type num_bytes) const
{
    const auto alignment = num_bytes >= huge_page ? huge_page : cache_line;
    // aligned_alloc takes a multiple of the alignment (and a size that does not wrap around when rounded up)
    void* ptr = num_bytes <= std::numeric_limits<size_type>::max() - alignment
                    ? std::aligned_alloc(alignment, round_up(std::max<size_type>(num_bytes, 1), alignment))
                    : nullptr;
    LARCH_ENSURE(ptr, AllocationError,
                 "omp: could not allocate " + std::to_string(num_bytes) + " bytes");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (alignment == huge_page) {
        // advice only: without transparent huge pages the array simply keeps 4 KiB pages
        madvise(ptr, round_up(num_bytes, huge_page), MADV_HUGEPAGE);
    }
#endif
    return ptr;
}

void OmpExecutor::free_bytes(void* ptr) const noexcept { std::free(ptr); }

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
