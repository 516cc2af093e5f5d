// OpenMP fill of the random shadow space, in parallel over rows (each entry is independent of the others).
#include "core/solver/shadow_space_kernels.hpp"

#include <cstddef>

#include "core/components/counter_random.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace shadow_space {

template <typename T>
void fill_random(const DefaultExecutor&, std::uint64_t seed, size_type global_cols, size_type first_col,
                 matrix::Dense<T>& space)
{
    const auto rows = static_cast<std::ptrdiff_t>(space.get_size().rows);
    const auto cols = space.get_size().cols;
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        for (size_type col = 0; col < cols; ++col) {
            space.get_values()[row * space.get_stride() + col] =
                static_cast<T>(::larch::kernels::components::counter_random_uniform(seed, row * global_cols + first_col + col));
        }
    }
}

LARCH_INSTANTIATE_SHADOW_SPACE_KERNELS();

}  // namespace shadow_space
}  // namespace omp
}  // namespace kernels
}  // namespace larch
