// Conversions among Dense, Csr, Coo and Ell on every executor, also from and to matrices on the reference
// executor. Conversions move values without arithmetic, so every result must be exact: sparse formats
// keep explicit zeros, conversions from Dense drop them.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>

#include "larch/base/executor.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/matrix/ell.hpp"
#include "test/utils/apply_check.hpp"
#include "test/utils/compare.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using larch::dim2;
using larch::matrix::Coo;
using larch::matrix::Csr;
using larch::matrix::Dense;
using larch::matrix::Ell;

/// `source` converted to Target on `exec` through the conversion the library offers for the pair.
template <typename Target, typename Source>
std::unique_ptr<Target> convert(const std::shared_ptr<const larch::Executor>& exec,
                                const Source& source)
{
    if constexpr (std::is_same<Target, Source>::value) {
        return std::unique_ptr<Target>{static_cast<Target*>(source.clone_to(exec).release())};
    } else if constexpr (std::is_same<Target, Dense<typename Source::value_type>>::value) {
        return source.to_dense()->clone_dense(exec);
    } else {
        return Target::create_from(exec, source);
    }
}

/// `data` as every format must hold it: sorted, without explicit zeros if it went through Dense.
template <typename V>
larch::matrix_data<V> expected_entries(const larch::matrix_data<V>& data, bool through_dense)
{
    auto expected = data;
    expected.sum_duplicates();
    if (through_dense) {
        expected.entries.erase(std::remove_if(expected.entries.begin(), expected.entries.end(),
                                              [](const auto& e) { return e.value == V{}; }),
                               expected.entries.end());
    }
    return expected;
}

template <typename Target, typename Source, typename V>
void check_conversion(const std::shared_ptr<const larch::Executor>& source_exec,
                      const std::shared_ptr<const larch::Executor>& target_exec,
                      const larch::matrix_data<V>& data)
{
    const auto source = Source::create(source_exec, data);
    const auto result = convert<Target>(target_exec, *source);
    SCOPED_TRACE(source->get_type_name() + " on " + source_exec->get_name() + " to " +
                 result->get_type_name() + " on " + target_exec->get_name());
    EXPECT_EQ(result->get_executor(), target_exec);
    EXPECT_EQ(result->get_size(), data.size);
    if constexpr (std::is_same<Target, Dense<V>>::value) {
        larch::test::expect_dense_eq(*Dense<V>::create(larch::make_executor("reference"), data),
                                     *result);
    } else {
        const bool through_dense = std::is_same<Source, Dense<V>>::value;
        larch::test::expect_data_eq(expected_entries(data, through_dense), result->to_data());
    }
}

template <typename Source, typename V>
void check_conversions_from(const std::shared_ptr<const larch::Executor>& source_exec,
                            const std::shared_ptr<const larch::Executor>& target_exec,
                            const larch::matrix_data<V>& data)
{
    check_conversion<Dense<V>, Source>(source_exec, target_exec, data);
    check_conversion<Csr<V>, Source>(source_exec, target_exec, data);
    check_conversion<Coo<V>, Source>(source_exec, target_exec, data);
    check_conversion<Ell<V>, Source>(source_exec, target_exec, data);
}

template <typename V>
void check_all_pairs(const std::shared_ptr<const larch::Executor>& source_exec,
                     const std::shared_ptr<const larch::Executor>& target_exec, std::uint32_t seed)
{
    for (const auto& test_matrix : larch::test::standard_random_matrices()) {
        SCOPED_TRACE(std::string{"matrix "} + test_matrix.name + ", " + larch::test::seed_trace(seed));
        const auto data =
            larch::test::generate_random_matrix_data<V>(test_matrix.size, test_matrix.sparsity, seed);
        check_conversions_from<Dense<V>>(source_exec, target_exec, data);
        check_conversions_from<Csr<V>>(source_exec, target_exec, data);
        check_conversions_from<Coo<V>>(source_exec, target_exec, data);
        check_conversions_from<Ell<V>>(source_exec, target_exec, data);
        ++seed;
    }
}

class ConversionOnEveryExecutor : public ::testing::TestWithParam<std::string> {};

TEST_P(ConversionOnEveryExecutor, ConvertsEveryFormatToEveryOtherExactly)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    check_all_pairs<float>(exec, exec, 300);
    check_all_pairs<double>(exec, exec, 310);
}

TEST_P(ConversionOnEveryExecutor, ConvertsFromAndToTheReferenceExecutor)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto reference = larch::make_executor("reference");
    check_all_pairs<double>(reference, exec, 320);
    check_all_pairs<double>(exec, reference, 330);
}

TEST_P(ConversionOnEveryExecutor, ConvertsHandCheckedMatrixWithExplicitZero)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // [1 0 2; 0 0 0; 3 4 0] with an explicit zero at (1, 1) and a duplicate at (0, 0) (1 = 0.25 + 0.75).
    const larch::matrix_data<double> data{
        dim2{3, 3}, {{0, 0, 0.25}, {0, 2, 2}, {1, 1, 0}, {2, 0, 3}, {2, 1, 4}, {0, 0, 0.75}}};
    const larch::matrix_data<double> stored{dim2{3, 3},
                                            {{0, 0, 1}, {0, 2, 2}, {1, 1, 0}, {2, 0, 3}, {2, 1, 4}}};
    auto csr = Csr<double>::create(exec, data);
    larch::test::expect_data_eq(stored, Coo<double>::create_from(exec, *csr)->to_data());
    larch::test::expect_data_eq(stored, Ell<double>::create_from(exec, *csr)->to_data());
    larch::test::expect_data_eq(stored, Csr<double>::create_from(exec, *Ell<double>::create(exec, data))
                                            ->to_data());
    auto dense = csr->to_dense();
    larch::test::expect_dense_eq({{1, 0, 2}, {0, 0, 0}, {3, 4, 0}}, *dense);
    EXPECT_EQ(Csr<double>::create_from(exec, *dense)->get_num_stored_elements(), 4u);
}

TEST_P(ConversionOnEveryExecutor, ConvertsTallDenseMatrixWhoseRowPointersNeedALongScan)
{
    // 50000 rows make the row pointers long enough for the parallel path of prefix_sum.
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto data =
        larch::test::generate_random_matrix_data<double>(dim2{50000, 3}, {0, 3, 0.1}, 340);
    auto dense = Dense<double>::create(exec, data);
    larch::test::expect_data_eq(expected_entries(data, true),
                                Csr<double>::create_from(exec, *dense)->to_data());
    larch::test::expect_data_eq(expected_entries(data, false),
                                Csr<double>::create_from(exec, *Ell<double>::create(exec, data))
                                    ->to_data());
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, ConversionOnEveryExecutor,
                         ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
