// Device kernels of matrix::Ell: SpMV with one thread per row over the column-major slots (consecutive
// threads read consecutive addresses), the row lengths, and the conversion to CSR.
#include <cstdint>

#include "core/matrix/ell_kernels.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/components/launch.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace ell {
namespace {

using index64 = std::int64_t;

/// The slots of one ELL matrix as the kernels see them; a padding slot has column -1
/// (Ell::invalid_index) and may sit anywhere in a row, so it is skipped rather than ending the row.
template <typename V, typename I>
struct EllSlots {
    const I* col_idxs;
    const V* values;
    index64 num_stored_per_row;
    index64 stride;
};

template <typename V, typename I>
EllSlots<V, I> slots_of(const matrix::Ell<V, I>& a)
{
    return {a.get_const_col_idxs(), a.get_const_values(),
            static_cast<index64>(a.get_num_stored_per_row()), static_cast<index64>(a.get_stride())};
}

/// One thread per row: x(row, :) = alpha * A(row, :) b + beta * x(row, :), one right-hand side after
/// the other.
template <typename V, typename I>
struct SpmvRow {
    EllSlots<V, I> a;
    V alpha;
    const V* b;
    index64 b_stride;
    V beta;
    V* x;
    index64 x_stride;
    index64 num_rhs;
    __device__ void operator()(index64 row) const
    {
        for (index64 rhs = 0; rhs < num_rhs; ++rhs) {
            V sum{};
            for (index64 slot = 0; slot < a.num_stored_per_row; ++slot) {
                const index64 k = slot * a.stride + row;
                const I col = a.col_idxs[k];
                if (col != I{-1}) {
                    sum += a.values[k] * b[col * b_stride + rhs];
                }
            }
            V& result = x[row * x_stride + rhs];
            // beta == 0 must not read x: it may hold NaN or uninitialized memory.
            result = beta == V{0} ? alpha * sum : alpha * sum + beta * result;
        }
    }
};

template <typename V, typename I>
struct CountRow {
    EllSlots<V, I> a;
    I* row_nnz;
    __device__ void operator()(index64 row) const
    {
        I count = 0;
        for (index64 slot = 0; slot < a.num_stored_per_row; ++slot) {
            count += a.col_idxs[slot * a.stride + row] != I{-1} ? 1 : 0;
        }
        row_nnz[row] = count;
    }
};

/// One thread per row: copies the row's non-padding slots, in slot order, to its CSR range.
template <typename V, typename I>
struct CompressRow {
    EllSlots<V, I> a;
    const I* row_ptrs;
    I* col_idxs;
    V* values;
    __device__ void operator()(index64 row) const
    {
        index64 out = row_ptrs[row];
        for (index64 slot = 0; slot < a.num_stored_per_row; ++slot) {
            const index64 k = slot * a.stride + row;
            const I col = a.col_idxs[k];
            if (col != I{-1}) {
                col_idxs[out] = col;
                values[out] = a.values[k];
                ++out;
            }
        }
    }
};

}  // namespace

template <typename V, typename I>
void spmv(const DefaultExecutor& exec, V alpha, const matrix::Ell<V, I>& a,
          const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    launch_for_each(exec, a.get_size().rows,
                    SpmvRow<V, I>{slots_of(a), alpha, b.get_const_values(),
                                  static_cast<index64>(b.get_stride()), beta, x.get_values(),
                                  static_cast<index64>(x.get_stride()),
                                  static_cast<index64>(x.get_size().cols)},
                    "launch of ell::spmv");
}

template <typename V, typename I>
void count_nonzeros_per_row(const DefaultExecutor& exec, const matrix::Ell<V, I>& source,
                            I* row_nnz)
{
    launch_for_each(exec, source.get_size().rows, CountRow<V, I>{slots_of(source), row_nnz},
                    "launch of ell::count_nonzeros_per_row");
}

template <typename V, typename I>
void convert_to_csr(const DefaultExecutor& exec, const matrix::Ell<V, I>& source,
                    matrix::Csr<V, I>& result)
{
    launch_for_each(exec, source.get_size().rows,
                    CompressRow<V, I>{slots_of(source), result.get_const_row_ptrs(),
                                      result.get_col_idxs(), result.get_values()},
                    "launch of ell::convert_to_csr");
}

LARCH_INSTANTIATE_ELL_KERNELS();

}  // namespace ell
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
