// The per-row and per-block routines of block-Jacobi on raw pointers, shared by the reference and OpenMP
// kernels (the reference runs them in sequence, OpenMP over rows or blocks in parallel).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/batch/dense_item_algorithms.hpp"
#include "core/matrix/csr_row_pattern.hpp"
#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "core/preconditioner/block_jacobi_rules.hpp"
#include "larch/base/half.hpp"

namespace larch {
namespace kernels {
namespace block_jacobi_item {

/**
 * Supervariable blocking from the supervariable starts (starts[row] != 0 where a supervariable begins): the
 * greedy agglomeration of block_jacobi_rules, in row order. block_pointers (num_rows + 1 entries) receives
 * the blocks' row offsets; returns the number of blocks, and the most rows of a block in largest_block.
 */
template <typename I>
size_type agglomerate_supervariables(const std::uint8_t* starts, size_type num_rows, size_type bound,
                                     I* block_pointers, size_type& largest_block)
{
    size_type num_blocks = 0;
    block_pointers[0] = 0;
    int open_rows = 0;
    size_type row = 0;
    while (row < num_rows) {
        size_type end = row + 1;
        while (end < num_rows && starts[end] == 0) {
            ++end;
        }
        for (auto piece = row; piece < end; piece += bound) {
            const auto rows = block_jacobi_rules::piece_rows_at(static_cast<std::int64_t>(piece - row),
                                                                static_cast<std::int64_t>(end - piece),
                                                                static_cast<int>(bound));
            if (block_jacobi_rules::take_piece(open_rows, rows, static_cast<int>(bound))) {
                block_pointers[++num_blocks] = static_cast<I>(piece);
            }
        }
        row = end;
    }
    if (num_rows > 0) {
        block_pointers[++num_blocks] = static_cast<I>(num_rows);
    }
    largest_block = 0;
    for (size_type block = 0; block < num_blocks; ++block) {
        largest_block = std::max(largest_block, static_cast<size_type>(block_pointers[block + 1] - block_pointers[block]));
    }
    return num_blocks;
}

/**
 * Cuts every block of several rows that `split(block)` names in halves (the first half n / 2 rows), as
 * block-Jacobi does with a singular block: `pointers` (the blocks' row offsets, num_blocks + 1 entries)
 * receives the refined offsets. Returns how many blocks were cut.
 */
template <typename P, typename Split>
size_type split_in_halves(std::vector<P>& pointers, Split&& split)
{
    std::vector<P> refined{pointers.front()};
    size_type cut = 0;
    for (size_type block = 0; block + 1 < pointers.size(); ++block) {
        const auto n = pointers[block + 1] - pointers[block];
        if (n > 1 && split(block)) {
            refined.push_back(static_cast<P>(pointers[block] + n / 2));
            ++cut;
        }
        refined.push_back(pointers[block + 1]);
    }
    pointers = std::move(refined);
    return cut;
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

/// Block b of generate_inverse_blocks: its inverse column-major in V at storage + byte_offsets[b], with
/// cond, info and the inverse's infinity norm. block, inverse and work are scratch.
template <typename V, typename I>
void generate_inverse_block(const matrix::Csr<V, I>& a, size_type b, const array<I>& block_pointers,
                            const array<std::int64_t>& byte_offsets, array<std::uint8_t>& storage, array<V>& cond,
                            array<std::int32_t>& info, array<V>& norms, std::vector<V>& block,
                            std::vector<V>& inverse, std::vector<V>& work)
{
    const auto first = block_pointers.get_const_data()[b];
    const auto n = block_pointers.get_const_data()[b + 1] - first;
    const auto size = static_cast<size_type>(n);
    inverse.resize(size * size);
    info.get_data()[b] = invert_block(a.get_const_row_ptrs(), a.get_const_col_idxs(), a.get_const_values(), first, n,
                                      inverse.data(), cond.get_data()[b], block, work);
    norms.get_data()[b] = batch::item::infinity_norm(size, size, inverse.data());
    store_values(inverse.data(), size * size, block_jacobi_rules::working_precision<V>(),
                 storage.get_data() + byte_offsets.get_const_data()[b], true, size, work);
}

/// Block b of generate_factorized_blocks: cond and inversion info as generate_inverse_block, then the
/// Gauss-Huard factors row-major in V at storage + byte_offsets[b] (only if the factorization succeeds) and
/// the pivots at pivots[first row + k], the factors' infinity norm in norms[b]. block, inverse and work are
/// scratch.
template <typename V, typename I>
void generate_factorized_block(const matrix::Csr<V, I>& a, size_type b, const array<I>& block_pointers,
                               bool transposed, const array<std::int64_t>& byte_offsets, array<std::uint8_t>& storage,
                               array<std::int32_t>& pivots, array<V>& cond, array<std::int32_t>& inversion_info,
                               array<std::int32_t>& factorization_info, array<V>& norms, std::vector<V>& block,
                               std::vector<V>& inverse, std::vector<V>& work)
{
    const auto first = block_pointers.get_const_data()[b];
    const auto n = block_pointers.get_const_data()[b + 1] - first;
    const auto size = static_cast<size_type>(n);
    inverse.resize(size * size);
    // invert_block leaves the extracted block in `block`, which is then factorized in place
    inversion_info.get_data()[b] = invert_block(a.get_const_row_ptrs(), a.get_const_col_idxs(), a.get_const_values(),
                                                first, n, inverse.data(), cond.get_data()[b], block, work);
    const auto info =
        batch::item::gauss_huard_factorize(size, block.data(), pivots.get_data() + first, transposed, work);
    factorization_info.get_data()[b] = info;
    norms.get_data()[b] = batch::item::infinity_norm(size, size, block.data());
    if (info == 0) {
        store_values(block.data(), size * size, block_jacobi_rules::working_precision<V>(),
                     storage.get_data() + byte_offsets.get_const_data()[b]);
    }
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

/// The kind and precision of block b (classify_blocks) from the generation's per-block results.
template <typename V, typename I>
block_jacobi_rules::BlockChoice choose_block_storage(size_type b, const I* block_pointers, const array<V>& cond,
                                                     const array<std::int32_t>& inversion_info,
                                                     const array<std::int32_t>& factorization_info,
                                                     const array<V>& norms, std::uint8_t block_kind, bool adaptive,
                                                     double accuracy)
{
    const bool failed = inversion_info.get_const_data()[b] != 0 ||
                        (factorization_info.get_size() > 0 && factorization_info.get_const_data()[b] != 0);
    return block_jacobi_rules::choose_storage<V>(block_pointers[b + 1] - block_pointers[b],
                                                 static_cast<double>(cond.get_const_data()[b]), failed,
                                                 static_cast<double>(norms.get_const_data()[b]), block_kind,
                                                 adaptive, accuracy);
}

/// Bytes of block b (compute_block_bytes): in its kind and precision, or n x n in V if kinds is empty.
template <typename V, typename I, typename Index>
std::int64_t block_bytes(Index b, const I* block_pointers, const array<std::uint8_t>& kinds,
                         const array<std::uint8_t>& precisions)
{
    const std::int64_t n = block_pointers[b + 1] - block_pointers[b];
    if (kinds.get_size() == 0) {
        return block_jacobi_rules::stored_block_bytes(n, block_jacobi_storage::inverse,
                                                      block_jacobi_rules::working_precision<V>());
    }
    return block_jacobi_rules::stored_block_bytes(n, kinds.get_const_data()[b], precisions.get_const_data()[b]);
}

/// Block b of restore_blocks: from working precision to its own (a diagonal block: its D^{-1} rows).
template <typename V, typename I>
void restore_block(size_type b, const array<std::uint8_t>& working, const array<std::int64_t>& working_offsets,
                   const array<V>& inverse_diagonal, const array<I>& block_pointers,
                   const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                   const array<std::int64_t>& byte_offsets, array<std::uint8_t>& storage, std::vector<V>& values)
{
    const auto first = static_cast<size_type>(block_pointers.get_const_data()[b]);
    const auto n = static_cast<size_type>(block_pointers.get_const_data()[b + 1]) - first;
    std::uint8_t* destination = storage.get_data() + byte_offsets.get_const_data()[b];
    const auto precision = precisions.get_const_data()[b];
    if (kinds.get_const_data()[b] == block_jacobi_storage::diagonal) {
        store_values(inverse_diagonal.get_const_data() + first, n, precision, destination);
        return;
    }
    values.resize(n * n);
    load_values(working.get_const_data() + working_offsets.get_const_data()[b], n * n,
                block_jacobi_rules::working_precision<V>(), values.data());
    store_values(values.data(), n * n, precision, destination);
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
