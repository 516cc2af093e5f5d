// matrix_market_solve: a Matrix Market file -> a Krylov solver with a preconditioner factory, on the executor
// named on the command line. The program a new user writes first; the README quotes it.
//
// Usage: matrix_market_solve A.mtx [executor]   (executor: reference, omp, cuda, cuda:N, hip, hip:N; default: best)
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <larch/base/executor.hpp>
#include <larch/io/matrix_market.hpp>
#include <larch/log/stream.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/matrix/dense.hpp>
#include <larch/preconditioner/block_jacobi.hpp>
#include <larch/solver/bicgstab.hpp>
#include <larch/solver/residual.hpp>

int main(int argc, char** argv)
{
    const char* const usage = "usage: matrix_market_solve A.mtx [executor]   (executor: reference, omp, cuda, "
                              "cuda:N, hip, hip:N; default: the best of this machine)\n";
    if (argc > 1 && (std::string{argv[1]} == "--help" || std::string{argv[1]} == "-h")) {
        std::cout << usage;
        return 0;
    }
    if (argc < 2) {
        std::cerr << usage;
        return 2;
    }
    if (argc > 3) {
        std::cerr << "matrix_market_solve: unexpected argument '" << argv[3] << "'\n" << usage;
        return 2;
    }
    try {
        // The executor is chosen at run time; everything below runs on it.
        const auto exec = larch::make_executor(argc > 2 ? argv[2] : larch::best_available_executor_name());
        // A solver keeps its system matrix alive, so the matrix is shared.
        const auto A = larch::share(larch::io::read_matrix_market<larch::matrix::Csr<double>>(argv[1], exec));
        const auto n = A->get_size().rows;
        const auto b = larch::matrix::Dense<double>::create(exec, std::vector<double>(n, 1.0));
        auto x = larch::matrix::Dense<double>::create(exec, std::vector<double>(n, 0.0));
        if (A->get_size() == larch::dim2{0, 0}) {
            std::cerr << "matrix_market_solve: " << argv[1] << " is a 0 x 0 matrix: nothing to solve\n";
            return 2;
        }

        // BiCGSTAB with a (scalar) block-Jacobi preconditioner, generated from A with the solver; the
        // residual printed every 25 iterations.
        const auto solver = larch::solver::Bicgstab<double>::build()
                                .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build())
                                .with_criteria(larch::stop::max_iterations(2000),
                                               larch::stop::relative_residual(1e-8))
                                .with_logger(larch::log::Stream::create(std::cout, 25))
                                .on(exec)
                                ->generate(A);
        solver->apply(b, x);  // x holds the initial guess on entry

        const auto status = solver->get_status();
        const auto jacobi = solver->get_preconditioner_as<larch::preconditioner::BlockJacobi<double>>();
        const double relative = larch::residual_norm<double>(A, b, x) / std::sqrt(double(n));
        std::cout << argv[1] << " on " << exec->get_name() << ": " << larch::stop::to_string(status.reason)
                  << " after " << status.iterations << " iterations, ||b - Ax|| / ||b|| = " << relative << " ("
                  << jacobi->get_zero_diagonal_rows().size() << " zero diagonal entries)\n";
        return status.converged() ? 0 : 1;
    } catch (const std::exception& error) {  // larch::Error, or e.g. std::bad_alloc for a huge matrix
        std::cerr << "matrix_market_solve: " << error.what() << "\n";
        return 2;
    }
}
