// A size check before the benchmark's large host allocations.
#pragma once

namespace larch {
namespace benchmark {

/// Throws std::bad_alloc when `bytes` exceed the host's physical memory. Where the kernel overcommits
/// memory (vm.overcommit_memory = 1, as on the GPU machines), such an allocation succeeds and the process
/// is killed, or pages for minutes, while it fills it; the runner reports a bad_alloc as a case too large.
void ensure_fits_host_memory(double bytes);

}  // namespace benchmark
}  // namespace larch
