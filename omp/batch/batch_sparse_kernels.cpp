// OpenMP kernels of the batched sparse matrices: the serial per-item SpMV of
// core/batch/sparse_item_algorithms.hpp in parallel over the items. Static scheduling in chunks: an
// item's work is O(nnz_i), small and similar enough that dynamic scheduling would cost more than it
// balances, while chunks keep each thread on contiguous memory (the operation is bandwidth-bound).
#include "core/batch/batch_sparse_kernels.hpp"

#include <cstdint>

#include "core/batch/sparse_item_algorithms.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace batch_sparse {

namespace {

template <typename Body>
void for_each_item(size_type num_items, Body body)
{
#pragma omp parallel for schedule(static, 64)
    for (std::int64_t item = 0; item < static_cast<std::int64_t>(num_items); ++item) {
        body(static_cast<size_type>(item));
    }
}

}  // namespace

template <typename T, typename I>
void csr_spmv(const DefaultExecutor&, const batch::Csr<T, I>& a, batch::CsrSpmvKernel, T alpha,
              const batch::Vector<T>& b, T beta, batch::Vector<T>& x)
{
    for_each_item(a.get_num_items(),
                  [&](size_type item) { batch::item::csr_spmv(a, item, alpha, b, beta, x); });
}

template <typename T, typename I>
void coo_spmv(const DefaultExecutor&, const batch::Coo<T, I>& a, T alpha, const batch::Vector<T>& b,
              T beta, batch::Vector<T>& x)
{
    for_each_item(a.get_num_items(),
                  [&](size_type item) { batch::item::coo_spmv(a, item, alpha, b, beta, x); });
}

template <typename T, typename I>
void ell_spmv(const DefaultExecutor&, const batch::Ell<T, I>& a, T alpha, const batch::Vector<T>& b,
              T beta, batch::Vector<T>& x)
{
    for_each_item(a.get_num_items(),
                  [&](size_type item) { batch::item::ell_spmv(a, item, alpha, b, beta, x); });
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SPARSE_KERNELS);

}  // namespace batch_sparse
}  // namespace omp
}  // namespace kernels
}  // namespace larch
