// CG with scalar Jacobi on the SPD matrices of ../shared/matrices (those INDEX.md marks SPD), on every
// executor: the outcome is recorded (printed and as a test property), "converged" must mean the true
// residual, recomputed on the host from the file's entries, meets the tolerance, and the reported residual
// must be that true residual. The folder's absence SKIPs with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "examples/matrix_index.hpp"
#include "larch/generate/problems.hpp"
#include "larch/io/matrix_market.hpp"
#include "test/solver/solver_test_utils.hpp"
#include "test/utils/executors.hpp"

namespace {

class SpdMatrices : public ::testing::TestWithParam<std::string> {};

TEST_P(SpdMatrices, CgWithJacobiNeverReportsFalseConvergence)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const std::string dir = LARCH_MATRICES_DIR;
    if (!std::filesystem::exists(dir + "/INDEX.md")) {
        GTEST_SKIP() << "no test matrices: " << dir << "/INDEX.md does not exist";
    }
    const auto names = larch::examples::read_spd_list(dir);
    ASSERT_FALSE(names.empty()) << "INDEX.md lists no SPD matrix";
    const double tolerance = 1e-9;
    int solved = 0;
    for (const auto& name : names) {
        const auto data = larch::io::read_matrix_market_data<double, std::int32_t>(dir + "/" + name);
        const auto n = data.size.rows;
        auto a = larch::share(larch::matrix::Csr<double>::create(exec, data));
        const auto rhs = larch::generate::right_hand_side<double>(n, larch::generate::RhsKind::uniform, 42);
        auto b = larch::matrix::Dense<double>::create(exec, larch::dim2{n, 1},
                                                      larch::array<double>{exec, rhs.begin(), rhs.end()}, 1);
        auto x = larch::matrix::Dense<double>::create(exec, larch::dim2{n, 1});
        x->fill(0.0);
        larch::test::SolverSetup setup;
        setup.criteria = {larch::stop::max_iterations(20000), larch::stop::relative_residual(tolerance)};
        auto solver = larch::test::make_solver<double>(larch::test::SolverKind::cg, exec, a, setup);
        solver->apply(b, x);
        const auto& status = solver->get_status();
        const double true_residual = larch::test::host_residual_norm(data, rhs, x->copy_to_host());
        const double relative = true_residual / larch::test::host_norm(rhs);
        std::cout << "[ outcome  ] " << GetParam() << " cg+jacobi " << name << ": "
                  << larch::stop::to_string(status.reason) << " after " << status.iterations
                  << " iterations, true relative residual " << relative << ", "
                  << status.residual_replacements << " residual replacement(s)\n";
        RecordProperty(name, std::string{larch::stop::to_string(status.reason)} + " " +
                                 std::to_string(status.iterations));
        if (status.converged()) {
            ++solved;
            // the executor's residual and the host's long double one differ by rounding only
            EXPECT_LE(relative, 1.01 * tolerance) << name;
        }
        if (std::isfinite(relative)) {
            // Two computations of b - Ax differ by rounding: at most about (max row nonzeros + 1) eps
            // || |A| |x| + |b| || (a small fraction of a converged residual, all of a stagnated one).
            const auto solution = x->copy_to_host();
            std::vector<double> magnitude(rhs.begin(), rhs.end());
            std::vector<int> row_nonzeros(n, 0);
            for (const auto& entry : data.entries) {
                magnitude[entry.row] += std::abs(entry.value * solution[entry.col]);
                ++row_nonzeros[entry.row];
            }
            const double max_row_nonzeros = *std::max_element(row_nonzeros.begin(), row_nonzeros.end());
            const double rounding = (max_row_nonzeros + 1) * std::numeric_limits<double>::epsilon() *
                                    larch::test::host_norm(magnitude);
            EXPECT_NEAR(status.residual_norm, true_residual, rounding) << name;
        }
    }
    std::cout << "[ outcome  ] " << GetParam() << ": CG + scalar Jacobi solved " << solved << " of "
              << names.size() << " SPD matrices\n";
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, SpdMatrices, ::testing::ValuesIn(larch::test::executor_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
