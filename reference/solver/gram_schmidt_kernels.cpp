// Reference Gram-Schmidt kernels: a sequential dot product per basis vector and column, a sequential update
// per entry.
#include "core/solver/gram_schmidt_kernels.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace gram_schmidt {

template <typename T>
void project(const DefaultExecutor&, const matrix::Dense<T>& basis, const matrix::Dense<T>& w,
             matrix::Dense<T>& coefficients, array<T>&)
{
    const auto n = w.get_size().rows;
    const auto cols = w.get_size().cols;
    // Entry (k, c) of a basis vector at k * row_step + c * col_step: interleaved columns or one shared vector.
    const bool shared = basis.get_size().cols == n;
    const auto row_step = shared ? 1 : cols;
    const auto col_step = shared ? 0 : 1;
    for (size_type i = 0; i < basis.get_size().rows; ++i) {
        const auto vector = basis.get_const_values() + i * basis.get_stride();
        for (size_type c = 0; c < cols; ++c) {
            T sum{};
            for (size_type k = 0; k < n; ++k) {
                sum += vector[k * row_step + c * col_step] * w.get_const_values()[k * w.get_stride() + c];
            }
            coefficients.get_values()[i * cols + c] = sum;
        }
    }
}

template <typename T>
void subtract(const DefaultExecutor&, const matrix::Dense<T>& basis, const matrix::Dense<T>& coefficients,
              matrix::Dense<T>& w)
{
    const auto n = w.get_size().rows;
    const auto cols = w.get_size().cols;
    for (size_type k = 0; k < n; ++k) {
        for (size_type c = 0; c < cols; ++c) {
            T combination{};
            for (size_type i = 0; i < basis.get_size().rows; ++i) {
                combination += coefficients.get_const_values()[i * cols + c] *
                               basis.get_const_values()[i * basis.get_stride() + k * cols + c];
            }
            w.get_values()[k * w.get_stride() + c] -= combination;
        }
    }
}

template <typename T>
void normalize(const DefaultExecutor&, const array<T>& factors, matrix::Dense<T>& v)
{
    for (size_type k = 0; k < v.get_size().rows; ++k) {
        for (size_type c = 0; c < v.get_size().cols; ++c) {
            auto& entry = v.get_values()[k * v.get_stride() + c];
            const auto factor = factors.get_const_data()[c];
            entry = factor == T{} ? T{} : factor * entry;
        }
    }
}

LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();

}  // namespace gram_schmidt
}  // namespace reference
}  // namespace kernels
}  // namespace larch
