// CUDA fill of the random shadow space: one thread per entry.
#include "core/solver/shadow_space_kernels.hpp"

#include <cstdint>

#include "core/components/counter_random.hpp"
#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace shadow_space {
namespace {

template <typename T>
struct FillRandom {
    std::uint64_t seed;
    T* values;
    std::int64_t stride;
    std::int64_t cols;
    std::int64_t global_cols;
    std::int64_t first_col;
    __device__ void operator()(std::int64_t i) const
    {
        const auto [row, col] = entry_position(i, cols);
        values[row * stride + col] = static_cast<T>(
            ::larch::kernels::components::counter_random_uniform(seed, row * global_cols + first_col + col));
    }
};

}  // namespace

template <typename T>
void fill_random(const DefaultExecutor& exec, std::uint64_t seed, size_type global_cols, size_type first_col,
                 matrix::Dense<T>& space)
{
    const auto size = space.get_size();
    if (size.rows == 0 || size.cols == 0) {
        return;
    }
    launch_for_each(exec, static_cast<std::int64_t>(size.rows * size.cols),
                    FillRandom<T>{seed, space.get_values(), static_cast<std::int64_t>(space.get_stride()),
                                  static_cast<std::int64_t>(size.cols), static_cast<std::int64_t>(global_cols),
                                  static_cast<std::int64_t>(first_col)},
                    "launch of shadow_space::fill_random");
}

LARCH_INSTANTIATE_SHADOW_SPACE_KERNELS();

}  // namespace shadow_space
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
