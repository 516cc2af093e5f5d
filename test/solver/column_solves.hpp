// For the tests of solvers that iterate several right-hand sides together: solving the columns of a block
// in one apply against solving each column alone.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace test {

/// How a column solved in a block must match its solve alone.
enum class ColumnMatch {
    /// the same x bit for bit (NaN for NaN), iterations, restarts, reason and message: executors whose
    /// products and reductions treat each column as a column alone (reference, omp)
    bitwise,
    /// the same reason, iterations within 10% (at least 2), x within 1e-6 of the largest |x| alone: a GPU
    /// reduces a block's columns with another grid than a single column, so their roundings differ
    close
};

/// Solves the columns together and each alone with `solver` and expects them to match as `match` says;
/// returns the statuses of the block solve.
inline std::vector<stop::Status> expect_columns_as_alone(const std::shared_ptr<const Executor>& exec,
                                                         solver::IterativeSolver<double>& solver,
                                                         const std::vector<std::vector<double>>& b_columns,
                                                         const std::vector<std::vector<double>>& x_columns,
                                                         ColumnMatch match = ColumnMatch::bitwise)
{
    using Dense = matrix::Dense<double>;
    const auto n = b_columns.front().size();
    const auto cols = b_columns.size();
    auto block = [&](const std::vector<std::vector<double>>& columns) {
        auto result = Dense::create(exec->get_host(), dim2{n, cols});
        for (size_type row = 0; row < n; ++row) {
            for (size_type col = 0; col < cols; ++col) {
                result->get_values()[row * result->get_stride() + col] = columns[col][row];
            }
        }
        return result->clone_dense(exec);
    };
    auto b = block(b_columns);
    auto x = block(x_columns);
    solver.apply(b, x);
    const auto statuses = solver.get_statuses();
    EXPECT_EQ(statuses.size(), cols);
    const auto x_host = x->clone_dense(exec->get_host());
    for (size_type col = 0; col < cols && col < statuses.size(); ++col) {
        SCOPED_TRACE("column " + std::to_string(col));
        auto b_alone = Dense::create(exec, b_columns[col]);
        auto x_alone = Dense::create(exec, x_columns[col]);
        solver.apply(b_alone, x_alone);
        const auto alone = solver.get_status();
        const auto alone_host = x_alone->copy_to_host();
        EXPECT_EQ(statuses[col].reason, alone.reason);
        if (match == ColumnMatch::close) {
            const auto slack = std::max<double>(2, 0.1 * static_cast<double>(alone.iterations));
            EXPECT_NEAR(static_cast<double>(statuses[col].iterations), static_cast<double>(alone.iterations), slack);
            double largest = 0;
            for (const auto value : alone_host) {
                largest = std::max(largest, std::abs(value));
            }
            for (size_type row = 0; row < n; ++row) {
                if (std::isfinite(alone_host[row])) {
                    EXPECT_NEAR(x_host->at(row, col), alone_host[row], 1e-6 * largest) << "row " << row;
                }
            }
            continue;
        }
        EXPECT_EQ(statuses[col].message, alone.message);
        EXPECT_EQ(statuses[col].iterations, alone.iterations);
        EXPECT_EQ(statuses[col].residual_replacements, alone.residual_replacements);
        for (size_type row = 0; row < n; ++row) {
            const auto value = x_host->at(row, col);
            if (std::isnan(alone_host[row])) {
                EXPECT_TRUE(std::isnan(value)) << "row " << row;
            } else {
                EXPECT_EQ(value, alone_host[row]) << "row " << row;
            }
        }
    }
    return statuses;
}

/// The match the executor `name` promises (see ColumnMatch).
inline ColumnMatch column_match_of(const std::string& name)
{
    return name == "reference" || name == "omp" ? ColumnMatch::bitwise : ColumnMatch::close;
}

/// Five right-hand sides and initial guesses of n rows that stop differently: 0 smooth, 1 rough from a
/// nonzero guess (converges later), 2 zero, 3 NaN in b, 4 NaN in the initial guess.
struct MixedColumns {
    std::vector<std::vector<double>> b;
    std::vector<std::vector<double>> x;
};

inline MixedColumns mixed_columns(size_type n)
{
    const auto nan = std::numeric_limits<double>::quiet_NaN();
    MixedColumns columns{std::vector<std::vector<double>>(5, std::vector<double>(n, 0.0)),
                         std::vector<std::vector<double>>(5, std::vector<double>(n, 0.0))};
    for (size_type row = 0; row < n; ++row) {
        columns.b[0][row] = 1.0;
        columns.b[1][row] = std::sin(0.7 * static_cast<double>(row * row));
        columns.b[3][row] = 1.0;
        columns.b[4][row] = 1.0;
        columns.x[1][row] = 0.5;
    }
    columns.b[3][17] = nan;
    columns.x[4][5] = nan;
    return columns;
}

/// The statuses mixed_columns() must end with: 0 and 1 converged after different counts (more than 10 for
/// 0), 2 converged at iteration 0, 3 and 4 non-finite.
inline void expect_mixed_column_statuses(const std::vector<stop::Status>& statuses)
{
    ASSERT_EQ(statuses.size(), 5u);
    EXPECT_EQ(statuses[0].reason, stop::Reason::converged) << statuses[0].message;
    EXPECT_EQ(statuses[1].reason, stop::Reason::converged) << statuses[1].message;
    EXPECT_GT(statuses[0].iterations, 10u);
    EXPECT_NE(statuses[0].iterations, statuses[1].iterations);
    EXPECT_EQ(statuses[2].reason, stop::Reason::converged);
    EXPECT_EQ(statuses[2].iterations, 0u);
    EXPECT_EQ(statuses[3].reason, stop::Reason::non_finite);
    EXPECT_EQ(statuses[4].reason, stop::Reason::non_finite);
}

/// mixed_columns() for `solver`'s size solved in one block and each column alone on the executor named
/// `executor_name`: each column matches as column_match_of says and ends as expect_mixed_column_statuses
/// says; returns the statuses of the block solve.
inline std::vector<stop::Status> expect_mixed_columns_as_alone(const std::shared_ptr<const Executor>& exec,
                                                               solver::IterativeSolver<double>& solver,
                                                               const std::string& executor_name)
{
    const auto columns = mixed_columns(solver.get_size().rows);
    const auto statuses = expect_columns_as_alone(exec, solver, columns.b, columns.x, column_match_of(executor_name));
    expect_mixed_column_statuses(statuses);
    return statuses;
}

/// The n x n matrix with these rows (host vectors), on `exec`.
inline std::shared_ptr<const LinOp> dense_of_rows(const std::shared_ptr<const Executor>& exec,
                                                  const std::vector<std::vector<double>>& rows)
{
    const auto n = rows.size();
    auto host = matrix::Dense<double>::create(exec->get_host(), dim2{n, n});
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            host->get_values()[i * host->get_stride() + j] = rows[i][j];
        }
    }
    return share(host->clone_dense(exec));
}

/// A vector of n zeros except the given (row, value) entries.
inline std::vector<double> sparse_column(size_type n, const std::vector<std::pair<size_type, double>>& entries)
{
    std::vector<double> b(n, 0.0);
    for (const auto& [row, value] : entries) {
        b[row] = value;
    }
    return b;
}

}  // namespace test
}  // namespace larch
