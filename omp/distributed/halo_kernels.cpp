// OpenMP gathering of the rows a process sends in a halo exchange, in parallel over the gathered rows.
#include "core/distributed/halo_kernels.hpp"

#include <cstddef>

namespace larch {
namespace kernels {
namespace omp {
namespace halo {

template <typename T, typename I>
void gather_rows(const DefaultExecutor&, const matrix::Dense<T>& source, const array<I>& rows,
                 matrix::Dense<T>& result)
{
    const auto cols = source.get_size().cols;
    const auto count = static_cast<std::ptrdiff_t>(rows.get_size());
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
        const auto row = static_cast<size_type>(rows.get_const_data()[k]);
        for (size_type col = 0; col < cols; ++col) {
            result.get_values()[k * result.get_stride() + col] =
                source.get_const_values()[row * source.get_stride() + col];
        }
    }
}

LARCH_INSTANTIATE_HALO_KERNELS();

}  // namespace halo
}  // namespace omp
}  // namespace kernels
}  // namespace larch
