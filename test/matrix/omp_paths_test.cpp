// The omp kernels pick a path by size (serial below 32,768 rows or stored entries, parallel from there on) and
// by layout (flat loops where the operands have no gaps, a loop over each row's columns otherwise): on every
// path, and on 1 and 3 threads, the element-wise Dense operations, the Csr SpMV and the scalar Jacobi apply
// give the reference executor's values bit for bit (the same arithmetic per entry, in the same order).
#include <gtest/gtest.h>

#include <omp.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/preconditioner/block_jacobi.hpp"
#include "test/utils/random.hpp"

namespace {

using larch::dim2;
using larch::size_type;
using Dense = larch::matrix::Dense<double>;

/// Runs `check(threads)` with omp_set_num_threads(threads) for 1 and 3 threads, restoring the setting.
template <typename Check>
void on_one_and_three_threads(Check check)
{
    const int saved_threads = omp_get_max_threads();
    for (const int threads : {1, 3}) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        omp_set_num_threads(threads);
        check();
    }
    omp_set_num_threads(saved_threads);
}

/// The entries of every result of the element-wise operations on `exec`, one vector per operation.
std::vector<std::vector<double>> elementwise_results(const std::shared_ptr<const larch::Executor>& exec, dim2 size,
                                                     size_type stride)
{
    const auto x_host = larch::test::generate_random_values<double>(size, 51);
    const auto a_host = larch::test::generate_random_values<double>(size, 52);
    const auto b_host = larch::test::generate_random_values<double>(size, 53);
    auto x = larch::test::create_dense(exec, size, x_host, stride);
    const auto a = larch::test::create_dense(exec, size, a_host, stride);
    const auto b = larch::test::create_dense(exec, size, b_host, stride);
    std::vector<std::vector<double>> results;
    x->add_scaled(0.75, *b);
    results.push_back(x->copy_to_host());
    x->scale_add(-0.5, *b);
    results.push_back(x->copy_to_host());
    x->scale(1.25);
    results.push_back(x->copy_to_host());
    x->combine(0.3, *a, -1.7, *b, 0.9);
    results.push_back(x->copy_to_host());
    // gamma = 0: x is only written (its NaN padding and old entries are not read)
    x->combine(0.3, *a, -1.7, *b, 0.0);
    results.push_back(x->copy_to_host());
    auto copy = larch::test::create_dense(exec, size, b_host, stride);
    copy->copy_from(*x);
    results.push_back(copy->copy_to_host());
    copy->fill(2.5);
    results.push_back(copy->copy_to_host());
    return results;
}

TEST(OmpPaths, ElementwiseOperationsEqualTheReferenceBitwise)
{
    const auto reference = larch::make_executor("reference");
    const auto omp = larch::make_executor("omp");
    // rows below and above the parallel threshold; one column, several, and rows with a gap (not flat)
    for (const size_type rows : {1000, 40000}) {
        for (const auto& [cols, stride] : std::vector<std::pair<size_type, size_type>>{{1, 1}, {3, 3}, {3, 4}}) {
            SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", stride " + std::to_string(stride));
            const auto expected = elementwise_results(reference, dim2{rows, cols}, stride);
            on_one_and_three_threads([&] { EXPECT_EQ(elementwise_results(omp, dim2{rows, cols}, stride), expected); });
        }
    }
}

/// A x and M^{-1} x, alpha A x + beta y and alpha M^{-1} x + beta y on `exec` (M: scalar Jacobi of A).
std::vector<std::vector<double>> operator_results(const std::shared_ptr<const larch::Executor>& exec,
                                                  const larch::matrix_data<double>& data, size_type cols,
                                                  size_type stride)
{
    const dim2 size{data.size.rows, cols};
    auto a = larch::share(larch::matrix::Csr<double>::create(exec, data));
    const auto jacobi =
        larch::preconditioner::BlockJacobi<double>::build().with_max_block_size(1).on(exec)->generate(a);
    const auto b = larch::test::create_dense(exec, size, larch::test::generate_random_values<double>(size, 61), stride);
    const auto y_host = larch::test::generate_random_values<double>(size, 62);
    std::vector<std::vector<double>> results;
    for (const larch::LinOp* op : {static_cast<const larch::LinOp*>(a.get()), static_cast<const larch::LinOp*>(jacobi.get())}) {
        auto x = larch::test::create_dense(exec, size, y_host, stride);
        op->apply(b, x);
        results.push_back(x->copy_to_host());
        x = larch::test::create_dense(exec, size, y_host, stride);
        op->apply(-0.6, b, 1.3, x);
        results.push_back(x->copy_to_host());
    }
    return results;
}

TEST(OmpPaths, SpmvAndJacobiEqualTheReferenceBitwise)
{
    const auto reference = larch::make_executor("reference");
    const auto omp = larch::make_executor("omp");
    // about 3 entries per row: 2,000 rows stay below the parallel threshold of stored entries, 20,001 do not
    // (the SpMV takes rows in pairs: an odd count leaves the last row alone)
    for (const size_type rows : {2000, 20001}) {
        const auto data = larch::test::generate_random_matrix_data<double>(dim2{rows, rows}, {1, 5}, 71);
        for (const auto& [cols, stride] : std::vector<std::pair<size_type, size_type>>{{1, 1}, {3, 3}, {3, 4}}) {
            SCOPED_TRACE(std::to_string(rows) + " rows, " + std::to_string(cols) + " columns, stride " +
                         std::to_string(stride));
            const auto expected = operator_results(reference, data, cols, stride);
            on_one_and_three_threads([&] { EXPECT_EQ(operator_results(omp, data, cols, stride), expected); });
        }
    }
}

TEST(OmpPaths, SpmvOfRowsOfVeryDifferentLengthsEqualsTheReferenceBitwise)
{
    const auto reference = larch::make_executor("reference");
    const auto omp = larch::make_executor("omp");
    // Three dense rows among empty ones and rows of one entry, 60,003 + 99 entries: the parallel SpMV gives
    // each thread the rows of an equal share of the entries, so on 3 threads a range holds one dense row and
    // many empty ones, and every row must still be computed exactly once.
    const size_type rows = 20001;
    larch::matrix_data<double> data{dim2{rows, rows}};
    std::mt19937 engine{91};
    std::uniform_real_distribution<double> value{-1.0, 1.0};
    for (size_type row = 0; row < rows; ++row) {
        if (row == 5 || row == 10000 || row == rows - 1) {
            for (size_type col = 0; col < rows; ++col) {
                data.entries.push_back({static_cast<std::int32_t>(row), static_cast<std::int32_t>(col), value(engine)});
            }
        } else if (row % 200 == 7) {
            data.entries.push_back({static_cast<std::int32_t>(row), static_cast<std::int32_t>(row), value(engine)});
        }
    }
    for (const auto& [cols, stride] : std::vector<std::pair<size_type, size_type>>{{1, 1}, {3, 4}}) {
        SCOPED_TRACE(std::to_string(cols) + " columns, stride " + std::to_string(stride));
        const auto expected = operator_results(reference, data, cols, stride);
        on_one_and_three_threads([&] { EXPECT_EQ(operator_results(omp, data, cols, stride), expected); });
    }
}

/// Rows in runs of 1..6 that share one random pattern of 0..5 columns (values differ), the structure of FEM
/// matrices with several unknowns per node, which the omp SpMV multiplies side by side in groups of up to 4.
larch::matrix_data<double> same_pattern_runs(size_type rows, std::uint32_t seed)
{
    std::mt19937 engine{seed};
    std::uniform_int_distribution<size_type> run_length{1, 6};
    std::uniform_int_distribution<size_type> pattern_length{0, 5};
    std::uniform_int_distribution<std::int32_t> column{0, static_cast<std::int32_t>(rows) - 1};
    std::uniform_real_distribution<double> value{-1.0, 1.0};
    larch::matrix_data<double> data{dim2{rows, rows}};
    for (size_type row = 0; row < rows;) {
        std::set<std::int32_t> pattern;
        for (auto length = pattern_length(engine); pattern.size() < length;) {
            pattern.insert(column(engine));
        }
        for (const auto end = std::min(rows, row + run_length(engine)); row < end; ++row) {
            for (const auto col : pattern) {
                data.entries.push_back({static_cast<std::int32_t>(row), col, value(engine)});
            }
        }
    }
    return data;
}

TEST(OmpPaths, SpmvOfRowsSharingPatternsEqualsTheReferenceBitwise)
{
    const auto reference = larch::make_executor("reference");
    const auto omp = larch::make_executor("omp");
    // 2,000 rows (about 5,000 entries) run serially, 20,001 in parallel, where runs cross the threads' ranges
    for (const size_type rows : {2000, 20001}) {
        const auto data = same_pattern_runs(rows, 81);
        for (const auto& [cols, stride] : std::vector<std::pair<size_type, size_type>>{{1, 1}, {3, 3}, {3, 4}}) {
            SCOPED_TRACE(std::to_string(rows) + " rows, " + std::to_string(cols) + " columns, stride " +
                         std::to_string(stride));
            const auto expected = operator_results(reference, data, cols, stride);
            on_one_and_three_threads([&] { EXPECT_EQ(operator_results(omp, data, cols, stride), expected); });
        }
    }
}

}  // namespace
