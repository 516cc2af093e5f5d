// Batched matrix inversion by Gauss-Jordan elimination with implicit pivoting (Anzt et al. 2018,
// "Variable-size batched Gauss-Jordan elimination for block-Jacobi preconditioning on graphics processors").
#pragma once

#include <cstdint>

#include "larch/base/array.hpp"
#include "larch/batch/dense.hpp"

namespace larch {
namespace batch {

/**
 * inverse_i = A_i^-1 for every (square) item, by Gauss-Jordan elimination with implicit partial
 * (row) pivoting: 2 n^3 flops per item. Runs on reference, omp, cuda and hip; the GPU kernel holds an
 * item of size up to 32 in the registers of one sub-warp, larger items take the backend's fallback path.
 *
 * Returns the per-item info (on the batch's executor): 0 = success, k > 0 = step k found a zero or tiny
 * pivot (see status.hpp); the inverse of a failed item is unspecified. Singular items do not throw;
 * call throw_if_any_failed() for that.
 * Throws DimensionMismatch if an item is not square or `inverse` has other item sizes than `a`,
 * NotSupported if `inverse` lives on an executor that cannot address `a`'s memory.
 */
template <typename T>
array<std::int32_t> invert(const Dense<T>& a, Dense<T>& inverse);

/**
 * As invert(a, inverse), writing the per-item info into `info`, which is reallocated only when it does
 * not hold num_items entries on `a`'s executor. A caller that inverts batches repeatedly keeps one
 * `info` and so saves a device allocation and a free per call (on CUDA the free synchronizes the
 * device and costs about 1 ms per call at 500,000 items on an H100).
 */
template <typename T>
void invert(const Dense<T>& a, Dense<T>& inverse, array<std::int32_t>& info);

/// In-place variant: every item of `a` is replaced by its inverse. Same info and exceptions.
template <typename T>
array<std::int32_t> invert(Dense<T>& a);

}  // namespace batch
}  // namespace larch
