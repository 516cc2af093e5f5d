// distributed_solve: one linear system spread over MPI processes. Each process owns a block of rows of a
// distributed::Matrix; an unchanged larch Krylov solver with block-Jacobi on each process's diagonal block
// solves it. The README's distributed section quotes this program.
//
// Usage: mpirun -np N distributed_solve [A.mtx] [options] (--help lists them). cuda/hip: process k of a node
// uses device k mod (devices on the node).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <larch/config/solver_config.hpp>
#include <larch/distributed/communicator.hpp>
#include <larch/distributed/matrix.hpp>
#include <larch/distributed/vector.hpp>
#include <larch/generate/problems.hpp>
#include <larch/preconditioner/block_jacobi.hpp>
#include <larch/solver/bicgstab.hpp>
#include <larch/solver/cg.hpp>
#include <larch/solver/gmres.hpp>
#include <larch/solver/idr.hpp>
#include <larch/solver/residual.hpp>

#include "flag_value.hpp"

namespace {

const char* const usage =
    "usage: mpirun -np N distributed_solve [A.mtx] [--executor omp|reference|cuda|hip]\n"
    "                                      [--solver cg|bicgstab|gmres|idr] [--size n] [--config solver.json]\n"
    "  Without a file: the 3D Laplace problem on an n^3 grid (n = 20 by default), right-hand side of ones.\n"
    "  Block-Jacobi (blocks of up to 8 rows) on each process's diagonal block; --config replaces the solver.\n";

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The solver factory named on the command line, with block-Jacobi (blocks of up to 8 rows).
std::unique_ptr<larch::solver::SolverFactory<double>> make_factory(const std::string& name,
                                                                   std::shared_ptr<const larch::Executor> exec)
{
    const auto jacobi = larch::preconditioner::BlockJacobi<double>::build().with_max_block_size(8);
    const auto criteria = [](auto parameters) {
        return parameters.with_criteria(larch::stop::max_iterations(5000), larch::stop::relative_residual(1e-8));
    };
    if (name == "cg") {
        return criteria(larch::solver::Cg<double>::build().with_preconditioner(jacobi)).on(exec);
    }
    if (name == "gmres") {
        return criteria(larch::solver::Gmres<double>::build().with_preconditioner(jacobi)).on(exec);
    }
    if (name == "idr") {
        return criteria(larch::solver::Idr<double>::build().with_preconditioner(jacobi)).on(exec);
    }
    if (name == "bicgstab") {
        return criteria(larch::solver::Bicgstab<double>::build().with_preconditioner(jacobi)).on(exec);
    }
    LARCH_THROW(larch::BadInput, "unknown solver '" + name + "' (cg, bicgstab, gmres, idr)");
}

int run(int argc, char** argv)
{
    const auto comm = larch::mpi::communicator::create(MPI_COMM_WORLD);
    std::string path;
    std::string backend = "omp";
    std::string solver_name = "cg";
    std::string config_path;
    larch::size_type size = 20;
    int help = 0;
    // mpirun may start the processes with different arguments (mpirun -np 1 A : -np 1 B): arguments that one
    // process rejects end them all, not only that one.
    comm->check_on_every_process([&] {
        std::vector<std::string> flags;
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            const auto value = [&] { return larch::examples::next_flag_value(argc, argv, i); };
            if (arg == "--help" || arg == "-h") {
                help = 1;
                return;
            }
            if (arg == "--executor" || arg == "--solver" || arg == "--size" || arg == "--config") {
                flags.push_back(arg);
            }
            if (arg == "--executor") {
                backend = value();
            } else if (arg == "--solver") {
                solver_name = value();
            } else if (arg == "--size") {
                size = larch::examples::flag_value<larch::size_type>(arg, value());
            } else if (arg == "--config") {
                config_path = value();
            } else if (arg.rfind("-", 0) == 0 || !path.empty()) {
                LARCH_THROW(larch::BadInput, "unexpected argument '" + arg + "'\n" + usage);
            } else {
                path = arg;
            }
        }
        larch::examples::reject_repeated_flags(flags);
        const auto given = [&](const std::string& flag) {
            return std::find(flags.begin(), flags.end(), flag) != flags.end();
        };
        LARCH_ENSURE(path.empty() || !given("--size"), larch::BadInput,
                     "--size cannot be combined with the matrix file " + path +
                         ": it sizes the generated problem only");
        LARCH_ENSURE(config_path.empty() || !given("--solver"), larch::BadInput,
                     "--solver cannot be combined with --config: the solver and its preconditioner come from the "
                     "file");
    });
    // --help on any process prints the usage once and ends every process.
    MPI_Allreduce(MPI_IN_PLACE, &help, 1, MPI_INT, MPI_MAX, comm->get());
    if (help) {
        if (comm->rank() == 0) {
            std::printf("%s", usage);
        }
        return 0;
    }
    // Each process picks its own executor (cuda:<local rank mod devices> for GPUs); one that cannot (no
    // device on its node) ends them all.
    std::shared_ptr<const larch::Executor> exec;
    comm->check_on_every_process(
        [&] { exec = larch::make_executor(larch::mpi::map_rank_to_executor(*comm, backend)); });

    const auto setup_start = std::chrono::steady_clock::now();
    // Process 0 reads (or generates) the matrix and scatters its rows; the partition is uniform.
    std::shared_ptr<const larch::distributed::Matrix<double>> A;
    if (!path.empty()) {
        A = larch::share(larch::distributed::Matrix<double>::read_matrix_market(exec, comm, path));
    } else {
        // Only process 0 generates: a size it refuses (0, or too many rows for the index type) must end the
        // other processes too, not leave them waiting in the scatter.
        larch::matrix_data<double> data;
        comm->check_on_every_process([&] {
            if (comm->rank() == 0) {
                data = larch::generate::laplace_3d<double, std::int32_t>(size);
            }
        });
        const auto partition = larch::distributed::Partition::create_uniform(comm, size * size * size);
        A = larch::share(larch::distributed::Matrix<double>::create_from_global(exec, partition, data));
    }
    const auto partition = A->get_partition();
    auto b = larch::distributed::Vector<double>::create(exec, partition);
    b->fill(1.0);
    auto x = larch::distributed::Vector<double>::create(exec, partition);
    x->fill(0.0);

    // The solver is an ordinary larch solver: it sees A as a LinOp and b, x as Dense vectors.
    // Every process reads the description itself: one that cannot (a file missing on its node) ends them all.
    std::unique_ptr<larch::solver::SolverFactory<double>> factory;
    comm->check_on_every_process([&] {
        factory = config_path.empty() ? make_factory(solver_name, exec)
                                      : larch::config::read_solver_config<double>(config_path, exec);
    });
    const auto solver = factory->generate(A);
    const double setup_seconds = seconds_since(setup_start);
    MPI_Barrier(comm->get());
    const auto solve_start = std::chrono::steady_clock::now();
    solver->apply(b, x);
    exec->synchronize();
    const double solve_seconds = seconds_since(solve_start);

    // The true residual ||b - A x|| / ||b|| of the whole system (both norms are collective); ||b - A x|| where
    // b is zero (an empty matrix), as solve prints it.
    const double b_norm = b->compute_norm2()[0];
    const double residual = larch::residual_norm<double>(A, b, x);
    const double relative_residual = b_norm > 0 ? residual / b_norm : residual;

    const auto status = solver->get_status();
    // One line per process, in rank order.
    for (int p = 0; p < comm->size(); ++p) {
        if (p == comm->rank()) {
            std::printf("process %d on %s: rows [%zu, %zu), %zu ghosts from %zu processes\n", p,
                        exec->get_name().c_str(), partition->get_local_begin(),
                        partition->get_local_begin() + partition->get_local_rows(), A->get_ghost_columns().size(),
                        A->get_receive_processes().size());
            std::fflush(stdout);
        }
        MPI_Barrier(comm->get());
    }
    if (comm->rank() == 0) {
        std::printf("%s, %zu rows on %d processes: %s after %zu iterations, true residual %.3e, setup %.3f s, "
                    "solve %.3f s\n",
                    path.empty() ? ("laplace_3d(" + std::to_string(size) + ")").c_str() : path.c_str(),
                    partition->get_global_rows(), comm->size(), larch::stop::to_string(status.reason),
                    status.iterations, relative_residual, setup_seconds, solve_seconds);
    }
    return status.converged() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int result = 2;
    try {
        result = run(argc, argv);
    } catch (const larch::Error& error) {
        // Collective checks make every process throw together, so every one ends here.
        std::cerr << "distributed_solve: " << error.what() << "\n";
    }
    MPI_Finalize();
    return result;
}
