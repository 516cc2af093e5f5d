// OpenMP Gram-Schmidt kernels: the projections as fixed-order sums, one per basis vector and column (the
// same on any number of threads and for a column solved alone), the updates over the rows of w (in parallel
// for long vectors).
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
             matrix::Dense<T>& coefficients, array<T>&)
{
    const auto n = static_cast<std::ptrdiff_t>(w.get_size().rows);
    const auto cols = w.get_size().cols;
    // Entry (k, c) of a basis vector at k * row_step + c * col_step: interleaved columns or one shared vector.
    const bool shared = basis.get_size().cols == w.get_size().rows;
    const auto row_step = static_cast<std::ptrdiff_t>(shared ? 1 : cols);
    const auto col_step = shared ? 0 : 1;
    for (size_type i = 0; i < basis.get_size().rows; ++i) {
        const auto vector = basis.get_const_values() + i * basis.get_stride();
        for (size_type c = 0; c < cols; ++c) {
            coefficients.get_values()[i * cols + c] = components::fixed_order_sum<T>(n, [&](std::ptrdiff_t k) {
                return vector[k * row_step + c * col_step] * w.get_const_values()[k * w.get_stride() + c];
            });
        }
    }
}

template <typename T>
void subtract(const DefaultExecutor&, const matrix::Dense<T>& basis, const matrix::Dense<T>& coefficients,
              matrix::Dense<T>& w)
{
    const auto cols = w.get_size().cols;
    const auto count = basis.get_size().rows;
    components::for_each_row(static_cast<std::ptrdiff_t>(w.get_size().rows), [&](std::ptrdiff_t k) {
        for (size_type c = 0; c < cols; ++c) {
            T combination{};
            for (size_type i = 0; i < count; ++i) {
                combination += coefficients.get_const_values()[i * cols + c] *
                               basis.get_const_values()[i * basis.get_stride() + k * cols + c];
            }
            w.get_values()[k * w.get_stride() + c] -= combination;
        }
    });
}

template <typename T>
void normalize(const DefaultExecutor&, const array<T>& factors, matrix::Dense<T>& v)
{
    const auto cols = v.get_size().cols;
    components::for_each_row(static_cast<std::ptrdiff_t>(v.get_size().rows), [&](std::ptrdiff_t k) {
        for (size_type c = 0; c < cols; ++c) {
            auto& entry = v.get_values()[k * v.get_stride() + c];
            const auto factor = factors.get_const_data()[c];
            entry = factor == T{} ? T{} : factor * entry;
        }
    });
}

LARCH_INSTANTIATE_GRAM_SCHMIDT_KERNELS();

}  // namespace gram_schmidt
}  // namespace omp
}  // namespace kernels
}  // namespace larch
