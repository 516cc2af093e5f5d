// What the block-Jacobi tests check an applied preconditioner with: the blocked rows (P A with row matching),
// the per-block residual oracle, the apply on the host, and the comparison of an executor with the reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "larch/preconditioner/block_jacobi.hpp"

namespace block_jacobi_checks {

using larch::preconditioner::BlockPrecision;
using Jacobi = larch::preconditioner::BlockJacobi<double>;
using Csr = larch::matrix::Csr<double>;
using Dense = larch::matrix::Dense<double>;
using Data = larch::matrix_data<double, std::int32_t>;

/// The rows of `data` in the order the preconditioner blocks them: row k is row permutation[k] of A (P A), or
/// A itself for an empty permutation (no row matching).
inline Data rows_as_blocked(const Data& data, const std::vector<std::int32_t>& permutation)
{
    if (permutation.empty()) {
        return data;
    }
    std::vector<std::int32_t> position_of_row(data.size.rows);
    for (std::size_t k = 0; k < permutation.size(); ++k) {
        position_of_row[permutation[k]] = static_cast<std::int32_t>(k);
    }
    Data permuted{data.size, {}};
    for (auto entry : data.entries) {
        entry.row = position_of_row[entry.row];
        permuted.entries.push_back(entry);
    }
    return permuted;
}

/// b in the order of rows_as_blocked: P b.
inline std::vector<double> gathered(const std::vector<double>& b, const std::vector<std::int32_t>& permutation)
{
    if (permutation.empty()) {
        return b;
    }
    std::vector<double> result(b.size());
    for (std::size_t k = 0; k < permutation.size(); ++k) {
        result[k] = b[permutation[k]];
    }
    return result;
}

/// Per block b, ||A_bb x_b - b_b||_inf / (||A_bb||_inf ||x_b||_inf + ||b_b||_inf): the oracle of an applied
/// block (one right-hand side), with the block pointers of the preconditioner. One pass over the entries.
inline std::vector<double> block_residuals(const Data& data, const std::vector<std::int32_t>& pointers,
                                    const std::vector<double>& b, const std::vector<double>& x)
{
    std::vector<std::size_t> block_of_row(data.size.rows);
    for (std::size_t block = 0; block + 1 < pointers.size(); ++block) {
        std::fill(block_of_row.begin() + pointers[block], block_of_row.begin() + pointers[block + 1], block);
    }
    std::vector<double> residual(b);
    std::vector<double> row_norms(data.size.rows, 0.0);
    for (const auto& entry : data.entries) {
        if (block_of_row[entry.row] == block_of_row[entry.col]) {
            residual[entry.row] -= entry.value * x[entry.col];
            row_norms[entry.row] += std::abs(entry.value);
        }
    }
    std::vector<double> result(pointers.size() - 1);
    for (std::size_t block = 0; block + 1 < pointers.size(); ++block) {
        double residual_norm = 0;
        double x_norm = 0;
        double b_norm = 0;
        double a_norm = 0;
        for (auto i = pointers[block]; i < pointers[block + 1]; ++i) {
            residual_norm = std::max(residual_norm, std::abs(residual[i]));
            x_norm = std::max(x_norm, std::abs(x[i]));
            b_norm = std::max(b_norm, std::abs(b[i]));
            a_norm = std::max(a_norm, row_norms[i]);
        }
        result[block] = residual_norm / (a_norm * x_norm + b_norm);
    }
    return result;
}

inline std::vector<double> apply_to(const Jacobi& jacobi, const std::vector<double>& b_values)
{
    const auto exec = jacobi.get_executor();
    const auto n = b_values.size();
    auto b = Dense::create(exec, larch::dim2{n, 1},
                           larch::array<double>{exec, b_values.begin(), b_values.end()}, 1);
    auto x = Dense::create(exec, larch::dim2{n, 1});
    x->fill(std::numeric_limits<double>::quiet_NaN());  // x = M^-1 b only writes x
    jacobi.apply(b, x);
    return x->copy_to_host();
}

inline double unit_roundoff(BlockPrecision precision)
{
    return precision == BlockPrecision::double_precision   ? 0x1p-53
           : precision == BlockPrecision::single_precision ? 0x1p-24
                                                           : 0x1p-11;
}

/// The scaled apply to three columns (b, -2 b, b / 4) against the plain apply `m_b` = M^-1 b: X = 2 M^-1 B - X0.
/// The column factors are powers of two, so on the CPU backends, which sum every column in the same order, the
/// columns equal the one-column result exactly.
inline void check_scaled_columns(const Jacobi& jacobi, const std::vector<double>& b, const std::vector<double>& m_b)
{
    const auto exec = jacobi.get_executor();
    const auto n = b.size();
    const double factors[3] = {1.0, -2.0, 0.25};
    std::vector<double> b_columns(3 * n), x_columns(3 * n);
    for (larch::size_type i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            b_columns[3 * i + k] = factors[k] * b[i];
            x_columns[3 * i + k] = 1.0 + k + static_cast<double>(i % 5);
        }
    }
    auto b_dense = Dense::create(exec, larch::dim2{n, 3}, larch::array<double>{exec, b_columns.begin(), b_columns.end()}, 3);
    auto x_dense = Dense::create(exec, larch::dim2{n, 3}, larch::array<double>{exec, x_columns.begin(), x_columns.end()}, 3);
    jacobi.apply(2.0, b_dense, -1.0, x_dense);
    const auto x = x_dense->copy_to_host();
    for (larch::size_type i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            ASSERT_EQ(x[3 * i + k], 2.0 * (factors[k] * m_b[i]) - x_columns[3 * i + k]) << "row " << i << ", column " << k;
        }
    }
}

/// Generates on `exec` and on reference and checks: identical blocks and singular blocks, the applied results
/// equal within the blocks' conditioning, no NaN, and every regular block's residual small.
inline void check_against_reference(const std::shared_ptr<const larch::Executor>& exec, const Data& data,
                             Jacobi::parameters_type parameters, const std::string& name)
{
    SCOPED_TRACE(name);
    auto reference = larch::make_executor("reference");
    auto expected = parameters.on(reference)->generate(larch::share(Csr::create(reference, data)));
    auto actual = parameters.on(exec)->generate(larch::share(Csr::create(exec, data)));
    ASSERT_EQ(actual->get_row_permutation(), expected->get_row_permutation());
    ASSERT_EQ(actual->get_detected_block_pointers(), expected->get_detected_block_pointers());
    std::vector<double> b(data.size.rows);
    for (size_t i = 0; i < b.size(); ++i) {
        b[i] = 1.0 + static_cast<double>(i % 7) / 7;
    }
    const auto x = apply_to(*actual, b);
    const auto x_expected = apply_to(*expected, b);
    check_scaled_columns(*expected, b, x_expected);
    if (exec->is_host()) {
        check_scaled_columns(*actual, b, x);
    }
    // the blocks are those of P A, applied to P b, when the rows were matched
    const auto blocked = rows_as_blocked(data, expected->get_row_permutation());
    const auto blocked_b = gathered(b, expected->get_row_permutation());
    if (actual->get_block_pointers() != expected->get_block_pointers()) {
        // A block whose condition number lies within rounding of the singular bound 1 / (n eps) may be split
        // on one backend and not on the other (their pivots differ among near-ties); then each backend's
        // blocks are checked against the matrix itself instead of against each other.
        std::cout << name << ": " << exec->get_name() << " split " << actual->get_num_split_blocks()
                  << " blocks, reference " << expected->get_num_split_blocks() << "\n";
        const auto& pointers = actual->get_block_pointers();
        const auto& cond = actual->get_condition_numbers();
        const auto residuals = block_residuals(blocked, pointers, blocked_b, x);
        for (larch::size_type block = 0; block + 1 < pointers.size(); ++block) {
            for (auto i = pointers[block]; i < pointers[block + 1]; ++i) {
                ASSERT_TRUE(std::isfinite(x[i])) << "row " << i;
            }
            if (std::isfinite(cond[block])) {
                const double n = pointers[block + 1] - pointers[block];
                const double u = unit_roundoff(actual->get_block_precisions()[block]);
                EXPECT_LE(residuals[block], 64 * n * u * std::max(1.0, cond[block]))
                    << "block " << block;
            }
        }
        return;
    }
    EXPECT_EQ(actual->get_singular_blocks(), expected->get_singular_blocks());
    const auto& pointers = expected->get_block_pointers();
    const auto& singular = expected->get_singular_blocks();
    const auto& cond = expected->get_condition_numbers();
    const auto residuals = block_residuals(blocked, pointers, blocked_b, x);
    for (larch::size_type block = 0; block + 1 < pointers.size(); ++block) {
        const bool is_singular = std::find(singular.begin(), singular.end(), block) != singular.end();
        double difference = 0;
        double scale = 0;
        for (auto i = pointers[block]; i < pointers[block + 1]; ++i) {
            ASSERT_TRUE(std::isfinite(x[i])) << "row " << i;
            difference = std::max(difference, std::abs(x[i] - x_expected[i]));
            scale = std::max(scale, std::abs(x_expected[i]));
        }
        if (is_singular) {
            EXPECT_EQ(difference, 0.0) << "fallback block " << block;  // both b_i / a_ii
            continue;
        }
        // Two backward-stable inversions differ by about n u cond, with u the unit roundoff of the block's
        // storage precision (rounding the stored values dominates for float and half); the GPU may pivot
        // differently among near-ties, so the bound carries a factor 64 on top.
        const double n = pointers[block + 1] - pointers[block];
        const double u = unit_roundoff(expected->get_block_precisions()[block]);
        EXPECT_LE(difference, 64 * n * u * std::max(1.0, cond[block]) * scale) << "block " << block;
        // the residual of a backward-stable solve is a few n u (relative, normwise); the bound scales
        // with the block's condition number because the stored inverse is applied, not a solve
        EXPECT_LE(residuals[block], 64 * n * u * std::max(1.0, cond[block]))
            << "block " << block;
    }
}

}  // namespace block_jacobi_checks
