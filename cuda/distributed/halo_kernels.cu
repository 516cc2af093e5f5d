// CUDA gathering of the rows a process sends in a halo exchange: one thread per gathered entry.
#include "core/distributed/halo_kernels.hpp"

#include <cstdint>

#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace halo {
namespace {

template <typename T, typename I>
struct GatherRows {
    const T* source;
    std::int64_t source_stride;
    const I* rows;
    T* result;
    std::int64_t result_stride;
    std::int64_t cols;

    __device__ void operator()(std::int64_t i) const
    {
        const auto k = i / cols;
        const auto col = i % cols;
        result[k * result_stride + col] = source[static_cast<std::int64_t>(rows[k]) * source_stride + col];
    }
};

}  // namespace

template <typename T, typename I>
void gather_rows(const DefaultExecutor& exec, const matrix::Dense<T>& source, const array<I>& rows,
                 matrix::Dense<T>& result)
{
    const auto cols = static_cast<std::int64_t>(source.get_size().cols);
    const auto count = static_cast<std::int64_t>(rows.get_size());
    if (count == 0 || cols == 0) {
        return;
    }
    launch_for_each(exec, count * cols,
                    GatherRows<T, I>{source.get_const_values(), static_cast<std::int64_t>(source.get_stride()),
                                     rows.get_const_data(), result.get_values(),
                                     static_cast<std::int64_t>(result.get_stride()), cols},
                    "launch of halo::gather_rows");
}

LARCH_INSTANTIATE_HALO_KERNELS();

}  // namespace halo
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
