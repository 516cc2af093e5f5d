// What the batched dense benchmark operations (batch_invert, batch_gauss_huard, batch_condition,
// batch_infinity_norm) share: the batch shape fields, the random well-conditioned items, the copy of the
// first items to the reference executor, and the per-item error measures.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/driver/operation.hpp"
#include "larch/batch/dense.hpp"

namespace larch {
namespace benchmark {

/// The results of at most this many leading items are checked (keeps the reference runs and the
/// host-side checks cheap at 500,000 items).
constexpr long long checked_items = 1000;

/// The case fields "num_items", "size" and "max_size": a uniform batch of n x n items (size = n), or
/// (size = 0) sizes drawn uniformly from 1..max_size with a fixed seed.
struct BatchShape {
    long long num_items = 0;
    long long size = 0;
    long long max_size = 32;

    bool is_uniform() const noexcept { return size > 0; }
    /// "n=32 items=500000" or "n=1..32 items=500000".
    std::string label() const;
    json details() const;
};

/// The shape fields' names followed by an operation's own `more`, for OperationInfo::fields; and the
/// same for OperationInfo::list_fields (num_items and size may be lists). Put the fields that do not
/// change the items last: list expansion varies the last field fastest, so consecutive cases then share
/// the generated items.
std::vector<std::string> with_batch_shape_fields(std::vector<std::string> more);
std::vector<std::string> with_batch_shape_list_fields(std::vector<std::string> more);

/// Reads (and so validates) the shape fields: num_items in 1..2^26, size in 0..128 (default
/// `default_size`), max_size in 1..32 (default 32).
BatchShape read_batch_shape(const Fields& fields, long long default_size = 0);

/**
 * One batch of square items and what the checks need. The items are A = R + 2n P with R uniform in
 * [-1, 1] and P a random permutation (per item): every row and column has one dominant entry, so
 * cond_inf(A) <= 3 (||A||_inf <= 3n, ||A^-1||_inf <= 1/n), yet partial pivoting swaps rows at nearly
 * every step, as it would on general random items. Values come from a counter-based generator (the same
 * for every thread count) and are generated in parallel; the host values of the last shape and precision
 * are kept, so the consecutive cases of one list expansion (vendor routines, phases, variants) do not
 * generate them again.
 */
template <typename T>
struct BatchProblem {
    BatchShape shape;
    std::vector<dim2> sizes;
    /// Host values, items concatenated, row-major.
    std::shared_ptr<const std::vector<T>> values;
    /// The batch on the case's executor.
    std::unique_ptr<batch::Dense<T>> a;
    /// The first num_checked items on the reference executor.
    std::unique_ptr<batch::Dense<T>> reference_a;
    long long num_checked = 0;
    /// Sum over the items of n^2 (stored values) and of n^3 (for the flop models).
    double sum_n2 = 0.0;
    double sum_n3 = 0.0;
    /// Largest item order.
    long long largest = 0;
};

template <typename T>
BatchProblem<T> make_batch_problem(const CaseContext& context, const BatchShape& shape);

/// `count` values uniform in [-1, 1) from the counter-based generator (right-hand sides).
template <typename T>
std::vector<T> random_values(size_type count, std::uint64_t seed);

/// The first `count` values at `data` (memory of `exec`) copied to the host: the checks read only the
/// first items, so they need not copy a whole 4 GB batch back.
template <typename T>
std::vector<T> copy_prefix_to_host(const std::shared_ptr<const Executor>& exec, const T* data,
                                   size_type count);

/// The values of the first `num_items` items of `a` on the host.
template <typename T>
std::vector<T> copy_first_items_to_host(const batch::Dense<T>& a, long long num_items);

/**
 * max over the first `num_items` items of max|X - X_ref| / max|X_ref| (items laid out by `layout`, e.g.
 * inverses); a NaN anywhere makes it infinite.
 */
template <typename T>
double max_item_relative_error(const batch::ItemLayout& layout, long long num_items,
                               const std::vector<T>& result, const std::vector<T>& expected);

/// max_i |x_i - ref_i| / |ref_i| over the first min(sizes) entries (0 where both are the same
/// infinity); a NaN makes it infinite.
template <typename T>
double max_relative_error(const std::vector<T>& result, const std::vector<T>& expected);

/// True if `exec` is a CUDA executor (where the cuBLAS baselines run).
bool is_cuda_executor(const Executor& exec);

}  // namespace benchmark
}  // namespace larch
