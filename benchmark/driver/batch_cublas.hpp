// cuBLAS baselines of the batched dense benchmarks (benchmark/operations/batch_dense.cpp): batched LU
// inversion (getrf + getri), matinv and LU solve (getrf + getrs) on a uniform batch of n x n items stored
// contiguously. Implemented in benchmark/cuda/batch_cublas.cpp, built only with CUDA
// (callers guard their use with #if LARCH_HAVE_CUDA).
#pragma once

#include <memory>

namespace larch {
namespace benchmark {

/**
 * One uniform batch set up for cuBLAS: `num_items` items of order n at `a` (device memory, contiguous,
 * n * n values each). cuBLAS reads the row-major items as their transposes, which costs the same and
 * inverts / solves the transposed systems. getrf works in place, so each getrf call first copies `a` into
 * a work batch (a device-to-device copy of the batch that the measured time includes).
 */
template <typename T>
class CublasBatch {
public:
    CublasBatch(const T* a, int n, int num_items);
    ~CublasBatch();
    CublasBatch(const CublasBatch&) = delete;
    CublasBatch& operator=(const CublasBatch&) = delete;

    /// inverse (device, like `a`) = A^-1 by cublas<t>getrfBatched + cublas<t>getriBatched.
    void getrf_getri(T* inverse);
    /// inverse = A^-1 by cublas<t>matinvBatched (n <= 32).
    void matinv(T* inverse);
    /// Factorizes by getrfBatched, then solves for `b` (device, n values per item) in place by getrsBatched.
    void getrf_getrs(T* b);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace benchmark
}  // namespace larch
