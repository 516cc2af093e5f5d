// cuSPARSE baselines of the batch_spmv benchmark (benchmark/operations/batch_spmv.cpp): SpMV of single
// CSR matrices (for a loop over the items, or the block-diagonal join of a batch as one matrix) and the
// strided-batch SpMM of a uniform batch. Implemented in benchmark/cuda/batch_cusparse.cpp, built only
// with CUDA (callers guard their use with #if LARCH_HAVE_CUDA).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace larch {
namespace benchmark {

/// A CSR matrix in device memory (0-based, 32-bit indices) as cuSPARSE reads it.
template <typename T>
struct DeviceCsr {
    std::int64_t rows;
    std::int64_t cols;
    std::int64_t nonzeros;
    const std::int32_t* row_ptrs;
    const std::int32_t* col_idxs;
    const T* values;
};

/**
 * x = A b by cusparseSpMV (CUSPARSE_SPMV_ALG_DEFAULT) for a list of matrices, each with its own b and
 * x (device pointers), on one handle; descriptors and work buffers are set up in add(), so run() times
 * the calls only. One matrix: the block-diagonal join; many: the loop over the items.
 */
template <typename T>
class CusparseSpmvList {
public:
    CusparseSpmvList();
    ~CusparseSpmvList();
    CusparseSpmvList(const CusparseSpmvList&) = delete;
    CusparseSpmvList& operator=(const CusparseSpmvList&) = delete;

    void add(const DeviceCsr<T>& a, const T* b, T* x);
    /// One cusparseSpMV per added matrix, in order, on the default stream.
    void run();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/**
 * X_i = A_i B_i for a uniform batch by cusparseSpMM with strided batches (cusparseCsrSetStridedBatch):
 * item i's row pointers at `item.row_ptrs` (shared, stride 0), its column indices and values at
 * item.col_idxs / item.values + i * nonzeros, b_i and x_i at b + i * cols and x + i * rows (one column).
 */
template <typename T>
class CusparseStridedSpmm {
public:
    CusparseStridedSpmm(const DeviceCsr<T>& item, int num_items, const T* b, T* x);
    ~CusparseStridedSpmm();
    CusparseStridedSpmm(const CusparseStridedSpmm&) = delete;
    CusparseStridedSpmm& operator=(const CusparseStridedSpmm&) = delete;

    void run();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace benchmark
}  // namespace larch
