// Reference kernels of the batched sparse matrices: a plain loop over the items calling the serial
// per-item SpMV of core/batch/sparse_item_algorithms.hpp (the oracle for every other backend).
#include "core/batch/batch_sparse_kernels.hpp"

#include "core/batch/sparse_item_algorithms.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace batch_sparse {

template <typename T, typename I>
void csr_spmv(const DefaultExecutor&, const batch::Csr<T, I>& a, batch::CsrSpmvKernel, T alpha,
              const batch::Vector<T>& b, T beta, batch::Vector<T>& x)
{
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        batch::item::csr_spmv(a, item, alpha, b, beta, x);
    }
}

template <typename T, typename I>
void coo_spmv(const DefaultExecutor&, const batch::Coo<T, I>& a, T alpha, const batch::Vector<T>& b,
              T beta, batch::Vector<T>& x)
{
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        batch::item::coo_spmv(a, item, alpha, b, beta, x);
    }
}

template <typename T, typename I>
void ell_spmv(const DefaultExecutor&, const batch::Ell<T, I>& a, T alpha, const batch::Vector<T>& b,
              T beta, batch::Vector<T>& x)
{
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        batch::item::ell_spmv(a, item, alpha, b, beta, x);
    }
}

LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_SPARSE_KERNELS);

}  // namespace batch_sparse
}  // namespace reference
}  // namespace kernels
}  // namespace larch
