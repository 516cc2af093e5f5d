// Csr SpMV with each algorithm chosen explicitly (larch's own sub-warp-per-row kernel, the vendor one)
// against the reference executor: the other Csr tests use the automatic choice only, which on CUDA is
// cuSPARSE, so without these larch's device kernel would go untested. Host executors have one kernel
// and ignore the choice.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

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

/// Every sub-warp size the larch kernel picks (2 to 32 lanes, from the average row length), with
/// each of the standard apply cases.
template <typename Matrix>
void expect_every_subwarp_size_matches_reference(const std::shared_ptr<const larch::Executor>& exec,
                                                 std::uint32_t seed)
{
    using V = typename Matrix::value_type;
    // Average row lengths of about 1.5, 3, 6, 12 and 24.
    for (const larch::size_type max_row_nnz : {3, 6, 12, 24, 48}) {
        SCOPED_TRACE("rows of 0 to " + std::to_string(max_row_nnz) + " entries, " +
                     larch::test::seed_trace(seed));
        const auto data = larch::test::generate_random_matrix_data<V, std::int32_t>(
            dim2{257, 300}, {0, max_row_nnz}, seed);
        for (const auto& test_case : larch::test::standard_apply_cases(seed + 100)) {
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
