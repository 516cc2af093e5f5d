// What LinOp::apply and BatchLinOp::apply check before any kernel runs (aliasing of x with b or with the
// operator, operands on other executors), and the conveniences around operators: Dense from host values,
// residual_norm, typed access to a solver's preconditioner, the stream logger, concurrent solver applies.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/batch/cond_estimator.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/gauss_huard.hpp"
#include "larch/batch/vector.hpp"
#include "larch/generate/problems.hpp"
#include "larch/log/stream.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/matrix/ell.hpp"
#include "larch/preconditioner/block_jacobi.hpp"
#include "larch/solver/bicgstab.hpp"
#include "larch/solver/cg.hpp"
#include "larch/solver/gmres.hpp"
#include "larch/solver/idr.hpp"
#include "larch/solver/residual.hpp"
#include "test/utils/errors.hpp"
#include "test/utils/executors.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;
using Csr = larch::matrix::Csr<double>;
using larch::dim2;

class LinOpChecks : public ::testing::TestWithParam<std::string> {
protected:
    // The 1D Laplacian of order 6 as every LinOp type of larch.
    std::vector<std::shared_ptr<const larch::LinOp>> operators(const std::shared_ptr<const larch::Executor>& exec)
    {
        larch::matrix_data<double> data{dim2{6}};
        for (int i = 0; i < 6; ++i) {
            data.entries.push_back({i, i, 2.0});
            if (i > 0) {
                data.entries.push_back({i, i - 1, -1.0});
                data.entries.push_back({i - 1, i, -1.0});
            }
        }
        data.sort_row_major();
        auto a = larch::share(Csr::create(exec, data));
        auto criteria = [](auto parameters) {
            parameters.with_criteria(larch::stop::max_iterations(100), larch::stop::relative_residual(1e-12));
            return parameters;
        };
        return {a,
                larch::share(larch::matrix::Coo<double>::create_from(exec, *a)),
                larch::share(larch::matrix::Ell<double>::create_from(exec, *a)),
                larch::share(Dense::create(exec, data)),
                larch::share(larch::preconditioner::BlockJacobi<double>::build().on(exec)->generate(a)),
                larch::share(criteria(larch::solver::Cg<double>::build()).on(exec)->generate(a)),
                larch::share(criteria(larch::solver::Bicgstab<double>::build()).on(exec)->generate(a)),
                larch::share(criteria(larch::solver::Idr<double>::build()).on(exec)->generate(a)),
                larch::share(criteria(larch::solver::Gmres<double>::build()).on(exec)->generate(a))};
    }
};

TEST_P(LinOpChecks, EveryOperatorRejectsXThatIsB)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    for (const auto& op : operators(exec)) {
        auto b = Dense::create(exec, std::vector<double>{1, 2, 3, 4, 5, 6});
        const auto before = b->copy_to_host();
        const auto message = larch::test::error_message_of([&] { op->apply(b, b); });
        larch::test::expect_contains(message, op->get_type_name() + "::apply: x shares memory with b");
        EXPECT_THROW(op->apply(1.0, b, 0.0, b), larch::BadInput) << op->get_type_name();
        EXPECT_EQ(b->copy_to_host(), before) << op->get_type_name() << " wrote before its check";
    }
}

TEST_P(LinOpChecks, EveryOperatorNamesANullOperand)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    for (const auto& op : operators(exec)) {
        auto v = Dense::create(exec, std::vector<double>{1, 2, 3, 4, 5, 6});
        const Dense* null_b = nullptr;
        Dense* null_x = nullptr;
        larch::test::expect_contains(larch::test::error_message_of([&] { op->apply(null_b, v); }),
                                     op->get_type_name() + "::apply: b is null");
        larch::test::expect_contains(larch::test::error_message_of([&] { op->apply(1.0, v, 0.0, null_x); }),
                                     op->get_type_name() + "::apply: x is null");
    }
    const larch::batch::Dense<double>* null_batch = nullptr;
    larch::test::expect_contains(
        larch::test::error_message_of([&] { larch::batch::GaussHuard<double>::build().on(exec)->generate(null_batch); }),
        "GaussHuard::generate: the batch is null");
    larch::test::expect_contains(larch::test::error_message_of([&] {
                                     larch::batch::CondEstimator<double>::build().on(exec)->generate(null_batch);
                                 }),
                                 "CondEstimator::generate: the batch is null");
}

TEST_P(LinOpChecks, EveryOperatorRejectsOverlappingViewsButAcceptsDisjointColumns)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    for (const auto& op : operators(exec)) {
        auto both = Dense::create(exec, dim2{6, 2});
        both->fill(1.0);
        auto all_columns = both->create_columns_view(0, 2);
        auto first = both->create_column_view(0);
        auto second = both->create_column_view(1);
        EXPECT_THROW(op->apply(first, all_columns->create_column_view(0)), larch::BadInput) << op->get_type_name();
        // column 1 of the same storage does not overlap column 0: a valid apply
        EXPECT_NO_THROW(op->apply(first, second)) << op->get_type_name();
    }
}

TEST_P(LinOpChecks, DenseRejectsXThatIsTheOperatorItself)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto a = Dense::create(exec, {{2.0, 1.0}, {1.0, 2.0}});
    auto b = Dense::create(exec, {{1.0, 0.0}, {0.0, 1.0}});
    larch::test::expect_contains(larch::test::error_message_of([&] { a->apply(b, a); }),
                                 "x shares memory with the operator itself");
}

TEST_P(LinOpChecks, BatchedOperatorsRejectXThatIsBAndGaussHuardSolvesInPlace)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // items [[2]] and [[4, 1], [1, 3]]
    auto a = larch::share(larch::batch::Dense<double>::create(exec, {dim2{1}, dim2{2}}, {2.0, 4.0, 1.0, 1.0, 3.0}));
    auto b = larch::batch::Vector<double>::create(exec, {1, 2}, 1, {2.0, 5.0, 4.0});
    larch::test::expect_contains(larch::test::error_message_of([&] { a->apply(*b, *b); }), "x is b");
    auto gh = larch::batch::GaussHuard<double>::build().on(exec)->generate(a);
    EXPECT_THROW(gh->apply(*b, *b), larch::BadInput);
    gh->solve(*b, *b);  // documented to work in place: x_0 = 1, x_1 = (1, 1)
    const auto x = b->copy_to_host();
    EXPECT_NEAR(x[0], 1.0, 1e-15);
    EXPECT_NEAR(x[1], 1.0, 1e-15);
    EXPECT_NEAR(x[2], 1.0, 1e-15);
}

TEST_P(LinOpChecks, DenseFromHostValuesAndResidualNorm)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto a = Dense::create(exec, dim2{2, 2}, std::vector<double>{2.0, 0.0, 0.0, 4.0});
    auto b = Dense::create(exec, std::vector<double>{2.0, 4.0});
    auto x = Dense::create(exec, std::vector<double>{1.0, 0.0});
    EXPECT_EQ(b->get_size(), (dim2{2, 1}));
    // b - A x = (0, 4)
    EXPECT_DOUBLE_EQ(larch::residual_norm<double>(a, b, x), 4.0);
    EXPECT_THROW(Dense::create(exec, dim2{2, 2}, std::vector<double>{1.0}), larch::BadInput);
}

TEST_P(LinOpChecks, SolverGivesItsPreconditionerAsItsOwnType)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto a = larch::share(Csr::create(exec, larch::generate::laplace_2d<double>(4)));
    auto solver = larch::solver::Cg<double>::build()
                      .with_criteria(larch::stop::max_iterations(100))
                      .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build())
                      .on(exec)
                      ->generate(a);
    auto jacobi = solver->get_preconditioner_as<larch::preconditioner::BlockJacobi<double>>();
    ASSERT_NE(jacobi, nullptr);
    EXPECT_TRUE(jacobi->get_zero_diagonal_rows().empty());
    EXPECT_THROW(solver->get_preconditioner_as<Dense>(), larch::NotSupported);
    // generate takes what create returns, moved in
    auto matrix = Csr::create(exec, larch::generate::laplace_2d<double>(4));
    auto plain = larch::solver::Cg<double>::build().with_criteria(larch::stop::max_iterations(1)).on(exec)->generate(
        std::move(matrix));
    EXPECT_EQ(plain->get_system_matrix()->get_size(), (dim2{16, 16}));
    EXPECT_THROW(plain->get_preconditioner_as<Dense>(), larch::BadInput);
}

TEST_P(LinOpChecks, StreamLoggerPrintsEveryKthIterationAndTheEnd)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto a = larch::share(Csr::create(exec, larch::generate::laplace_2d<double>(8)));
    std::ostringstream out;
    auto solver = larch::solver::Cg<double>::build()
                      .with_criteria(larch::stop::max_iterations(1000), larch::stop::relative_residual(1e-10))
                      .with_logger(larch::log::Stream::create(out, 3))
                      .on(exec)
                      ->generate(a);
    auto b = Dense::create(exec, std::vector<double>(64, 1.0));
    auto x = Dense::create(exec, std::vector<double>(64, 0.0));
    solver->apply(b, x);
    const auto text = out.str();
    larch::test::expect_contains(text, "column 0 iteration 0: residual ");
    larch::test::expect_contains(text, "column 0 iteration 3: residual ");
    larch::test::expect_contains(text, "column 0 iteration 6: residual ");
    EXPECT_EQ(text.find("column 0 iteration 4:"), std::string::npos) << text;
    larch::test::expect_contains(text, "column 0 converged after " +
                                           std::to_string(solver->get_status().iterations) + " iterations");
    EXPECT_THROW(larch::log::Stream::create(out, 0), larch::BadInput);
}

TEST_P(LinOpChecks, OneSolverAppliedFromSeveralThreadsAtOnce)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto a = larch::share(Csr::create(exec, larch::generate::laplace_2d<double>(10)));
    auto solver = larch::share(larch::solver::Bicgstab<double>::build()
                                   .with_criteria(larch::stop::max_iterations(1000),
                                                  larch::stop::relative_residual(1e-10))
                                   .on(exec)
                                   ->generate(a));
    auto b = Dense::create(exec, std::vector<double>(100, 1.0));
    std::vector<std::unique_ptr<Dense>> xs;
    for (int t = 0; t < 4; ++t) {
        xs.push_back(Dense::create(exec, std::vector<double>(100, 0.0)));
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] { solver->apply(b, xs[t]); });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    // the same solve four times: every x converged (||b|| = 10); the sequential reference executor gives the
    // identical x in each thread
    EXPECT_TRUE(solver->get_status().converged());
    for (int t = 0; t < 4; ++t) {
        EXPECT_LE(larch::residual_norm<double>(a, b, xs[t]), 1e-10 * 10 * 1.01) << "thread " << t;
        if (GetParam() == "reference") {
            EXPECT_EQ(xs[t]->copy_to_host(), xs[0]->copy_to_host()) << "thread " << t;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Executors, LinOpChecks, ::testing::ValuesIn(larch::test::executor_names()));

/// An executor whose memory the CPU executors cannot address (host memory behind it, but it says it is not
/// host memory), standing in for a GPU on a machine without one.
class ForeignExecutor final : public larch::Executor {
public:
    static std::shared_ptr<ForeignExecutor> create() { return std::shared_ptr<ForeignExecutor>(new ForeignExecutor); }
    void run(const larch::Operation&) const override { throw larch::NotSupported(__FILE__, __LINE__, "no kernels"); }
    void free_bytes(void* ptr) const noexcept override { std::free(ptr); }
    void synchronize() const override {}
    std::shared_ptr<const larch::Executor> get_host() const override { return larch::make_executor("reference"); }
    bool is_host() const override { return false; }
    std::string get_name() const override { return "foreign"; }

protected:
    void* raw_alloc(larch::size_type num_bytes) const override { return std::malloc(num_bytes); }
    void raw_copy_from_host(const void* src, larch::size_type n, void* dest) const override { std::memcpy(dest, src, n); }
    void raw_copy_to_host(const void* src, larch::size_type n, void* dest) const override { std::memcpy(dest, src, n); }
    void raw_copy_same_backend(const larch::Executor&, const void* src, larch::size_type n, void* dest) const override
    {
        std::memcpy(dest, src, n);
    }

private:
    ForeignExecutor() = default;
};

TEST(CrossExecutorOperands, HostExecutorsShareMemorySoOmpAppliesToReferenceVectors)
{
    auto reference = larch::make_executor("reference");
    auto omp = larch::make_executor("omp");
    auto a = Csr::create(omp, larch::generate::laplace_2d<double>(3));
    auto b = Dense::create(reference, std::vector<double>(9, 1.0));
    auto x_omp = Dense::create(reference, std::vector<double>(9, 0.0));
    auto x_reference = Dense::create(reference, std::vector<double>(9, 0.0));
    a->apply(b, x_omp);
    Csr::create(reference, larch::generate::laplace_2d<double>(3))->apply(b, x_reference);
    EXPECT_EQ(x_omp->copy_to_host(), x_reference->copy_to_host());
}

TEST(CrossExecutorOperands, OperandsInMemoryTheOperatorCannotAddressAreRejected)
{
    auto reference = larch::make_executor("reference");
    auto a = Csr::create(reference, larch::generate::laplace_2d<double>(3));
    auto b = Dense::create(ForeignExecutor::create(), dim2{9, 1});
    auto x = Dense::create(reference, dim2{9, 1});
    const auto message = larch::test::error_message_of([&] { a->apply(b, x); });
    larch::test::expect_contains(message, "operand on executor foreign but the operator lives on reference");
    EXPECT_THROW(a->apply(b, x), larch::NotSupported);
}

}  // namespace
