// Reference Gram-Schmidt kernels: a sequential dot product per basis vector, a sequential update per entry.
#include "core/solver/gram_schmidt_kernels.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace gram_schmidt {

template <typename T>
void project(const DefaultExecutor&, const matrix::Dense<T>& basis, const matrix::Dense<T>& w,
             matrix::Dense<T>& coefficients)
{
    for (size_type i = 0; i < basis.get_size().rows; ++i) {
        T sum{};
        for (size_type k = 0; k < basis.get_size().cols; ++k) {
            sum += basis.get_const_values()[i * basis.get_stride() + k] * w.get_const_values()[k * w.get_stride()];
        }
        coefficients.get_values()[i] = sum;
    }
}

template <typename T>
void subtract(const DefaultExecutor&, const matrix::Dense<T>& basis, const matrix::Dense<T>& coefficients,
              matrix::Dense<T>& w)
{
    for (size_type k = 0; k < basis.get_size().cols; ++k) {
        T combination{};
        for (size_type i = 0; i < basis.get_size().rows; ++i) {
            combination += coefficients.get_const_values()[i] * basis.get_const_values()[i * basis.get_stride() + k];
        }
        w.get_values()[k * w.get_stride()] -= combination;
    }
}

LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();

}  // namespace gram_schmidt
}  // namespace reference
}  // namespace kernels
}  // namespace larch
