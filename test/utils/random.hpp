// Random test inputs with fixed seeds: sparse matrices as matrix_data (with empty rows and explicit zeros
// on request) and dense matrices with a chosen stride. The same seed gives the same input on every
// backend and every run; tests print it with seed_trace() so a failure can be replayed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "larch/base/matrix_data.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace test {

/// A message naming the seed of a random input, for SCOPED_TRACE.
inline std::string seed_trace(std::uint32_t seed) { return "random seed " + std::to_string(seed); }

/// The shape of a random sparse matrix.
struct random_sparsity {
    size_type min_row_nnz = 0;
    size_type max_row_nnz = 5;
    /// Share of the rows left empty (whatever min_row_nnz says).
    double empty_row_fraction = 0.0;
    /// Share of the stored entries whose value is an explicit 0.
    double explicit_zero_fraction = 0.0;
};

/**
 * A random rows x cols sparse matrix: each row holds between min_row_nnz and max_row_nnz entries (at
 * most cols) in distinct random columns, values uniform in [-1, 1). Entries are sorted by row and column
 * and have no duplicates.
 */
template <typename V, typename I = std::int32_t>
matrix_data<V, I> generate_random_matrix_data(dim2 size, random_sparsity sparsity, std::uint32_t seed)
{
    std::mt19937 engine{seed};
    std::uniform_real_distribution<double> value_distribution{-1.0, 1.0};
    std::uniform_real_distribution<double> unit{0.0, 1.0};
    const auto max_row_nnz = std::min(sparsity.max_row_nnz, size.cols);
    const auto min_row_nnz = std::min(sparsity.min_row_nnz, max_row_nnz);
    std::uniform_int_distribution<size_type> nnz_distribution{min_row_nnz, max_row_nnz};
    std::vector<I> columns(size.cols);
    std::iota(columns.begin(), columns.end(), I{});
    matrix_data<V, I> data{size};
    for (size_type row = 0; row < size.rows; ++row) {
        const auto row_nnz = nnz_distribution(engine);
        if (unit(engine) < sparsity.empty_row_fraction) {
            continue;
        }
        // A partial Fisher-Yates shuffle picks row_nnz distinct columns.
        for (size_type k = 0; k < row_nnz; ++k) {
            std::uniform_int_distribution<size_type> pick{k, size.cols - 1};
            std::swap(columns[k], columns[pick(engine)]);
        }
        std::vector<I> row_columns(columns.begin(), columns.begin() + row_nnz);
        std::sort(row_columns.begin(), row_columns.end());
        for (const auto col : row_columns) {
            const auto value = unit(engine) < sparsity.explicit_zero_fraction
                                   ? V{}
                                   : static_cast<V>(value_distribution(engine));
            data.entries.push_back({static_cast<I>(row), col, value});
        }
    }
    return data;
}

/// Host values of a random rows x cols matrix, row-major, uniform in [-1, 1).
template <typename V>
std::vector<V> generate_random_values(dim2 size, std::uint32_t seed)
{
    std::mt19937 engine{seed};
    std::uniform_real_distribution<double> distribution{-1.0, 1.0};
    std::vector<V> values(size.rows * size.cols);
    for (auto& value : values) {
        value = static_cast<V>(distribution(engine));
    }
    return values;
}

/// A Dense on `exec` holding `host` (row-major, size.rows * size.cols values), with the given stride
/// (0: stride = cols); the padding of each row is filled with NaN so that a kernel reading it shows.
template <typename V>
std::unique_ptr<matrix::Dense<V>> create_dense(std::shared_ptr<const Executor> exec, dim2 size,
                                               const std::vector<V>& host, size_type stride = 0)
{
    if (stride == 0) {
        stride = size.cols;
    }
    std::vector<V> padded(size.rows * stride, std::numeric_limits<V>::quiet_NaN());
    for (size_type row = 0; row < size.rows; ++row) {
        std::copy_n(host.begin() + row * size.cols, size.cols, padded.begin() + row * stride);
    }
    return matrix::Dense<V>::create(exec, size, array<V>{exec, padded.begin(), padded.end()},
                                    stride);
}

/// A random Dense on `exec` (values uniform in [-1, 1), NaN in the padding of a stride > cols).
template <typename V>
std::unique_ptr<matrix::Dense<V>> generate_random_dense(std::shared_ptr<const Executor> exec,
                                                        dim2 size, std::uint32_t seed,
                                                        size_type stride = 0)
{
    return create_dense(std::move(exec), size, generate_random_values<V>(size, seed), stride);
}

}  // namespace test
}  // namespace larch
