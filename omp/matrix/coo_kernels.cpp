// OpenMP kernels of matrix::Coo: SpMV over equal shares of the nonzeros (one per thread), row pointers in
// parallel over the nonzeros.
#include "core/matrix/coo_kernels.hpp"

#include <omp.h>

namespace larch {
namespace kernels {
namespace omp {
namespace coo {

template <typename V, typename I>
void spmv(const DefaultExecutor&, V alpha, const matrix::Coo<V, I>& a, const matrix::Dense<V>& b,
          V beta, matrix::Dense<V>& x)
{
    const auto rows = static_cast<std::ptrdiff_t>(x.get_size().rows);
    const auto num_rhs = x.get_size().cols;
#pragma omp parallel for
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        for (size_type j = 0; j < num_rhs; ++j) {
            auto& entry = x.get_values()[row * x.get_stride() + j];
            entry = beta == V{} ? V{} : beta * entry;
        }
    }
    // Row-segmented: each thread sums the rows of its share of the nonzeros. A row that starts before
    // or ends after the share may be shared with the neighbouring thread and is added atomically; every
    // other row belongs to this thread alone.
    const auto nnz = a.get_num_stored_elements();
    const auto row_idxs = a.get_const_row_idxs();
    const auto col_idxs = a.get_const_col_idxs();
    const auto values = a.get_const_values();
#pragma omp parallel
    {
        const auto num_threads = static_cast<size_type>(omp_get_num_threads());
        const auto thread = static_cast<size_type>(omp_get_thread_num());
        const auto begin = nnz * thread / num_threads;
        const auto end = nnz * (thread + 1) / num_threads;
        if (begin < end) {
            const auto first_row = row_idxs[begin];
            const auto last_row = row_idxs[end - 1];
            for (size_type j = 0; j < num_rhs; ++j) {
                auto k = begin;
                while (k < end) {
                    const auto row = row_idxs[k];
                    V sum{};
                    for (; k < end && row_idxs[k] == row; ++k) {
                        sum += values[k] * b.get_const_values()[col_idxs[k] * b.get_stride() + j];
                    }
                    auto& entry = x.get_values()[row * x.get_stride() + j];
                    if (row == first_row || row == last_row) {
#pragma omp atomic
                        entry += alpha * sum;
                    } else {
                        entry += alpha * sum;
                    }
                }
            }
        }
    }
}

template <typename I>
void convert_row_idxs_to_ptrs(const DefaultExecutor&, const I* row_idxs, size_type num_nonzeros,
                              I* row_ptrs, size_type num_rows)
{
    // Nonzero k is the first of every row in (row_idxs[k - 1], row_idxs[k]]; position num_nonzeros
    // closes the remaining rows. Each row pointer is written exactly once.
    const auto nnz = static_cast<std::ptrdiff_t>(num_nonzeros);
#pragma omp parallel for
    for (std::ptrdiff_t k = 0; k <= nnz; ++k) {
        const auto previous_row = k == 0 ? std::ptrdiff_t{-1} : std::ptrdiff_t{row_idxs[k - 1]};
        const auto row = k == nnz ? static_cast<std::ptrdiff_t>(num_rows) : std::ptrdiff_t{row_idxs[k]};
        for (auto r = previous_row + 1; r <= row; ++r) {
            row_ptrs[r] = static_cast<I>(k);
        }
    }
}

LARCH_INSTANTIATE_COO_KERNELS();

}  // namespace coo
}  // namespace omp
}  // namespace kernels
}  // namespace larch
