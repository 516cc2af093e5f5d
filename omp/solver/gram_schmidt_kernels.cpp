// OpenMP Gram-Schmidt kernels: the projections as fixed-order sums, one per basis vector and column (the
// same on any number of threads and for a column solved alone; a basis vector's columns in one pass), the
// updates over the rows of w (in parallel for long vectors).
#include "core/solver/gram_schmidt_kernels.hpp"

#include <algorithm>
#include <cstddef>

#include "omp/components/column_sums.hpp"
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
    // The columns of w together, one pass over basis vector i and w per i: a pass per column read each
    // cache line of the interleaved vectors once per column.
    const auto columns = components::all_columns(cols);
    for (size_type i = 0; i < basis.get_size().rows; ++i) {
        const auto vector = basis.get_const_values() + i * basis.get_stride();
        components::fixed_order_column_sums<T>(
            n, columns, coefficients.get_values() + i * cols,
            [vector, row_step, col_step](size_type c, auto w_column) {
                const auto offset = static_cast<std::ptrdiff_t>(c) * col_step;
                return [=](std::ptrdiff_t k) { return vector[k * row_step + offset] * w_column[k]; };
            },
            w);
    }
}

template <typename T>
void subtract(const DefaultExecutor&, const matrix::Dense<T>& basis, const matrix::Dense<T>& coefficients,
              matrix::Dense<T>& w)
{
    const auto cols = w.get_size().cols;
    const auto count = basis.get_size().rows;
    // Each (k, c) sums over the basis vectors in order; the columns of a row are independent chains, taken
    // side by side in blocks (one column after the other, each row waited on a chain of count additions
    // per column).
    constexpr size_type block = 8;
    components::for_each_row(static_cast<std::ptrdiff_t>(w.get_size().rows), [&](std::ptrdiff_t k) {
        for (size_type first = 0; first < cols; first += block) {
            const auto width = std::min(block, cols - first);
            T combinations[block]{};
            for (size_type i = 0; i < count; ++i) {
                const auto coefficient_row = coefficients.get_const_values() + i * cols + first;
                const auto basis_row = basis.get_const_values() + i * basis.get_stride() + k * cols + first;
                for (size_type c = 0; c < width; ++c) {
                    combinations[c] += coefficient_row[c] * basis_row[c];
                }
            }
            for (size_type c = 0; c < width; ++c) {
                w.get_values()[k * w.get_stride() + first + c] -= combinations[c];
            }
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
