#include "benchmark/driver/host_memory.hpp"

#include <new>

#include <unistd.h>

namespace larch {
namespace benchmark {

void ensure_fits_host_memory(double bytes)
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0 && bytes > static_cast<double>(pages) * static_cast<double>(page_size)) {
        throw std::bad_alloc{};
    }
}

}  // namespace benchmark
}  // namespace larch
