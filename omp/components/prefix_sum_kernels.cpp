// OpenMP exclusive prefix sum: each thread sums a contiguous block, the block totals are scanned
// sequentially (one per thread), then each thread scans its block from its offset.
#include "core/components/prefix_sum_kernels.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

namespace larch {
namespace kernels {
namespace omp {
namespace components {

template <typename I>
void prefix_sum(const DefaultExecutor& exec, I* values, size_type n)
{
    // Below this length the two passes cost more than they save.
    constexpr size_type min_parallel_length = 1 << 14;
    const auto num_threads = static_cast<size_type>(exec.get_num_threads());
    if (n < min_parallel_length || num_threads == 1) {
        I partial_sum{};
        for (size_type i = 0; i < n; ++i) {
            const auto count = values[i];
            values[i] = partial_sum;
            partial_sum += count;
        }
        return;
    }
    // The spare last slot is never read, so the blocks cover values[0, n - 1).
    const auto length = n - 1;
    std::vector<I> block_offsets;
#pragma omp parallel
    {
        // The team may be smaller than asked for, so the blocks follow the team actually running.
        const auto num_blocks = static_cast<size_type>(omp_get_num_threads());
        const auto block = static_cast<size_type>(omp_get_thread_num());
#pragma omp single
        block_offsets.assign(num_blocks + 1, I{});
        const auto block_size = (length + num_blocks - 1) / num_blocks;
        const auto begin = std::min(length, block * block_size);
        const auto end = std::min(length, begin + block_size);
        I block_sum{};
        for (auto i = begin; i < end; ++i) {
            block_sum += values[i];
        }
        block_offsets[block + 1] = block_sum;
#pragma omp barrier
#pragma omp single
        for (size_type b = 0; b < num_blocks; ++b) {
            block_offsets[b + 1] += block_offsets[b];
        }
        I partial_sum = block_offsets[block];
        for (auto i = begin; i < end; ++i) {
            const auto count = values[i];
            values[i] = partial_sum;
            partial_sum += count;
        }
    }
    values[length] = block_offsets.back();
}

LARCH_INSTANTIATE_PREFIX_SUM_KERNELS();

}  // namespace components
}  // namespace omp
}  // namespace kernels
}  // namespace larch
