// Batched infinity norm of every item of a batch::Dense (Anzt et al. 2018, "Variable-size batched condition
// number calculation on GPUs").
#pragma once

#include "larch/base/array.hpp"
#include "larch/batch/dense.hpp"

namespace larch {
namespace batch {

/**
 * ||A_i||_inf = max_r sum_c |A_i(r, c)| for every item (any shape), one value per item in an array on
 * the batch's executor. Memory bound: reads every value once. Runs on reference, omp, cuda and hip.
 */
template <typename T>
array<T> compute_infinity_norms(const Dense<T>& a);

}  // namespace batch
}  // namespace larch
