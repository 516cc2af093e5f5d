// What one matrix::Csr's SpMV on a GPU keeps between products (Csr::get_spmv_cache), shared by larch's
// kernels and, on CUDA, by the cuSPARSE path.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "larch/base/executor.hpp"
#include "larch/matrix/csr.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace csr {

/**
 * Valid for the arrays and the device it was made for: a copy of the matrix, another device, or a write
 * through Csr::get_values/get_col_idxs/get_row_ptrs (which drops the cache) makes a new one.
 */
struct CsrSpmvCache {
    CsrSpmvCache(int device, const void* values, const void* col_idxs, const void* row_ptrs)
        : device{device}, values{values}, col_idxs{col_idxs}, row_ptrs{row_ptrs}
    {}

    bool fits(int other_device, const void* other_values, const void* other_col_idxs,
              const void* other_row_ptrs) const
    {
        return device == other_device && values == other_values && col_idxs == other_col_idxs &&
               row_ptrs == other_row_ptrs;
    }

    const int device;
    const void* const values;
    const void* const col_idxs;
    const void* const row_ptrs;
    /// larch's kernel: the rows per node (see find_node_rows in csr_kernels.cu), 1 where the rows form no
    /// nodes; 0 until the first product that asks.
    std::atomic<int> node_rows{0};
    /// The cuSPARSE path's descriptor and workspaces (csr_cusparse.cu), made by its first product. Concurrent
    /// vendor products of one matrix share them: one at a time, under vendor_mutex.
    std::mutex vendor_mutex;
    std::shared_ptr<void> vendor;
};

/// The cache of `a` on `exec`, made (empty) where `a` has none or one for other arrays or another device.
/// Two concurrent first products may each make one; the last stored stays, and both are correct.
template <typename V, typename I>
std::shared_ptr<CsrSpmvCache> spmv_cache_of(const GpuExecutor& exec, const matrix::Csr<V, I>& a)
{
    auto cache = std::static_pointer_cast<CsrSpmvCache>(a.get_spmv_cache());
    if (cache && cache->fits(exec.get_device_id(), a.get_const_values(), a.get_const_col_idxs(),
                             a.get_const_row_ptrs())) {
        return cache;
    }
    cache = std::make_shared<CsrSpmvCache>(exec.get_device_id(), a.get_const_values(), a.get_const_col_idxs(),
                                           a.get_const_row_ptrs());
    a.set_spmv_cache(cache);
    return cache;
}

}  // namespace csr
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
