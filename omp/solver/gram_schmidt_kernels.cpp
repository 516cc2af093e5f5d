// OpenMP Gram-Schmidt kernels: the projections as fixed-order sums (the reference's value up to 4,096 rows,
// and the same on any number of threads), the update over the entries of w (in parallel for long vectors).
#include "core/solver/gram_schmidt_kernels.hpp"

#include <cstddef>

#include "omp/components/fixed_order_sum.hpp"
#include "omp/components/parallel_rows.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace gram_schmidt {

template <typename T>
void project(const DefaultExecutor&, const matrix::Dense<T>& basis, const matrix::Dense<T>& w,
             matrix::Dense<T>& coefficients)
{
    const auto n = static_cast<std::ptrdiff_t>(basis.get_size().cols);
    for (size_type i = 0; i < basis.get_size().rows; ++i) {
        const auto row = basis.get_const_values() + i * basis.get_stride();
        coefficients.get_values()[i] = components::fixed_order_sum<T>(
            n, [&](std::ptrdiff_t k) { return row[k] * w.get_const_values()[k * w.get_stride()]; });
    }
}

template <typename T>
void subtract(const DefaultExecutor&, const matrix::Dense<T>& basis, const matrix::Dense<T>& coefficients,
              matrix::Dense<T>& w)
{
    const auto n = static_cast<std::ptrdiff_t>(basis.get_size().cols);
    const auto count = basis.get_size().rows;
    components::for_each_row(n, [&](std::ptrdiff_t k) {
        T combination{};
        for (size_type i = 0; i < count; ++i) {
            combination += coefficients.get_const_values()[i] * basis.get_const_values()[i * basis.get_stride() + k];
        }
        w.get_values()[k * w.get_stride()] -= combination;
    });
}

LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();

}  // namespace gram_schmidt
}  // namespace omp
}  // namespace kernels
}  // namespace larch
