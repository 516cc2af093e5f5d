// The unchanged Krylov solvers on distributed::Matrix against the same solvers on one process: CG, BiCGSTAB,
// GMRES and IDR(4) with scalar Jacobi (the same preconditioner whatever the partition), on generated and real
// matrices, every partition kind; block-Jacobi on each process's diagonal block, and its failure on one
// process only; a JSON-configured solver.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "larch/batch/status.hpp"
#include "larch/config/solver_config.hpp"
#include "larch/distributed/matrix.hpp"
#include "larch/distributed/vector.hpp"
#include "larch/generate/problems.hpp"
#include "larch/io/matrix_market.hpp"
#include "larch/solver/gmres.hpp"
#include "larch/solver/residual.hpp"
#include "test/distributed/distributed_test_utils.hpp"
#include "test/solver/solver_test_utils.hpp"

namespace larch {
namespace test {
namespace {

using Csr = matrix::Csr<double>;
using Dense = matrix::Dense<double>;
using Vector = distributed::Vector<double>;
using Matrix = distributed::Matrix<double>;

constexpr double tolerance = 1e-10;

struct Problem {
    std::string name;
    matrix_data<double> data;
    std::vector<SolverKind> solvers;
    /// Whether ||x - x_single|| / ||x_single|| <= 1e-6 is expected (well-conditioned problems).
    bool compare_solutions;
};

std::vector<Problem> problems()
{
    const std::vector<SolverKind> all{SolverKind::cg, SolverKind::bicgstab, SolverKind::gmres, SolverKind::idr};
    const std::vector<SolverKind> nonsymmetric{SolverKind::bicgstab, SolverKind::gmres, SolverKind::idr};
    std::vector<Problem> result;
    result.push_back({"laplace_2d(12)", generate::laplace_2d<double, std::int32_t>(12), all, true});
    result.push_back({"convection_diffusion_2d(12)", generate::convection_diffusion_2d<double, std::int32_t>(12, 0.5),
                      nonsymmetric, true});
    const auto nos4 = matrix_path("nos4");
    if (!nos4.empty()) {
        result.push_back({"nos4", io::read_matrix_market_data<double, std::int32_t>(nos4), all, false});
    }
    const auto gre = matrix_path("gre_115");
    if (!gre.empty()) {
        result.push_back({"gre_115", io::read_matrix_market_data<double, std::int32_t>(gre), {SolverKind::gmres}, false});
    }
    return result;
}

/// Whether `value` is the same on every process.
bool same_everywhere(double value)
{
    double low = 0;
    double high = 0;
    MPI_Allreduce(&value, &low, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&value, &high, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return low == high;
}

SolverSetup setup_with(bool jacobi)
{
    SolverSetup setup;
    setup.criteria = {stop::max_iterations(2000), stop::relative_residual(tolerance)};
    setup.jacobi = jacobi;
    return setup;
}

TEST(DistributedSolvers, GiveTheSingleProcessResultsOnEveryPartition)
{
    const auto processes = world()->size();
    for (const auto& exec : test_executors()) {
        if (exec->get_name() == "reference") {
            continue;  // omp runs the same algorithms; the reference executor only makes the test slower
        }
        for (const auto& problem : problems()) {
            const auto n = problem.data.size.rows;
            const auto rhs = generate::right_hand_side<double>(n, generate::RhsKind::uniform, 7);
            const auto b = Dense::create(exec, rhs);
            const auto a = share(Csr::create(exec, problem.data));
            for (const auto kind : problem.solvers) {
                auto single_x = Dense::create(exec, dim2{n, 1});
                single_x->fill(0.0);
                const auto single = make_solver<double>(kind, exec, a, setup_with(true));
                single->apply(b, single_x);
                const auto single_status = single->get_status();
                ASSERT_EQ(single_status.reason, stop::Reason::converged) << problem.name << " " << to_string(kind);
                for (const auto partition_kind : partition_kinds()) {
                    SCOPED_TRACE(problem.name + ", " + to_string(kind) + ", " + to_string(partition_kind) +
                                 " partition, " + exec->get_name());
                    const auto partition = make_partition(partition_kind, n);
                    const auto matrix = share(Matrix::create_from_global(exec, partition, problem.data));
                    const auto solver = make_solver<double>(kind, exec, matrix, setup_with(true));
                    const auto local_b = Vector::create_from_global(exec, partition, *b);
                    auto local_x = Vector::create(exec, partition, 1);
                    local_x->fill(0.0);
                    solver->apply(local_b, local_x);
                    const auto status = solver->get_status();
                    EXPECT_EQ(status.reason, stop::Reason::converged) << status.message;
                    // Every process saw the same scalars, so they agree on everything the status says.
                    EXPECT_TRUE(same_everywhere(static_cast<double>(status.iterations)));
                    EXPECT_TRUE(same_everywhere(status.residual_norm));
                    // The status reports the true residual of the whole system, as residual_norm computes it.
                    EXPECT_EQ(residual_norm<double>(matrix, local_b, local_x), status.residual_norm);
                    const auto x = local_x->gather_global(exec)->copy_to_host();
                    const auto expected = single_x->copy_to_host();
                    if (processes == 1) {
                        // One process adds its partial sums to nothing: the very same computation.
                        EXPECT_EQ(status.iterations, single_status.iterations);
                        EXPECT_EQ(x, expected);
                        continue;
                    }
                    // Other processes, other groupings of the reductions' sums: rounding-level differences that
                    // the iteration may amplify a little (a few iterations more or less), nothing more.
                    const auto slack = std::max<size_type>(3, single_status.iterations / 5);
                    EXPECT_LE(status.iterations, single_status.iterations + slack);
                    EXPECT_GE(status.iterations + slack, single_status.iterations);
                    // The solution meets the tolerance by an oracle that knows nothing of MPI or the solver.
                    EXPECT_LE(host_residual_norm(problem.data, rhs, x), 1.01 * tolerance * host_norm(rhs));
                    if (problem.compare_solutions) {
                        // Both solutions are within cond(A) * 1e-10 of the exact one; cond < 1e3 here.
                        std::vector<double> difference(n);
                        std::transform(x.begin(), x.end(), expected.begin(), difference.begin(), std::minus<>{});
                        EXPECT_LE(host_norm(difference), 1e-6 * host_norm(expected));
                    }
                }
            }
        }
    }
}

TEST(DistributedSolvers, StopForTheSameReasonsOnEveryProcessAsOnOne)
{
    const auto exec = make_executor("omp");
    const auto data = generate::laplace_2d<double, std::int32_t>(10);
    const size_type n = 100;
    const auto partition = make_partition(PartitionKind::uneven, n);
    const auto matrix = share(Matrix::create_from_global(exec, partition, data));
    for (const auto kind : {SolverKind::cg, SolverKind::bicgstab, SolverKind::gmres, SolverKind::idr}) {
        SCOPED_TRACE(to_string(kind));
        SolverSetup setup = setup_with(true);
        setup.criteria = {stop::max_iterations(3), stop::relative_residual(1e-14)};
        const auto solver = make_solver<double>(kind, exec, matrix, setup);
        auto b = Vector::create(exec, partition, 1);
        b->fill(1.0);
        auto x = Vector::create(exec, partition, 1);
        x->fill(0.0);
        // The iteration limit, reached together.
        solver->apply(b, x);
        EXPECT_EQ(solver->get_status().reason, stop::Reason::max_iterations);
        EXPECT_EQ(solver->get_status().iterations, 3u);
        // b = 0: x = 0 at once.
        b->fill(0.0);
        x->fill(1.0);
        solver->apply(b, x);
        EXPECT_EQ(solver->get_status().reason, stop::Reason::converged);
        EXPECT_EQ(x->compute_norm2()[0], 0.0);
        // NaN in the part of b of the last process that owns rows: every process stops with non_finite.
        b->fill(1.0);
        if (partition->get_owner(n - 1) == partition->get_communicator()->rank()) {
            b->fill(std::nan(""));
        }
        solver->apply(b, x);
        EXPECT_EQ(solver->get_status().reason, stop::Reason::non_finite);
    }
}

TEST(DistributedSolvers, GmresCapsItsRestartAtTheOrderOfTheWholeSystem)
{
    const auto exec = make_executor("omp");
    const size_type n = 100;
    const auto partition = make_partition(PartitionKind::uneven, n);
    const auto matrix = share(Matrix::create_from_global(exec, partition, generate::laplace_2d<double, std::int32_t>(10)));
    // every process runs the same restart: the global order, not its own rows (the processes' counts must agree)
    const auto solver = solver::Gmres<double>::build()
                            .with_restart(1000)
                            .with_criteria(stop::max_iterations(500), stop::relative_residual(1e-10))
                            .on(exec)
                            ->generate(matrix);
    EXPECT_EQ(solver->get_krylov_dim(), n);
    auto b = Vector::create(exec, partition, 1);
    b->fill(1.0);
    auto x = Vector::create(exec, partition, 1);
    x->fill(0.0);
    solver->apply(b, x);
    EXPECT_EQ(solver->get_status().reason, stop::Reason::converged);
}

TEST(DistributedSolvers, CgSolvesSeveralRightHandSidesTogether)
{
    const auto exec = make_executor("reference");
    const size_type n = 64;
    const auto data = generate::laplace_2d<double, std::int32_t>(8);
    std::vector<double> rhs(n * 2);
    for (size_type i = 0; i < rhs.size(); ++i) {
        rhs[i] = std::cos(0.3 * static_cast<double>(i));
    }
    const auto b = Dense::create(exec, dim2{n, 2}, rhs);
    const auto partition = make_partition(PartitionKind::uneven, n);
    const auto matrix = share(Matrix::create_from_global(exec, partition, data));
    const auto solver = make_solver<double>(SolverKind::cg, exec, matrix, setup_with(true));
    const auto local_b = Vector::create_from_global(exec, partition, *b);
    auto local_x = Vector::create(exec, partition, 2);
    local_x->fill(0.0);
    solver->apply(local_b, local_x);
    const auto x = local_x->gather_global(exec);
    for (size_type col = 0; col < 2; ++col) {
        EXPECT_EQ(solver->get_status(col).reason, stop::Reason::converged);
        std::vector<double> b_col(n);
        std::vector<double> x_col(n);
        for (size_type i = 0; i < n; ++i) {
            b_col[i] = rhs[i * 2 + col];
            x_col[i] = x->at(i, col);
        }
        EXPECT_LE(host_residual_norm(data, b_col, x_col), 1.01 * tolerance * host_norm(b_col));
    }
}

TEST(DistributedSolvers, BlockJacobiOnEachLocalBlockPreconditions)
{
    // Block-Jacobi (blocks of up to 8 rows) generated by the solver on each process's diagonal block: fewer
    // iterations than without a preconditioner on a problem with a strongly varying diagonal, and a solution
    // that meets the tolerance.
    const auto exec = make_executor("omp");
    auto data = generate::block_fem<double, std::int32_t>(20, 2, 4, 11);
    const auto n = data.size.rows;
    const auto rhs = generate::right_hand_side<double>(n, generate::RhsKind::uniform, 3);
    const auto b = Dense::create(exec, rhs);
    const auto partition = make_partition(PartitionKind::uneven, n);
    const auto matrix = share(Matrix::create_from_global(exec, partition, data));
    const auto local_b = Vector::create_from_global(exec, partition, *b);
    const SolverSetup plain = setup_with(false);
    auto parameters = solver::Bicgstab<double>::build();
    parameters.criteria = plain.criteria;
    parameters.with_preconditioner(preconditioner::BlockJacobi<double>::build().with_max_block_size(8));
    const auto preconditioned = parameters.on(exec)->generate(matrix);
    const auto unpreconditioned = make_solver<double>(SolverKind::bicgstab, exec, matrix, plain);
    auto x = Vector::create(exec, partition, 1);
    x->fill(0.0);
    preconditioned->apply(local_b, x);
    auto x_plain = Vector::create(exec, partition, 1);
    x_plain->fill(0.0);
    unpreconditioned->apply(local_b, x_plain);
    EXPECT_EQ(preconditioned->get_status().reason, stop::Reason::converged);
    EXPECT_LE(host_residual_norm(data, rhs, x->gather_global(exec)->copy_to_host()), 1.01 * tolerance * host_norm(rhs));
    const auto jacobi = preconditioned->get_preconditioner_as<preconditioner::BlockJacobi<double>>();
    EXPECT_EQ(jacobi->get_size(), (dim2{partition->get_local_rows(), partition->get_local_rows()}));
    if (unpreconditioned->get_status().reason == stop::Reason::converged) {
        EXPECT_LT(preconditioned->get_status().iterations, unpreconditioned->get_status().iterations);
    }
}

TEST(DistributedSolvers, APreconditionerThatFailsOnOneProcessThrowsOnEveryProcess)
{
    // Two rows per process, the identity but for the last process's diagonal block [[1, 1], [1, 1]], which
    // is singular: block-Jacobi told to throw for such a block fails on that process only.
    const auto comm = world();
    const auto n = 2 * static_cast<size_type>(comm->size());
    matrix_data<double> data{dim2{n, n}};
    for (size_type row = 0; row < n; ++row) {
        data.entries.push_back({static_cast<std::int32_t>(row), static_cast<std::int32_t>(row), 1.0});
    }
    const auto last = static_cast<std::int32_t>(n - 1);
    data.entries.push_back({last - 1, last, 1.0});
    data.entries.push_back({last, last - 1, 1.0});
    const auto exec = make_executor("reference");
    const auto matrix = share(Matrix::create_from_global(exec, make_partition(PartitionKind::uniform, n), data));
    const auto jacobi = preconditioner::BlockJacobi<double>::build().with_max_block_size(2).with_on_singular_block(
        preconditioner::SingularBlockPolicy::throw_error);
    const auto factory =
        solver::Cg<double>::build().with_criteria(stop::max_iterations(10)).with_preconditioner(jacobi).on(exec);
    std::string message;
    EXPECT_TRUE(throws_everywhere<BadInput>([&] { factory->generate(matrix); }, &message));
    EXPECT_NE(message.find("singular"), std::string::npos) << message;
    // Block-Jacobi names the block's local rows; every process's message also names the process and the
    // global row its rows start at, once.
    const auto process = comm->size() - 1;
    const auto context = "on process " + std::to_string(process) + " of " + std::to_string(comm->size()) +
                         " (its rows start at global row " + std::to_string(2 * process) + "): ";
    EXPECT_NE(message.find(context + "BlockJacobi::generate: diagonal block 0 (rows 0 to 1)"), std::string::npos)
        << message;
    EXPECT_EQ(message.find("on process", message.find(context) + 1), std::string::npos) << message;
}

/// A preconditioner factory whose generation throws batch::SingularItems (items 1 and 3) on the last process.
class SingularOnTheLastProcess : public LinOpFactory {
public:
    explicit SingularOnTheLastProcess(std::shared_ptr<const Executor> exec) : LinOpFactory(std::move(exec)) {}

protected:
    std::unique_ptr<LinOp> generate_impl(std::shared_ptr<const LinOp> block) const override
    {
        if (world()->rank() == world()->size() - 1) {
            throw batch::SingularItems(__FILE__, __LINE__, "items 1 and 3 are singular", {1, 3});
        }
        return block->clone();
    }
};

TEST(DistributedSolvers, APreconditionerErrorGetsTheProcessContextAndKeepsItsTypeAndContents)
{
    const auto comm = world();
    const auto n = 2 * static_cast<size_type>(comm->size());
    matrix_data<double> data{dim2{n, n}};
    for (size_type row = 0; row < n; ++row) {
        data.entries.push_back({static_cast<std::int32_t>(row), static_cast<std::int32_t>(row), 1.0});
    }
    const auto exec = make_executor("reference");
    const auto matrix = share(Matrix::create_from_global(exec, make_partition(PartitionKind::uniform, n), data));
    const auto factory = solver::Cg<double>::build()
                             .with_criteria(stop::max_iterations(10))
                             .with_preconditioner(std::make_shared<SingularOnTheLastProcess>(exec))
                             .on(exec);
    const auto last = comm->size() - 1;
    if (comm->rank() != last) {
        // The others learn of it as BadInput, the kind check_on_every_process carries.
        EXPECT_THROW(factory->generate(matrix), BadInput);
        return;
    }
    try {
        factory->generate(matrix);
        FAIL() << "no exception";
    } catch (const batch::SingularItems& e) {
        EXPECT_EQ(e.get_items(), (std::vector<size_type>{1, 3}));
        EXPECT_EQ(e.get_message(), "on process " + std::to_string(last) + " of " + std::to_string(comm->size()) +
                                       " (its rows start at global row " + std::to_string(2 * last) +
                                       "): items 1 and 3 are singular");
    }
}

TEST(DistributedSolvers, JsonConfiguredSolverRunsOnADistributedMatrix)
{
    const auto exec = make_executor("omp");
    const auto data = generate::convection_diffusion_2d<double, std::int32_t>(10, 0.3);
    const auto n = data.size.rows;
    const auto rhs = generate::right_hand_side<double>(n, generate::RhsKind::uniform, 5);
    const auto partition = make_partition(PartitionKind::first_empty, n);
    const auto matrix = share(Matrix::create_from_global(exec, partition, data));
    const auto solver = config::parse_solver_config<double>(R"({
        "type": "idr", "subspace_dim": 2,
        "criteria": {"max_iterations": 500, "relative_residual": 1e-10},
        "preconditioner": {"type": "block_jacobi", "max_block_size": 4}})", exec)->generate(matrix);
    const auto local_b = Vector::create_from_global(exec, partition, *Dense::create(exec, rhs));
    auto x = Vector::create(exec, partition, 1);
    x->fill(0.0);
    solver->apply(local_b, x);
    EXPECT_EQ(solver->get_status().reason, stop::Reason::converged);
    EXPECT_LE(host_residual_norm(data, rhs, x->gather_global(exec)->copy_to_host()), 1.01 * tolerance * host_norm(rhs));
}

}  // namespace
}  // namespace test
}  // namespace larch
