// cuBLAS baselines of the batched dense benchmarks (benchmark/operations/batch_*.cpp): batched LU
// inversion (getrf + getri), matinv and LU factorization and solve (getrf, getrs) on a uniform batch of
// n x n items stored contiguously, and an elementwise product (for the composed condition numbers). Implemented in benchmark/cuda/batch_cublas.cpp, built only with CUDA
// (callers guard their use with #if LARCH_HAVE_CUDA).
#pragma once

#include <memory>

namespace larch {
namespace benchmark {

/**
 * One uniform batch set up for cuBLAS: `num_items` items of order n at `a` (device memory, contiguous,
 * n * n values each). cuBLAS reads the row-major items as their transposes, which costs the same:
 * the inverse of A^T written column-major is A^-1 row-major, and getrs solves with the transposed factors
 * to get A's own solution. getrf works in place, so each getrf call first copies `a` into
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
    /// Factorizes a copy of A by getrfBatched (the factors stay in the work batch for getrs).
    void getrf();
    /// Solves A_i x_i = b_i for `b` (device, n values per item, one right-hand side) in place by
    /// getrsBatched on the factors of the last getrf(). The work batch holds the LU factors of A^T (see
    /// above), so this solves with op = transpose, which is A's own system: x compares directly with
    /// larch's solution of the row-major items.
    void getrs(T* b);
    /// getrf(), then getrs(b).
    void getrf_getrs(T* b);
    /// product_i = x_i * y_i for `count` device values, by cublas<t>dgmm (diag(x) times the column y).
    void multiply_elementwise(const T* x, const T* y, T* product, int count);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace benchmark
}  // namespace larch
