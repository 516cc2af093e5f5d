// The per-row and per-block routines of block-Jacobi on raw pointers, shared by the reference and OpenMP
// kernels (the reference runs them in sequence, OpenMP over rows or blocks in parallel).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/batch/dense_item_algorithms.hpp"
#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "larch/base/half.hpp"

namespace larch {
namespace kernels {
namespace block_jacobi_item {

/// True if row `row` (> 0) has the same column pattern as row `row - 1`.
template <typename I>
bool same_pattern_as_previous(const I* row_ptrs, const I* col_idxs, size_type row)
{
    const auto length = row_ptrs[row + 1] - row_ptrs[row];
    if (length != row_ptrs[row] - row_ptrs[row - 1]) {
        return false;
    }
    for (I k = 0; k < length; ++k) {
        if (col_idxs[row_ptrs[row] + k] != col_idxs[row_ptrs[row - 1] + k]) {
            return false;
        }
    }
    return true;
}

/// Writes A(first..first+n, first..first+n) row-major into `block` (n * n entries, zeros where A has none).
template <typename V, typename I>
void extract_block(const I* row_ptrs, const I* col_idxs, const V* values, I first, I n, V* block)
{
    for (I r = 0; r < n; ++r) {
        for (I c = 0; c < n; ++c) {
            block[r * n + c] = V{};
        }
        // columns are sorted: start at the block's first column, stop past its last (a dense row costs
        // log(length) + n, not its length)
        const auto row_end = col_idxs + row_ptrs[first + r + 1];
        for (auto col_it = std::lower_bound(col_idxs + row_ptrs[first + r], row_end, first);
             col_it != row_end && *col_it - first < n; ++col_it) {
            block[r * n + (*col_it - first)] += values[col_it - col_idxs];
        }
    }
}

/// Extracts the block of rows first..first+n into `block` and writes its Gauss-Jordan inverse to `inverse`,
/// returning info; cond receives the condition number, exactly as the reference CondEstimator computes it.
template <typename V, typename I>
std::int32_t invert_block(const I* row_ptrs, const I* col_idxs, const V* values, I first, I n, V* inverse,
                          V& cond, std::vector<V>& block, std::vector<V>& work)
{
    const auto size = static_cast<size_type>(n);
    block.resize(size * size);
    extract_block(row_ptrs, col_idxs, values, first, n, block.data());
    const V norm = batch::item::infinity_norm(size, size, block.data());
    const auto info = batch::item::invert(size, block.data(), inverse, work);
    cond = batch::item::condition_number(norm, batch::item::infinity_norm(size, size, inverse), info);
    return info;
}

/// Stores `count` values of V at `destination` in the precision `precision`.
template <typename V>
void store_values(const V* values, size_type count, std::uint8_t precision, std::uint8_t* destination)
{
    for (size_type i = 0; i < count; ++i) {
        if (precision == block_jacobi_storage::double_precision) {
            const auto value = static_cast<double>(values[i]);
            std::memcpy(destination + i * sizeof value, &value, sizeof value);
        } else if (precision == block_jacobi_storage::single_precision) {
            const auto value = static_cast<float>(values[i]);
            std::memcpy(destination + i * sizeof value, &value, sizeof value);
        } else {
            const auto value = to_half(static_cast<float>(values[i]));
            std::memcpy(destination + i * sizeof value, &value, sizeof value);
        }
    }
}

/// Stores `count` values of V at `destination` in the precision `precision`; with `transpose` the values are an
/// n x n row-major block (count = n * n) stored column-major.
template <typename V>
void store_values(const V* values, size_type count, std::uint8_t precision, std::uint8_t* destination,
                  bool transpose, size_type n, std::vector<V>& work)
{
    if (!transpose) {
        store_values(values, count, precision, destination);
        return;
    }
    work.resize(count);
    for (size_type r = 0; r < n; ++r) {
        for (size_type c = 0; c < n; ++c) {
            work[c * n + r] = values[r * n + c];
        }
    }
    store_values(work.data(), count, precision, destination);
}

/// Reads `count` values stored in `precision` at `source` into V.
template <typename V>
void load_values(const std::uint8_t* source, size_type count, std::uint8_t precision, V* values)
{
    for (size_type i = 0; i < count; ++i) {
        if (precision == block_jacobi_storage::double_precision) {
            double value;
            std::memcpy(&value, source + i * sizeof value, sizeof value);
            values[i] = static_cast<V>(value);
        } else if (precision == block_jacobi_storage::single_precision) {
            float value;
            std::memcpy(&value, source + i * sizeof value, sizeof value);
            values[i] = static_cast<V>(value);
        } else {
            half value;
            std::memcpy(&value, source + i * sizeof value, sizeof value);
            values[i] = static_cast<V>(to_float(value));
        }
    }
}

/**
 * x_b = alpha * D_b^{-1} b_b + beta * x_b for one block of n rows whose stored values start at `stored`;
 * b_b and x_b are the block's rows of b and x (row strides given). `work` is scratch.
 */
template <typename V>
void apply_block(std::uint8_t kind, std::uint8_t precision, size_type n, const std::uint8_t* stored,
                 const std::int32_t* pivots, size_type num_cols, V alpha, const V* b, size_type b_stride,
                 V beta, V* x, size_type x_stride, std::vector<V>& work)
{
    const auto num_values = kind == block_jacobi_storage::diagonal ? n : n * n;
    work.resize(num_values + 2 * n * num_cols + n);
    V* block = work.data();
    V* segment = block + num_values;
    V* result = segment + n * num_cols;
    load_values(stored, num_values, precision, block);
    for (size_type r = 0; r < n; ++r) {
        for (size_type col = 0; col < num_cols; ++col) {
            segment[r * num_cols + col] = b[r * b_stride + col];
        }
    }
    if (kind == block_jacobi_storage::inverse) {
        // the inverse is stored column-major: transpose it back in place
        for (size_type r = 0; r < n; ++r) {
            for (size_type c = r + 1; c < n; ++c) {
                std::swap(block[r * n + c], block[c * n + r]);
            }
        }
        batch::item::apply(n, n, block, num_cols, segment, result);
    } else if (kind == block_jacobi_storage::diagonal) {
        for (size_type r = 0; r < n; ++r) {
            for (size_type col = 0; col < num_cols; ++col) {
                result[r * num_cols + col] = block[r] * segment[r * num_cols + col];
            }
        }
    } else {
        std::vector<V> solve_work;
        batch::item::gauss_huard_solve(n, block, pivots, kind == block_jacobi_storage::gauss_huard_transposed,
                                            num_cols, segment, result, solve_work);
    }
    for (size_type r = 0; r < n; ++r) {
        for (size_type col = 0; col < num_cols; ++col) {
            const auto scaled = alpha * result[r * num_cols + col];
            auto& out = x[r * x_stride + col];
            out = beta == V{} ? scaled : scaled + beta * out;
        }
    }
}

}  // namespace block_jacobi_item
}  // namespace kernels
}  // namespace larch
