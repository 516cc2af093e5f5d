// Reference fill of the random shadow space, entry by entry.
#include "core/solver/shadow_space_kernels.hpp"

#include "core/components/counter_random.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace shadow_space {

template <typename T>
void fill_random(const DefaultExecutor&, std::uint64_t seed, size_type global_cols, size_type first_col,
                 matrix::Dense<T>& space)
{
    const auto cols = space.get_size().cols;
    for (size_type row = 0; row < space.get_size().rows; ++row) {
        for (size_type col = 0; col < cols; ++col) {
            space.get_values()[row * space.get_stride() + col] =
                static_cast<T>(::larch::kernels::components::counter_random_uniform(seed, row * global_cols + first_col + col));
        }
    }
}

LARCH_INSTANTIATE_SHADOW_SPACE_KERNELS();

}  // namespace shadow_space
}  // namespace reference
}  // namespace kernels
}  // namespace larch
