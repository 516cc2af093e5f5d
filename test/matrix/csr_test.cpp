// matrix::Csr on every executor: hand-checked SpMV and transpose, SpMV and transpose against the reference
// executor on random matrices, structure validation of user arrays, and the errors of bad operands.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/apply_check.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/errors.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using larch::array;
using larch::dim2;
using larch::matrix::Csr;
using larch::matrix::Dense;
using larch::test::error_message_of;
using larch::test::expect_contains;

class CsrOnEveryExecutor : public ::testing::TestWithParam<std::string> {};

TEST_P(CsrOnEveryExecutor, SpmvGivesHandCheckedValues)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::expect_exact_small_apply<Csr<float>>(exec);
    larch::test::expect_exact_small_apply<Csr<double>>(exec);
}

TEST_P(CsrOnEveryExecutor, CreatesFromArraysAndKeepsThem)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // [1 0 2; 0 0 0; 3 4 0]
    auto a = Csr<double>::create(exec, dim2{3, 3}, array<double>{exec, {1, 2, 3, 4}},
                                 array<int>{exec, {0, 2, 0, 1}}, array<int>{exec, {0, 2, 2, 4}});
    EXPECT_EQ(a->get_executor(), exec);
    EXPECT_EQ(a->get_num_stored_elements(), 4u);
    larch::test::expect_dense_eq({{1, 0, 2}, {0, 0, 0}, {3, 4, 0}}, *a->to_dense());
    // Arrays on another executor are copied over.
    const auto reference = larch::make_executor("reference");
    auto copied = Csr<double>::create(exec, dim2{1, 2}, array<double>{reference, {5}},
                                      array<int>{reference, {1}}, array<int>{reference, {0, 1}});
    EXPECT_EQ(copied->get_executor(), exec);
    larch::test::expect_dense_eq({{0, 5}}, *copied->to_dense());
    // The default structure is a valid zero matrix.
    auto zero = Csr<double>::create(exec, dim2{2, 2});
    larch::test::expect_dense_eq({{0, 0}, {0, 0}}, *zero->to_dense());
}

TEST_P(CsrOnEveryExecutor, SumsDuplicatesAndKeepsExplicitZerosFromData)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const larch::matrix_data<double> data{dim2{2, 3}, {{1, 2, 0.0}, {0, 1, 1.5}, {0, 1, 2.0}}};
    auto a = Csr<double>::create(exec, data);
    EXPECT_EQ(a->get_num_stored_elements(), 2u);
    larch::test::expect_data_eq(larch::matrix_data<double>{dim2{2, 3}, {{0, 1, 3.5}, {1, 2, 0.0}}},
                                a->to_data());
}

TEST_P(CsrOnEveryExecutor, TransposesHandCheckedMatrix)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // [1 0 2 0; 0 0 0 5; 3 4 0 0] transposed, columns sorted in every new row.
    const larch::matrix_data<double> data{
        dim2{3, 4}, {{0, 0, 1}, {0, 2, 2}, {1, 3, 5}, {2, 0, 3}, {2, 1, 4}}};
    auto transposed = Csr<double>::create(exec, data)->transpose();
    EXPECT_EQ(transposed->get_size(), dim2(4, 3));
    larch::test::expect_data_eq(
        larch::matrix_data<double>{dim2{4, 3}, {{0, 0, 1}, {0, 2, 3}, {1, 2, 4}, {2, 0, 2}, {3, 1, 5}}},
        transposed->to_data());
}

template <typename V>
void check_random_transpose(const std::shared_ptr<const larch::Executor>& exec, std::uint32_t seed)
{
    for (const auto& test_matrix : larch::test::standard_random_matrices()) {
        SCOPED_TRACE(std::string{"matrix "} + test_matrix.name + ", " + larch::test::seed_trace(seed));
        const auto data =
            larch::test::generate_random_matrix_data<V>(test_matrix.size, test_matrix.sparsity, seed);
        // The transpose moves values without arithmetic: it must be exact.
        larch::matrix_data<V> expected{dim2{data.size.cols, data.size.rows}};
        for (const auto& e : data.entries) {
            expected.entries.push_back({e.col, e.row, e.value});
        }
        expected.sort_row_major();
        larch::test::expect_data_eq(expected, Csr<V>::create(exec, data)->transpose()->to_data());
        ++seed;
    }
}

TEST_P(CsrOnEveryExecutor, TransposesRandomMatricesExactly)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_random_transpose<float>(exec, 40);
    check_random_transpose<double>(exec, 50);
}

TEST_P(CsrOnEveryExecutor, SpmvMatchesReferenceOnRandomMatrices)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::test::expect_apply_matches_reference_on_random_matrices<Csr<float>>(exec, 60);
    larch::test::expect_apply_matches_reference_on_random_matrices<Csr<double>>(exec, 70);
}

TEST_P(CsrOnEveryExecutor, ClonesToTheReferenceExecutorAndBack)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto reference = larch::make_executor("reference");
    const auto data = larch::test::generate_random_matrix_data<double>(dim2{30, 20}, {0, 5}, 80);
    auto a = Csr<double>::create(exec, data);
    a->set_spmv_algorithm(larch::matrix::CsrSpmvAlgorithm::larch);
    auto on_reference = a->clone_to(reference);
    EXPECT_EQ(on_reference->get_executor(), reference);
    auto& csr_on_reference = dynamic_cast<Csr<double>&>(*on_reference);
    EXPECT_EQ(csr_on_reference.get_spmv_algorithm(), larch::matrix::CsrSpmvAlgorithm::larch);
    larch::test::expect_data_eq(data, csr_on_reference.to_data());
    auto back = csr_on_reference.clone_to(exec);
    EXPECT_EQ(back->get_executor(), exec);
    larch::test::expect_data_eq(data, dynamic_cast<Csr<double>&>(*back).to_data());
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, CsrOnEveryExecutor,
                         ::testing::ValuesIn(larch::test::executor_names()));

/// The message of Csr::create on the reference executor with these arrays of a 3x3 matrix.
std::string creation_error(std::initializer_list<double> values, std::initializer_list<int> col_idxs,
                           std::initializer_list<int> row_ptrs)
{
    const auto exec = larch::make_executor("reference");
    return error_message_of([&] {
        Csr<double>::create(exec, dim2{3, 3}, array<double>{exec, values},
                            array<int>{exec, col_idxs}, array<int>{exec, row_ptrs});
    });
}

TEST(CsrValidation, NamesTheArrayPositionAndValueOfBadStructure)
{
    expect_contains(creation_error({1, 2}, {0, 1}, {0, 2, 2}),
                    "row_ptrs has 3 entries but a matrix of 3 rows needs 4");
    expect_contains(creation_error({1, 2}, {0, 1}, {1, 2, 2, 2}), "row_ptrs[0] is 1 but must be 0");
    expect_contains(creation_error({1, 2, 3}, {0, 1, 2}, {0, 2, 1, 3}),
                    "row_ptrs[2] is 1 but must lie in [row_ptrs[1] = 2, 3]");
    expect_contains(creation_error({1, 2, 3}, {0, 1, 2}, {0, 1, 2, 2}),
                    "row_ptrs[3] is 2 but there are 3 column indices");
    expect_contains(creation_error({1, 2}, {0, 3}, {0, 2, 2, 2}),
                    "col_idxs[1] is 3 (row 0) but must lie in [0, 3)");
    expect_contains(creation_error({1, 2}, {0, -1}, {0, 1, 2, 2}),
                    "col_idxs[1] is -1 (row 1) but must lie in [0, 3)");
    expect_contains(creation_error({1, 2}, {2, 0}, {0, 2, 2, 2}),
                    "col_idxs[1] is 0 (row 0) but the previous column of the row is 2");
    expect_contains(creation_error({1, 2}, {1, 1}, {0, 2, 2, 2}), "strictly increasing");
    expect_contains(creation_error({1, 2}, {0}, {0, 1, 1, 1}),
                    "col_idxs has 1 entries but values has 2");
}

TEST(CsrValidation, BadStructureThrowsBadInputAndNamesTheType)
{
    const auto exec = larch::make_executor("reference");
    EXPECT_THROW(Csr<float>::create(exec, dim2{1, 1}, array<float>{exec, {1}},
                                    array<int>{exec, {1}}, array<int>{exec, {0, 1}}),
                 larch::BadInput);
    expect_contains(creation_error({1}, {5}, {0, 1, 1, 1}), "Csr<double,int32>::create");
    const larch::matrix_data<double> outside{dim2{2, 2}, {{0, 2, 1.0}}};
    EXPECT_THROW(Csr<double>::create(exec, outside), larch::BadInput);
}

TEST(CsrValidation, RejectsFiniteDuplicatesWhoseSumOverflowsNamingThePosition)
{
    const auto exec = larch::make_executor("reference");
    // each value is finite, the sum of the two at (1, 2) is not
    const larch::matrix_data<double> data{dim2{2, 3}, {{1, 2, 1e308}, {0, 1, 1.0}, {1, 2, 1e308}}};
    expect_contains(error_message_of([&] { Csr<double>::create(exec, data); }),
                    "Csr<double,int32>::create: the duplicate entries at (1, 2) add up to a value too "
                    "large for double");
}

TEST(CsrErrors, ApplyChecksSizesAndOperandTypes)
{
    const auto exec = larch::make_executor("reference");
    auto a = Csr<double>::create(exec, dim2{3, 2});
    auto b = Dense<double>::create(exec, dim2{3, 1});
    auto x = Dense<double>::create(exec, dim2{3, 1});
    const auto message = error_message_of([&] { a->apply(b, x); });
    expect_contains(message, "Csr<double,int32>::apply");
    expect_contains(message, "b (Dense<double>, 3x1) has 3 rows but the operator (3x2) has 2 columns");
    EXPECT_THROW(a->apply(b, x), larch::DimensionMismatch);
    auto good_b = Dense<double>::create(exec, dim2{2, 2});
    EXPECT_THROW(a->apply(good_b, x), larch::DimensionMismatch);
    auto float_b = Dense<float>::create(exec, dim2{2, 1});
    EXPECT_THROW(a->apply(float_b, x), larch::NotSupported);
    auto sparse_b = Csr<double>::create(exec, dim2{2, 1});
    EXPECT_THROW(a->apply(sparse_b, x), larch::NotSupported);
    EXPECT_EQ(a->get_type_name(), "Csr<double,int32>");
    EXPECT_EQ(Csr<float>::create(exec)->get_type_name(), "Csr<float,int32>");
}

}  // namespace
