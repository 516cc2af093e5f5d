// cuSPARSE generic-API SpMV/SpMM for matrix::Csr (CUDA-only; the HIP build skips *_cusparse.cu files).
#include <cusparse.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/components/instantiation.hpp"
#include "core/matrix/dense_kernels.hpp"
#include "cuda/base/runtime.hpp"
#include "cuda/matrix/csr_cusparse.cuh"
#include "cuda/matrix/csr_spmv_cache.cuh"
#include "larch/base/array.hpp"

namespace larch {
namespace kernels {
namespace cuda {
namespace csr {
namespace {

void check_cusparse(cusparseStatus_t status, const char* call, const char* file, int line)
{
    if (status != CUSPARSE_STATUS_SUCCESS) {
        throw DeviceError(file, line,
                          std::string{"cuSPARSE call "} + call + " failed: " +
                              cusparseGetErrorName(status) + ": " + cusparseGetErrorString(status));
    }
}

#define LARCH_CUSPARSE_CHECK(call) check_cusparse((call), #call, __FILE__, __LINE__)

/// The cuSPARSE handle of `device_id` (which must be current), created on first use and kept for the
/// life of the process: destroying it at exit could run after the CUDA runtime has shut down.
cusparseHandle_t get_handle(int device_id)
{
    static std::mutex mutex;
    static std::vector<cusparseHandle_t> handles;
    std::lock_guard<std::mutex> lock{mutex};
    if (handles.size() <= static_cast<size_type>(device_id)) {
        handles.resize(device_id + 1, nullptr);
    }
    if (!handles[device_id]) {
        LARCH_CUSPARSE_CHECK(cusparseCreate(&handles[device_id]));
    }
    return handles[device_id];
}

template <typename V>
constexpr cudaDataType value_type_of();
template <>
constexpr cudaDataType value_type_of<float>()
{
    return CUDA_R_32F;
}
template <>
constexpr cudaDataType value_type_of<double>()
{
    return CUDA_R_64F;
}

template <typename I>
constexpr cusparseIndexType_t index_type_of()
{
    static_assert(sizeof(I) == 4 || sizeof(I) == 8, "cuSPARSE takes 32- or 64-bit indices");
    return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

/// Owns one cuSPARSE descriptor of type `Descriptor` (const or mutable); `destroy` is its
/// cusparseDestroy* function. Destruction errors are ignored: a destructor must not throw, and a
/// descriptor owns no device memory.
template <typename Descriptor, typename Destroyed, cusparseStatus_t (*destroy)(Destroyed)>
class DescriptorGuard {
public:
    DescriptorGuard() = default;
    DescriptorGuard(const DescriptorGuard&) = delete;
    DescriptorGuard& operator=(const DescriptorGuard&) = delete;
    ~DescriptorGuard()
    {
        if (descriptor_) {
            (void)destroy(descriptor_);
        }
    }
    /// Where a cusparseCreate* call writes the descriptor.
    Descriptor* out() { return &descriptor_; }
    Descriptor get() const { return descriptor_; }

private:
    Descriptor descriptor_ = nullptr;
};

using SpMatGuard =
    DescriptorGuard<cusparseConstSpMatDescr_t, cusparseConstSpMatDescr_t, cusparseDestroySpMat>;
template <typename Descriptor>
using DnVecGuard = DescriptorGuard<Descriptor, cusparseConstDnVecDescr_t, cusparseDestroyDnVec>;
template <typename Descriptor>
using DnMatGuard = DescriptorGuard<Descriptor, cusparseConstDnMatDescr_t, cusparseDestroyDnMat>;

/**
 * What one Csr's cuSPARSE products keep between calls (CsrSpmvCache::vendor): the matrix descriptor, and
 * the workspaces of cusparseSpMV, which holds the preprocessing of the pattern (done once, so the row
 * partition is not recomputed per product), and of cusparseSpMM (kept at the largest size asked for).
 */
struct CusparseCache {
    explicit CusparseCache(const CudaExecutor& exec)
        : spmv_workspace{exec.shared_from_this()}, spmm_workspace{exec.shared_from_this()}
    {}

    SpMatGuard matrix;
    array<char> spmv_workspace;
    bool spmv_preprocessed = false;
    array<char> spmm_workspace;
};

/// The cuSPARSE state of `a` in `cache` (made with its descriptor on first use); the caller holds
/// cache.vendor_mutex.
template <typename V, typename I>
CusparseCache& vendor_state(const CudaExecutor& exec, const matrix::Csr<V, I>& a, CsrSpmvCache& cache)
{
    if (!cache.vendor) {
        auto state = std::make_shared<CusparseCache>(exec);
        const auto size = a.get_size();
        LARCH_CUSPARSE_CHECK(cusparseCreateConstCsr(
            state->matrix.out(), size.rows, size.cols, a.get_num_stored_elements(), a.get_const_row_ptrs(),
            a.get_const_col_idxs(), a.get_const_values(), index_type_of<I>(), index_type_of<I>(),
            CUSPARSE_INDEX_BASE_ZERO, value_type_of<V>()));
        cache.vendor = state;
    }
    return *std::static_pointer_cast<CusparseCache>(cache.vendor);
}

/// The SpMV path: one right-hand side, both vectors contiguous. The first call on a cache sizes its
/// workspace and preprocesses the pattern into it.
template <typename V>
void run_spmv(cusparseHandle_t handle, CusparseCache& cache, const V* alpha, const matrix::Dense<V>& b,
              const V* beta, matrix::Dense<V>& x)
{
    DnVecGuard<cusparseConstDnVecDescr_t> b_descr;
    DnVecGuard<cusparseDnVecDescr_t> x_descr;
    LARCH_CUSPARSE_CHECK(cusparseCreateConstDnVec(b_descr.out(), b.get_size().rows,
                                                  b.get_const_values(), value_type_of<V>()));
    LARCH_CUSPARSE_CHECK(
        cusparseCreateDnVec(x_descr.out(), x.get_size().rows, x.get_values(), value_type_of<V>()));
    if (!cache.spmv_preprocessed) {
        size_t workspace_size = 0;
        LARCH_CUSPARSE_CHECK(cusparseSpMV_bufferSize(
            handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, cache.matrix.get(), b_descr.get(), beta,
            x_descr.get(), value_type_of<V>(), CUSPARSE_SPMV_ALG_DEFAULT, &workspace_size));
        cache.spmv_workspace.resize_and_reset(workspace_size);
        LARCH_CUSPARSE_CHECK(cusparseSpMV_preprocess(
            handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, cache.matrix.get(), b_descr.get(), beta,
            x_descr.get(), value_type_of<V>(), CUSPARSE_SPMV_ALG_DEFAULT, cache.spmv_workspace.get_data()));
        cache.spmv_preprocessed = true;
    }
    LARCH_CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, cache.matrix.get(),
                                      b_descr.get(), beta, x_descr.get(), value_type_of<V>(),
                                      CUSPARSE_SPMV_ALG_DEFAULT, cache.spmv_workspace.get_data()));
}

/// The SpMM path: several right-hand sides or strided vectors, as row-major dense matrices whose
/// leading dimension is the Dense stride; the cache's workspace grows to the largest size needed.
template <typename V>
void run_spmm(cusparseHandle_t handle, CusparseCache& cache, const V* alpha, const matrix::Dense<V>& b,
              const V* beta, matrix::Dense<V>& x)
{
    DnMatGuard<cusparseConstDnMatDescr_t> b_descr;
    DnMatGuard<cusparseDnMatDescr_t> x_descr;
    LARCH_CUSPARSE_CHECK(cusparseCreateConstDnMat(
        b_descr.out(), b.get_size().rows, b.get_size().cols, b.get_stride(), b.get_const_values(),
        value_type_of<V>(), CUSPARSE_ORDER_ROW));
    LARCH_CUSPARSE_CHECK(cusparseCreateDnMat(x_descr.out(), x.get_size().rows, x.get_size().cols,
                                             x.get_stride(), x.get_values(), value_type_of<V>(),
                                             CUSPARSE_ORDER_ROW));
    size_t workspace_size = 0;
    LARCH_CUSPARSE_CHECK(cusparseSpMM_bufferSize(
        handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, cache.matrix.get(),
        b_descr.get(), beta, x_descr.get(), value_type_of<V>(), CUSPARSE_SPMM_ALG_DEFAULT, &workspace_size));
    if (cache.spmm_workspace.get_size() < workspace_size) {
        cache.spmm_workspace.resize_and_reset(workspace_size);
    }
    LARCH_CUSPARSE_CHECK(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, cache.matrix.get(),
                                      b_descr.get(), beta, x_descr.get(), value_type_of<V>(),
                                      CUSPARSE_SPMM_ALG_DEFAULT, cache.spmm_workspace.get_data()));
}

}  // namespace

template <typename V, typename I>
void cusparse_spmv(const CudaExecutor& exec, V alpha, const matrix::Csr<V, I>& a,
                   const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto size = a.get_size();
    const auto num_rhs = x.get_size().cols;
    if (size.rows == 0 || num_rhs == 0) {
        return;
    }
    if (a.get_num_stored_elements() == 0 || size.cols == 0) {
        // Nothing to multiply (cuSPARSE rejects some empty shapes): x = beta * x.
        if (beta == V{0}) {
            dense::fill(exec, x, V{0});
        } else {
            dense::scale(exec, beta, x);
        }
        return;
    }
    const auto handle = get_handle(exec.get_device_id());
    const auto cache = spmv_cache_of(exec, a);
    std::lock_guard<std::mutex> lock{cache->vendor_mutex};
    auto& state = vendor_state(exec, a, *cache);
    if (num_rhs == 1 && b.get_stride() == 1 && x.get_stride() == 1) {
        run_spmv(handle, state, &alpha, b, &beta, x);
    } else {
        run_spmm(handle, state, &alpha, b, &beta, x);
    }
}

#define LARCH_INSTANTIATE_CUSPARSE_SPMV(V, I)                                                     \
    template void cusparse_spmv<V, I>(const CudaExecutor&, V, const matrix::Csr<V, I>&,            \
                                      const matrix::Dense<V>&, V, matrix::Dense<V>&)
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_CUSPARSE_SPMV);

}  // namespace csr
}  // namespace cuda
}  // namespace kernels
}  // namespace larch
