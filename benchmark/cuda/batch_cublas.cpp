// The cuBLAS baselines of the batched dense benchmarks (see benchmark/driver/batch_cublas.hpp).
#include "benchmark/driver/batch_cublas.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
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

void check(cublasStatus_t status, const char* call)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string{call} + " failed with cuBLAS status " +
                                 std::to_string(static_cast<int>(status)));
    }
}

#define BATCH_CUBLAS_CHECK(call) check((call), #call)

// Overloads picking cublasS* or cublasD*.
cublasStatus_t getrf(cublasHandle_t h, int n, float* const a[], int* piv, int* info, int count)
{
    return cublasSgetrfBatched(h, n, a, n, piv, info, count);
}
cublasStatus_t getrf(cublasHandle_t h, int n, double* const a[], int* piv, int* info, int count)
{
    return cublasDgetrfBatched(h, n, a, n, piv, info, count);
}
cublasStatus_t getri(cublasHandle_t h, int n, const float* const a[], const int* piv,
                     float* const c[], int* info, int count)
{
    return cublasSgetriBatched(h, n, a, n, piv, c, n, info, count);
}
cublasStatus_t getri(cublasHandle_t h, int n, const double* const a[], const int* piv,
                     double* const c[], int* info, int count)
{
    return cublasDgetriBatched(h, n, a, n, piv, c, n, info, count);
}
cublasStatus_t matinv(cublasHandle_t h, int n, const float* const a[], float* const c[], int* info,
                      int count)
{
    return cublasSmatinvBatched(h, n, a, n, c, n, info, count);
}
cublasStatus_t matinv(cublasHandle_t h, int n, const double* const a[], double* const c[],
                      int* info, int count)
{
    return cublasDmatinvBatched(h, n, a, n, c, n, info, count);
}
cublasStatus_t getrs(cublasHandle_t h, int n, const float* const a[], const int* piv,
                     float* const b[], int* info, int count)
{
    return cublasSgetrsBatched(h, CUBLAS_OP_T, n, 1, a, n, piv, b, n, info, count);
}
cublasStatus_t getrs(cublasHandle_t h, int n, const double* const a[], const int* piv,
                     double* const b[], int* info, int count)
{
    return cublasDgetrsBatched(h, CUBLAS_OP_T, n, 1, a, n, piv, b, n, info, count);
}
cublasStatus_t dgmm(cublasHandle_t h, int count, const float* y, const float* x, float* product)
{
    return cublasSdgmm(h, CUBLAS_SIDE_LEFT, count, 1, y, count, x, 1, product, count);
}
cublasStatus_t dgmm(cublasHandle_t h, int count, const double* y, const double* x, double* product)
{
    return cublasDdgmm(h, CUBLAS_SIDE_LEFT, count, 1, y, count, x, 1, product, count);
}

template <typename P>
P* device_copy(const std::vector<P>& host)
{
    P* device = nullptr;
    BATCH_CUBLAS_CHECK(cudaMalloc(&device, host.size() * sizeof(P)));
    BATCH_CUBLAS_CHECK(
        cudaMemcpy(device, host.data(), host.size() * sizeof(P), cudaMemcpyHostToDevice));
    return device;
}

/// Device array of the item pointers of the batch at `base` (items of n * n values).
template <typename T>
T** item_pointers(T* base, int item_stride, int num_items)
{
    std::vector<T*> host(num_items);
    for (int i = 0; i < num_items; ++i) {
        host[i] = base + static_cast<std::size_t>(i) * item_stride;
    }
    return device_copy(host);
}

}  // namespace

template <typename T>
struct CublasBatch<T>::Impl {
    cublasHandle_t handle = nullptr;
    const T* a = nullptr;
    int n = 0;
    int num_items = 0;
    T* work = nullptr;
    T** work_pointers = nullptr;
    int* pivots = nullptr;
    int* info = nullptr;
    T* last_output = nullptr;
    T** output_pointers = nullptr;

    void copy_a_to_work()
    {
        BATCH_CUBLAS_CHECK(cudaMemcpyAsync(work, a, sizeof(T) * n * n * std::size_t(num_items),
                                           cudaMemcpyDeviceToDevice));
    }
    T** pointers_of(T* output, int item_stride)
    {
        if (output != last_output) {
            BATCH_CUBLAS_CHECK(cudaFree(output_pointers));
            output_pointers = item_pointers(output, item_stride, num_items);
            last_output = output;
        }
        return output_pointers;
    }
};

template <typename T>
CublasBatch<T>::CublasBatch(const T* a, int n, int num_items) : impl_{new Impl}
{
    impl_->a = a;
    impl_->n = n;
    impl_->num_items = num_items;
    BATCH_CUBLAS_CHECK(cublasCreate(&impl_->handle));
    BATCH_CUBLAS_CHECK(cudaMalloc(&impl_->work, sizeof(T) * n * n * std::size_t(num_items)));
    BATCH_CUBLAS_CHECK(cudaMalloc(&impl_->pivots, sizeof(int) * n * std::size_t(num_items)));
    BATCH_CUBLAS_CHECK(cudaMalloc(&impl_->info, sizeof(int) * std::size_t(num_items)));
    impl_->work_pointers = item_pointers(impl_->work, n * n, num_items);
}

template <typename T>
CublasBatch<T>::~CublasBatch()
{
    cudaFree(impl_->work);
    cudaFree(impl_->work_pointers);
    cudaFree(impl_->pivots);
    cudaFree(impl_->info);
    cudaFree(impl_->output_pointers);
    cublasDestroy(impl_->handle);
}

template <typename T>
void CublasBatch<T>::getrf_getri(T* inverse)
{
    auto& s = *impl_;
    s.copy_a_to_work();
    BATCH_CUBLAS_CHECK(
        ::larch::benchmark::getrf(s.handle, s.n, s.work_pointers, s.pivots, s.info, s.num_items));
    BATCH_CUBLAS_CHECK(getri(s.handle, s.n, s.work_pointers, s.pivots, s.pointers_of(inverse, s.n * s.n),
                             s.info, s.num_items));
}

template <typename T>
void CublasBatch<T>::matinv(T* inverse)
{
    auto& s = *impl_;
    // matinv reads A only; its pointer array is the work batch's, filled with A first.
    s.copy_a_to_work();
    BATCH_CUBLAS_CHECK(
        ::larch::benchmark::matinv(s.handle, s.n, s.work_pointers, s.pointers_of(inverse, s.n * s.n), s.info,
                                   s.num_items));
}

template <typename T>
void CublasBatch<T>::getrf()
{
    auto& s = *impl_;
    s.copy_a_to_work();
    BATCH_CUBLAS_CHECK(
        ::larch::benchmark::getrf(s.handle, s.n, s.work_pointers, s.pivots, s.info, s.num_items));
}

template <typename T>
void CublasBatch<T>::getrs(T* b)
{
    auto& s = *impl_;
    // getrsBatched reports only argument errors, on the host.
    int host_info = 0;
    BATCH_CUBLAS_CHECK(::larch::benchmark::getrs(s.handle, s.n, s.work_pointers, s.pivots,
                                                 s.pointers_of(b, s.n), &host_info, s.num_items));
    if (host_info != 0) {
        throw std::runtime_error("cublas<t>getrsBatched: argument " + std::to_string(-host_info) +
                                 " is invalid");
    }
}

template <typename T>
void CublasBatch<T>::getrf_getrs(T* b)
{
    getrf();
    getrs(b);
}

template <typename T>
void CublasBatch<T>::multiply_elementwise(const T* x, const T* y, T* product, int count)
{
    BATCH_CUBLAS_CHECK(dgmm(impl_->handle, count, y, x, product));
}

template class CublasBatch<float>;
template class CublasBatch<double>;

}  // namespace benchmark
}  // namespace larch
