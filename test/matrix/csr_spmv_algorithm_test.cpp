// Csr SpMV with each algorithm chosen explicitly (larch's own kernels, the vendor one)
// against the reference executor: the other Csr tests use the automatic choice only, which on CUDA is
// cuSPARSE, so without these larch's device kernel would go untested. Host executors have one kernel
// and ignore the choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/matrix/csr.hpp"
#include "test/utils/apply_check.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using larch::dim2;
using larch::matrix::Csr;
using larch::matrix::CsrSpmvAlgorithm;

/// Csr<V> whose create() sets the SpMV algorithm, so that the shared apply checks run it.
template <typename V, CsrSpmvAlgorithm algorithm>
struct CsrWith {
    using value_type = V;
    using index_type = std::int32_t;

    template <typename... Args>
    static std::unique_ptr<Csr<V>> create(Args&&... args)
    {
        auto matrix = Csr<V>::create(std::forward<Args>(args)...);
        matrix->set_spmv_algorithm(algorithm);
        return matrix;
    }
};

/// Every number of lanes per row the larch kernel picks (1 to 32, from the average row length and the
/// number of right-hand sides), with each of the standard apply cases and 5 (slots of 8, three idle), 8, 16,
/// 32 and 40 (two launches: 32 and 8) right-hand sides.
template <typename Matrix>
void expect_every_subwarp_size_matches_reference(const std::shared_ptr<const larch::Executor>& exec,
                                                 std::uint32_t seed)
{
    using V = typename Matrix::value_type;
    // Average row lengths of about 1.5, 3, 6, 12, 24, 64 and 150 (one right-hand side: 1 to 32 lanes).
    for (const larch::size_type max_row_nnz : {3, 6, 12, 24, 48, 128, 300}) {
        SCOPED_TRACE("rows of 0 to " + std::to_string(max_row_nnz) + " entries, " +
                     larch::test::seed_trace(seed));
        const auto data = larch::test::generate_random_matrix_data<V, std::int32_t>(
            dim2{257, 300}, {0, max_row_nnz}, seed);
        auto cases = larch::test::standard_apply_cases(seed + 100);
        cases.push_back({5, 1.0, 0.0, 0, seed + 198});
        cases.push_back({8, 1.0, 0.0, 0, seed + 200});
        cases.push_back({16, -0.5, 2.0, 3, seed + 202});
        cases.push_back({32, 1.0, 0.0, 1, seed + 204});
        cases.push_back({40, 0.5, -1.0, 2, seed + 206});
        for (const auto& test_case : cases) {
            larch::test::expect_apply_matches_reference<Matrix>(exec, data, test_case);
        }
        ++seed;
    }
}

class CsrSpmvAlgorithmOnEveryExecutor : public ::testing::TestWithParam<std::string> {};

TEST_P(CsrSpmvAlgorithmOnEveryExecutor, LarchKernelMatchesReference)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    using FloatCsr = CsrWith<float, CsrSpmvAlgorithm::larch>;
    using DoubleCsr = CsrWith<double, CsrSpmvAlgorithm::larch>;
    larch::test::expect_exact_small_apply<FloatCsr>(exec);
    larch::test::expect_exact_small_apply<DoubleCsr>(exec);
    larch::test::expect_apply_matches_reference_on_random_matrices<FloatCsr>(exec, 610);
    larch::test::expect_apply_matches_reference_on_random_matrices<DoubleCsr>(exec, 710);
    expect_every_subwarp_size_matches_reference<FloatCsr>(exec, 810);
    expect_every_subwarp_size_matches_reference<DoubleCsr>(exec, 910);
}

TEST_P(CsrSpmvAlgorithmOnEveryExecutor, LarchKernelSumsTheLongRowsOfAMatrixOfShortRows)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // About 2 entries per row on average (the kernel for short rows), with an arrow's dense last row, which
    // overflows its block's staging, and a row of 300 entries in a staged block: both longer than one
    // thread should sum alone. Besides the standard cases, 2, 8, 32 and 37 right-hand sides (2, 8 and 32
    // lanes per row on rows of 1 to 2,000 entries; 37 in launches of 32 and 5; padded rows of b and x).
    constexpr std::int32_t n = 2000;
    const auto values = larch::test::generate_random_values<double>(dim2{3 * n, 1}, 1010);
    larch::matrix_data<double, std::int32_t> data{dim2{n, n}};
    std::size_t next = 0;
    for (std::int32_t row = 0; row < n; ++row) {
        const std::int32_t length = row == n - 1 ? n : row == 700 ? 300 : 1;
        for (std::int32_t k = 0; k < length; ++k) {
            data.entries.push_back({row, length == 1 ? row : k * (n / length), values[next++]});
        }
    }
    data.sort_row_major();
    auto cases = larch::test::standard_apply_cases(1011);
    cases.push_back({2, 1.0, 0.0, 0, 1021});
    cases.push_back({8, -1.5, 0.5, 3, 1023});
    cases.push_back({8, 1.0, 0.0, 0, 1025});
    cases.push_back({32, 2.0, -1.0, 0, 1027});
    cases.push_back({37, 1.0, 0.0, 1, 1029});
    for (const auto& test_case : cases) {
        larch::test::expect_apply_matches_reference<CsrWith<double, CsrSpmvAlgorithm::larch>>(exec, data, test_case);
    }
}

TEST_P(CsrSpmvAlgorithmOnEveryExecutor, VendorKernelMatchesReference)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    if (exec->get_name().rfind("hip", 0) == 0) {
        GTEST_SKIP() << "the vendor SpMV (cuSPARSE) exists only on CUDA";
    }
    // No column views here: cuSPARSE needs 16-byte aligned arrays (see VendorKernelRejects...).
    using FloatCsr = CsrWith<float, CsrSpmvAlgorithm::vendor>;
    using DoubleCsr = CsrWith<double, CsrSpmvAlgorithm::vendor>;
    larch::test::expect_apply_matches_reference_on_random_matrices<FloatCsr>(exec, 620);
    larch::test::expect_apply_matches_reference_on_random_matrices<DoubleCsr>(exec, 720);
    expect_every_subwarp_size_matches_reference<DoubleCsr>(exec, 920);
}

/// A matrix of small integers and x = A b for b(i, j) = (i + 3 j) % 7 - 3 computed on the host: every
/// product and sum is exact, so any executor must give these bits.
struct IntegerProblem {
    larch::matrix_data<double, std::int32_t> data;

    explicit IntegerProblem(larch::matrix_data<double, std::int32_t> matrix) : data{std::move(matrix)} {}

    /// 300 x 300, up to 5 entries a row.
    explicit IntegerProblem(int shift) : data{dim2{300, 300}}
    {
        for (std::int32_t row = 0; row < 300; ++row) {
            for (std::int32_t k = 0; k < 1 + row % 5; ++k) {
                data.entries.push_back({row, (row * 7 + k * 61) % 300, double((row + k + shift) % 9 - 4)});
            }
        }
        data.sort_row_major();
    }

    std::vector<double> b(larch::size_type cols) const
    {
        std::vector<double> values(data.size.cols * cols);
        for (larch::size_type i = 0; i < data.size.cols; ++i) {
            for (larch::size_type j = 0; j < cols; ++j) {
                values[i * cols + j] = double((i + 3 * j) % 7) - 3;
            }
        }
        return values;
    }

    std::vector<double> x(larch::size_type cols) const
    {
        const auto b_values = b(cols);
        std::vector<double> values(data.size.rows * cols, 0.0);
        for (const auto& e : data.entries) {
            for (larch::size_type j = 0; j < cols; ++j) {
                values[e.row * cols + j] += e.value * b_values[e.col * cols + j];
            }
        }
        return values;
    }

    /// Checks matrix.apply(b, x) with `cols` columns on matrix's executor against x(cols).
    void expect_product(const Csr<double>& matrix, larch::size_type cols) const
    {
        SCOPED_TRACE(std::to_string(cols) + " column(s)");
        const auto exec = matrix.get_executor();
        auto b_dense = larch::matrix::Dense<double>::create(exec, dim2{data.size.cols, cols}, b(cols));
        auto x_dense = larch::matrix::Dense<double>::create(exec, dim2{data.size.rows, cols});
        matrix.apply(b_dense, x_dense);
        EXPECT_EQ(x_dense->copy_to_host(), x(cols));
    }
};

/// `nodes` nodes of node_rows unknowns on a chain, each node coupled with those up to 2 away (small
/// integers): every aligned group of node_rows rows shares one pattern, as in an FEM matrix.
larch::matrix_data<double, std::int32_t> node_chain(std::int32_t node_rows, std::int32_t nodes)
{
    const auto size = static_cast<larch::size_type>(node_rows * nodes);
    larch::matrix_data<double, std::int32_t> data{dim2{size, size}};
    for (std::int32_t row = 0; row < node_rows * nodes; ++row) {
        const std::int32_t node = row / node_rows;
        for (std::int32_t other = std::max(node - 2, 0); other <= std::min(node + 2, nodes - 1); ++other) {
            for (std::int32_t k = 0; k < node_rows; ++k) {
                const std::int32_t col = other * node_rows + k;
                data.entries.push_back({row, col, double((row * 5 + col * 3) % 9 - 4)});
            }
        }
    }
    return data;
}

TEST_P(CsrSpmvAlgorithmOnEveryExecutor, LarchKernelTakesTheRowsOfANodeTogether)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // Nodes of 2, 3 and 4 rows (301 of them: each row count is divisible by its own node size only, or by
    // 2 and 4), which several right-hand sides multiply node by node; with two nodes of long rows (every
    // column, and 30 nodes' columns: summed by the whole block, out of global memory and staged); then the
    // same with one row's pattern broken by an extra entry, and with one row more than the nodes hold, where
    // rows must be taken one by one.
    for (const std::int32_t node_rows : {2, 3, 4}) {
        SCOPED_TRACE("nodes of " + std::to_string(node_rows) + " rows");
        const auto nodes = node_chain(node_rows, 301);
        auto long_rows = nodes;
        for (std::int32_t unknown = 0; unknown < node_rows; ++unknown) {
            for (std::int32_t col = 0; col < nodes.size.cols; ++col) {
                long_rows.entries.push_back({100 * node_rows + unknown, col, 1.0});
            }
            for (std::int32_t col = 0; col < 30 * node_rows; ++col) {
                long_rows.entries.push_back({200 * node_rows + unknown, col, -1.0});
            }
        }
        long_rows.sort_row_major();
        auto broken = nodes;
        broken.entries.push_back({150 * node_rows + 1, 0, 2.0});
        broken.sort_row_major();
        auto one_more_row = nodes;
        one_more_row.size = dim2{nodes.size.rows + 1, nodes.size.cols + 1};
        one_more_row.entries.push_back({static_cast<std::int32_t>(nodes.size.rows),
                                        static_cast<std::int32_t>(nodes.size.cols), 3.0});
        for (const auto& [name, data] : {std::pair{"nodes", nodes}, std::pair{"long rows", long_rows},
                                         std::pair{"one pattern broken", broken},
                                         std::pair{"one row more", one_more_row}}) {
            SCOPED_TRACE(name);
            const IntegerProblem problem{data};
            const auto a = CsrWith<double, CsrSpmvAlgorithm::larch>::create(exec, data);
            for (const larch::size_type cols : {1, 2, 3, 8, 32, 37}) {
                problem.expect_product(*a, cols);
            }
        }
    }
    // Scaled and accumulating products with padded rows of b and x, in double and float.
    const auto nodes = node_chain(3, 301);
    larch::matrix_data<float, std::int32_t> float_nodes{nodes.size};
    for (const auto& entry : nodes.entries) {
        float_nodes.entries.push_back({entry.row, entry.col, static_cast<float>(entry.value)});
    }
    for (const larch::test::apply_case test_case : {larch::test::apply_case{8, -1.5, 0.5, 3, 1111},
                                                    larch::test::apply_case{5, 2.0, -1.0, 1, 1113}}) {
        larch::test::expect_apply_matches_reference<CsrWith<double, CsrSpmvAlgorithm::larch>>(exec, nodes,
                                                                                               test_case);
        larch::test::expect_apply_matches_reference<CsrWith<float, CsrSpmvAlgorithm::larch>>(exec, float_nodes,
                                                                                              test_case);
    }
}

TEST_P(CsrSpmvAlgorithmOnEveryExecutor, LarchKernelSeesAPatternWrittenAfterAProduct)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // The first product of 8 columns finds the nodes of 3 rows and keeps them with the matrix. Moving an
    // entry of a node's second row to column 0 (written through get_col_idxs) must drop that: the rows of
    // that node no longer share a pattern.
    const IntegerProblem nodes{node_chain(3, 301)};
    auto moved_data = nodes.data;
    for (auto& entry : moved_data.entries) {
        if (entry.row == 451 && entry.col == 458) {
            entry.col = 0;
        }
    }
    moved_data.sort_row_major();
    const IntegerProblem moved{moved_data};
    auto a = CsrWith<double, CsrSpmvAlgorithm::larch>::create(exec, nodes.data);
    nodes.expect_product(*a, 8);
    const auto moved_csr = Csr<double>::create(exec->get_host(), moved.data);
    const auto size = a->get_num_stored_elements();
    ASSERT_EQ(moved_csr->get_num_stored_elements(), size);
    auto cols = larch::array<std::int32_t>::view(exec, size, a->get_col_idxs());
    cols.copy_from(larch::array<std::int32_t>{exec->get_host(), moved_csr->get_const_col_idxs(),
                                              moved_csr->get_const_col_idxs() + size});
    auto values = larch::array<double>::view(exec, size, a->get_values());
    values.copy_from(larch::array<double>{exec->get_host(), moved_csr->get_const_values(),
                                          moved_csr->get_const_values() + size});
    moved.expect_product(*a, 8);
    moved.expect_product(*a, 3);
}

TEST_P(CsrSpmvAlgorithmOnEveryExecutor, VendorKernelKeepsItsPreparationAcrossApplies)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    if (exec->get_name().rfind("hip", 0) == 0) {
        GTEST_SKIP() << "the vendor SpMV (cuSPARSE) exists only on CUDA";
    }
    // cuSPARSE's descriptor and preprocessed workspace are made by the first apply and kept with the matrix:
    // later applies to other vectors (one and three columns: the SpMV and SpMM paths), after the values
    // were rewritten, and of a copy of the matrix must still be right.
    const IntegerProblem first{0};
    const IntegerProblem second{5};
    auto a = CsrWith<double, CsrSpmvAlgorithm::vendor>::create(exec, first.data);
    for (const larch::size_type cols : {1, 3, 1}) {
        first.expect_product(*a, cols);
    }
    // the second problem has the first one's pattern: rewrite the values in place
    const auto second_csr = Csr<double>::create(exec->get_host(), second.data);
    const larch::array<double> second_values{exec->get_host(), second_csr->get_const_values(),
                                             second_csr->get_const_values() + second_csr->get_num_stored_elements()};
    auto values = larch::array<double>::view(exec, a->get_num_stored_elements(), a->get_values());
    values.copy_from(second_values);
    second.expect_product(*a, 1);
    const Csr<double> copy{*a};
    second.expect_product(copy, 1);
    second.expect_product(*a, 3);
}

TEST_P(CsrSpmvAlgorithmOnEveryExecutor, VendorKernelRejectsUnalignedViewsWhereItCannotRun)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    if (exec->get_name().rfind("cuda", 0) != 0) {
        GTEST_SKIP() << "only the CUDA executor has a vendor SpMV with alignment requirements";
    }
    // Column 1 of a 2-column double matrix starts 8 bytes into the allocation.
    auto a = CsrWith<double, CsrSpmvAlgorithm::vendor>::create(
        exec, larch::matrix_data<double, std::int32_t>{dim2{2, 2}, {{0, 0, 1}, {1, 1, 2}}});
    auto b = larch::matrix::Dense<double>::create(exec, {{1, 2}, {3, 4}});
    auto x = larch::matrix::Dense<double>::create(exec, dim2{2, 2});
    auto b_column = b->create_const_column_view(1);
    auto x_column = x->create_column_view(1);
    EXPECT_THROW(a->apply(b_column, x_column), larch::NotSupported);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, CsrSpmvAlgorithmOnEveryExecutor,
                         ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
