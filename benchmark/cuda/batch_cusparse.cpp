// The cuSPARSE baselines of the batch_spmv benchmark (see benchmark/driver/batch_cusparse.hpp).
#include "benchmark/driver/batch_cusparse.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace larch {
namespace benchmark {
namespace {

void check(cudaError_t status, const char* call)
{
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string{call} + " failed: " + cudaGetErrorString(status));
    }
}

void check(cusparseStatus_t status, const char* call)
{
    if (status != CUSPARSE_STATUS_SUCCESS) {
        throw std::runtime_error(std::string{call} + " failed: " + cusparseGetErrorString(status));
    }
}

#define BATCH_CUSPARSE_CHECK(call) check((call), #call)

template <typename T>
constexpr cudaDataType value_type_of = std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_64F;

template <typename T>
cusparseSpMatDescr_t create_csr(const DeviceCsr<T>& a)
{
    cusparseSpMatDescr_t descr;
    BATCH_CUSPARSE_CHECK(cusparseCreateCsr(
        &descr, a.rows, a.cols, a.nonzeros, const_cast<std::int32_t*>(a.row_ptrs),
        const_cast<std::int32_t*>(a.col_idxs), const_cast<T*>(a.values), CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type_of<T>));
    return descr;
}

/// A device work buffer freed on destruction.
struct DeviceBuffer {
    void* data = nullptr;
    std::size_t size = 0;
    void reserve(std::size_t bytes)
    {
        if (bytes > size) {
            if (data) {
                BATCH_CUSPARSE_CHECK(cudaFree(data));
                data = nullptr;
            }
            BATCH_CUSPARSE_CHECK(cudaMalloc(&data, bytes));
            size = bytes;
        }
    }
    ~DeviceBuffer()
    {
        if (data) {
            cudaFree(data);
        }
    }
};

}  // namespace

template <typename T>
struct CusparseSpmvList<T>::Impl {
    struct Call {
        cusparseSpMatDescr_t a;
        cusparseDnVecDescr_t b;
        cusparseDnVecDescr_t x;
    };
    cusparseHandle_t handle = nullptr;
    std::vector<Call> calls;
    DeviceBuffer buffer;
    const T one = 1;
    const T zero = 0;
};

template <typename T>
CusparseSpmvList<T>::CusparseSpmvList() : impl_{std::make_unique<Impl>()}
{
    BATCH_CUSPARSE_CHECK(cusparseCreate(&impl_->handle));
}

template <typename T>
CusparseSpmvList<T>::~CusparseSpmvList()
{
    for (auto& call : impl_->calls) {
        cusparseDestroySpMat(call.a);
        cusparseDestroyDnVec(call.b);
        cusparseDestroyDnVec(call.x);
    }
    cusparseDestroy(impl_->handle);
}

template <typename T>
void CusparseSpmvList<T>::add(const DeviceCsr<T>& a, const T* b, T* x)
{
    typename Impl::Call call;
    call.a = create_csr(a);
    BATCH_CUSPARSE_CHECK(
        cusparseCreateDnVec(&call.b, a.cols, const_cast<T*>(b), value_type_of<T>));
    BATCH_CUSPARSE_CHECK(cusparseCreateDnVec(&call.x, a.rows, x, value_type_of<T>));
    impl_->calls.push_back(call);
    std::size_t bytes = 0;
    BATCH_CUSPARSE_CHECK(cusparseSpMV_bufferSize(
        impl_->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &impl_->one, call.a, call.b, &impl_->zero,
        call.x, value_type_of<T>, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    impl_->buffer.reserve(bytes);
}

template <typename T>
void CusparseSpmvList<T>::run()
{
    for (const auto& call : impl_->calls) {
        BATCH_CUSPARSE_CHECK(cusparseSpMV(impl_->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                          &impl_->one, call.a, call.b, &impl_->zero, call.x,
                                          value_type_of<T>, CUSPARSE_SPMV_ALG_DEFAULT,
                                          impl_->buffer.data));
    }
}

template <typename T>
struct CusparseStridedSpmm<T>::Impl {
    cusparseHandle_t handle = nullptr;
    cusparseSpMatDescr_t a = nullptr;
    cusparseDnMatDescr_t b = nullptr;
    cusparseDnMatDescr_t x = nullptr;
    DeviceBuffer buffer;
    const T one = 1;
    const T zero = 0;
};

template <typename T>
CusparseStridedSpmm<T>::CusparseStridedSpmm(const DeviceCsr<T>& item, int num_items, const T* b,
                                            T* x)
    : impl_{std::make_unique<Impl>()}
{
    auto& s = *impl_;
    BATCH_CUSPARSE_CHECK(cusparseCreate(&s.handle));
    s.a = create_csr(item);
    BATCH_CUSPARSE_CHECK(cusparseCsrSetStridedBatch(s.a, num_items, 0, item.nonzeros));
    // One column per item, column-major with leading dimension = the item's length.
    BATCH_CUSPARSE_CHECK(cusparseCreateDnMat(&s.b, item.cols, 1, item.cols, const_cast<T*>(b),
                                             value_type_of<T>, CUSPARSE_ORDER_COL));
    BATCH_CUSPARSE_CHECK(cusparseDnMatSetStridedBatch(s.b, num_items, item.cols));
    BATCH_CUSPARSE_CHECK(cusparseCreateDnMat(&s.x, item.rows, 1, item.rows, x, value_type_of<T>,
                                             CUSPARSE_ORDER_COL));
    BATCH_CUSPARSE_CHECK(cusparseDnMatSetStridedBatch(s.x, num_items, item.rows));
    std::size_t bytes = 0;
    BATCH_CUSPARSE_CHECK(cusparseSpMM_bufferSize(
        s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &s.one, s.a,
        s.b, &s.zero, s.x, value_type_of<T>, CUSPARSE_SPMM_CSR_ALG1, &bytes));
    s.buffer.reserve(bytes);
}

template <typename T>
CusparseStridedSpmm<T>::~CusparseStridedSpmm()
{
    cusparseDestroySpMat(impl_->a);
    cusparseDestroyDnMat(impl_->b);
    cusparseDestroyDnMat(impl_->x);
    cusparseDestroy(impl_->handle);
}

template <typename T>
void CusparseStridedSpmm<T>::run()
{
    auto& s = *impl_;
    BATCH_CUSPARSE_CHECK(cusparseSpMM(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      CUSPARSE_OPERATION_NON_TRANSPOSE, &s.one, s.a, s.b, &s.zero,
                                      s.x, value_type_of<T>, CUSPARSE_SPMM_CSR_ALG1,
                                      s.buffer.data));
}

template class CusparseSpmvList<float>;
template class CusparseSpmvList<double>;
template class CusparseStridedSpmm<float>;
template class CusparseStridedSpmm<double>;

}  // namespace benchmark
}  // namespace larch
