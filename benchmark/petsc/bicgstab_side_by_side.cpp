// bicgstab_side_by_side: PETSc's and larch's BiCGSTAB with scalar Jacobi on the same matrices, one core each:
// iterations, stop reason, the true relative residual ||b - Ax|| / ||b|| of each (recomputed here from the
// file's entries) and the time per iteration. b = ones, x0 = 0, relative tolerance 1e-9, at most 50,000
// iterations. Not a test: the comparison that the iteration counts and per-iteration costs are judged by.
// Built only where PETSc is found (Debian: libpetsc-real-dev). Run it with OMP_NUM_THREADS=1.
//
// Usage: bicgstab_side_by_side [--executors reference,omp] [--repeat N] matrix ... [-- PETSc options]
// where a matrix is a Matrix Market file or laplace2d:N / laplace3d:N (generated, N^2 or N^3 rows).
#include <petscksp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <larch/base/executor.hpp>
#include <larch/generate/problems.hpp>
#include <larch/io/matrix_market.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/preconditioner/block_jacobi.hpp>
#include <larch/solver/bicgstab.hpp>

namespace {

using Data = larch::matrix_data<double, std::int32_t>;
using clock_type = std::chrono::steady_clock;

constexpr double tolerance = 1e-9;
constexpr larch::size_type max_iterations = 50000;

struct Outcome {
    std::string reason;
    long iterations = 0;
    double relative_residual = 0;
    double seconds = 0;  // the fastest of the repeated solves
};

double true_relative_residual(const Data& a, const std::vector<double>& b, const std::vector<double>& x)
{
    std::vector<long double> r(b.begin(), b.end());
    for (const auto& e : a.entries) {
        r[e.row] -= static_cast<long double>(e.value) * x[e.col];
    }
    long double r_norm = 0, b_norm = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        r_norm += r[i] * r[i];
        b_norm += static_cast<long double>(b[i]) * b[i];
    }
    return static_cast<double>(std::sqrt(r_norm / b_norm));
}

#define CHECK_PETSC(call)                                                          \
    do {                                                                           \
        PetscErrorCode petsc_status = (call);                                      \
        if (petsc_status != 0) {                                                   \
            std::fprintf(stderr, "PETSc error %d in %s\n", int(petsc_status), #call); \
            std::exit(3);                                                          \
        }                                                                          \
    } while (false)

Outcome run_petsc(const Data& data, int repeat)
{
    const auto n = static_cast<PetscInt>(data.size.rows);
    std::vector<PetscInt> row_nnz(n, 0);
    for (const auto& e : data.entries) {
        ++row_nnz[e.row];
    }
    Mat a;
    CHECK_PETSC(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 0, row_nnz.data(), &a));
    for (const auto& e : data.entries) {
        CHECK_PETSC(MatSetValue(a, e.row, e.col, e.value, ADD_VALUES));
    }
    CHECK_PETSC(MatAssemblyBegin(a, MAT_FINAL_ASSEMBLY));
    CHECK_PETSC(MatAssemblyEnd(a, MAT_FINAL_ASSEMBLY));
    Vec b, x;
    CHECK_PETSC(MatCreateVecs(a, &x, &b));
    CHECK_PETSC(VecSet(b, 1.0));
    KSP ksp;
    PC pc;
    CHECK_PETSC(KSPCreate(PETSC_COMM_SELF, &ksp));
    CHECK_PETSC(KSPSetOperators(ksp, a, a));
    CHECK_PETSC(KSPSetType(ksp, KSPBCGS));
    CHECK_PETSC(KSPGetPC(ksp, &pc));
    CHECK_PETSC(PCSetType(pc, PCJACOBI));
    CHECK_PETSC(KSPSetTolerances(ksp, tolerance, PETSC_DEFAULT, PETSC_DEFAULT, max_iterations));
    CHECK_PETSC(KSPSetFromOptions(ksp));
    CHECK_PETSC(KSPSetUp(ksp));
    Outcome outcome;
    outcome.seconds = 1e300;
    for (int k = 0; k < repeat; ++k) {
        CHECK_PETSC(VecSet(x, 0.0));
        const auto start = clock_type::now();
        CHECK_PETSC(KSPSolve(ksp, b, x));
        outcome.seconds =
            std::min(outcome.seconds, std::chrono::duration<double>(clock_type::now() - start).count());
    }
    PetscInt iterations;
    KSPConvergedReason reason;
    CHECK_PETSC(KSPGetIterationNumber(ksp, &iterations));
    CHECK_PETSC(KSPGetConvergedReason(ksp, &reason));
    outcome.iterations = iterations;
    outcome.reason = KSPConvergedReasons[reason];
    const PetscScalar* x_values;
    CHECK_PETSC(VecGetArrayRead(x, &x_values));
    std::vector<double> x_host(x_values, x_values + n);
    CHECK_PETSC(VecRestoreArrayRead(x, &x_values));
    outcome.relative_residual = true_relative_residual(data, std::vector<double>(n, 1.0), x_host);
    KSPDestroy(&ksp);
    VecDestroy(&x);
    VecDestroy(&b);
    MatDestroy(&a);
    return outcome;
}

Outcome run_larch(const Data& data, const std::string& executor, int repeat)
{
    auto exec = larch::make_executor(executor);
    const auto n = data.size.rows;
    auto a = larch::share(larch::matrix::Csr<double>::create(exec, data));
    // kappa 0: PETSc's bcgs has no omega safeguard.
    auto solver = larch::solver::Bicgstab<double>::build()
                      .with_kappa(0)
                      .with_criteria(larch::stop::max_iterations(max_iterations),
                                     larch::stop::relative_residual(tolerance))
                      .with_preconditioner(larch::preconditioner::BlockJacobi<double>::build().with_max_block_size(1))
                      .on(exec)
                      ->generate(a);
    auto b = larch::matrix::Dense<double>::create(exec, larch::dim2{n, 1});
    auto x = larch::matrix::Dense<double>::create(exec, larch::dim2{n, 1});
    b->fill(1.0);
    Outcome outcome;
    outcome.seconds = 1e300;
    for (int k = 0; k < repeat; ++k) {
        x->fill(0.0);
        exec->synchronize();
        const auto start = clock_type::now();
        solver->apply(b, x);
        exec->synchronize();
        outcome.seconds =
            std::min(outcome.seconds, std::chrono::duration<double>(clock_type::now() - start).count());
    }
    const auto status = solver->get_status();
    outcome.iterations = static_cast<long>(status.iterations);
    outcome.reason = larch::stop::to_string(status.reason);
    outcome.relative_residual = true_relative_residual(data, std::vector<double>(n, 1.0), x->copy_to_host());
    return outcome;
}

std::string cell(const Outcome& outcome)
{
    char text[160];
    std::snprintf(text, sizeof text, "%ld | %.1e | %s | %.2f", outcome.iterations, outcome.relative_residual,
                  outcome.reason.c_str(),
                  outcome.iterations > 0 ? 1e6 * outcome.seconds / outcome.iterations : 0.0);
    return text;
}

constexpr const char* usage =
    "usage: bicgstab_side_by_side [--executors reference,omp] [--repeat N] matrix ... [-- PETSc options]\n"
    "       a matrix is a Matrix Market file or laplace2d:N / laplace3d:N (generated)\n";

/// A positive integer given for `what` (it fits an int).
int parse_positive(const std::string& text, const std::string& what)
{
    std::size_t end = 0;
    int value = 0;
    try {
        value = std::stoi(text, &end);
    } catch (const std::exception&) {
        end = 0;  // not a number, or out of int's range
    }
    if (text.empty() || end != text.size() || value < 1) {
        throw std::invalid_argument(what + " needs a positive integer, got '" + text + "'");
    }
    return value;
}

/// The matrix an argument names: laplace2d:N or laplace3d:N generated, anything else read as a file.
Data load_matrix(const std::string& argument)
{
    for (const std::string prefix : {"laplace2d:", "laplace3d:"}) {
        if (argument.rfind(prefix, 0) == 0) {
            const larch::size_type n = parse_positive(argument.substr(prefix.size()), argument);
            return prefix == "laplace2d:" ? larch::generate::laplace_2d<double>(n)
                                          : larch::generate::laplace_3d<double>(n);
        }
    }
    return larch::io::read_matrix_market_data<double, std::int32_t>(argument);
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> executors{"reference", "omp"};
    std::vector<std::string> files;
    int repeat = 3;
    int petsc_argc = 1;
    char** petsc_argv = argv;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "--help" || arg == "-h") {
                std::printf("%s", usage);
                return 0;
            } else if (arg == "--executors" && i + 1 < argc) {
                executors.clear();
                std::stringstream list{argv[++i]};
                for (std::string name; std::getline(list, name, ',');) {
                    executors.push_back(name);
                }
            } else if (arg == "--repeat" && i + 1 < argc) {
                repeat = parse_positive(argv[++i], "--repeat");
            } else if (arg == "--") {
                // PETSc reads the options after "--" (e.g. -ksp_pc_side right -ksp_monitor)
                petsc_argv = argv + i;
                petsc_argc = argc - i;
                break;
            } else if (arg.rfind('-', 0) == 0) {
                throw std::invalid_argument("unexpected option '" + arg + "' (PETSc's options go after --)");
            } else {
                files.push_back(arg);
            }
        }
        if (files.empty()) {
            throw std::invalid_argument("no matrix file given");
        }
        for (const auto& executor : executors) {
            larch::make_executor(executor);  // an unknown or absent executor is said before any solve
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "bicgstab_side_by_side: %s\n%s", error.what(), usage);
        return 2;
    }
    CHECK_PETSC(PetscInitialize(&petsc_argc, &petsc_argv, nullptr, nullptr));
    int status = 0;
    try {
        std::printf("| matrix | n | nnz | solver | its | true rel. residual | reason | us/it |\n");
        std::printf("|---|---:|---:|---|---:|---:|---|---:|\n");
        for (const auto& file : files) {
            const auto data = load_matrix(file);
            auto name = file.substr(file.find_last_of('/') + 1);
            name = name.substr(0, name.rfind(".mtx"));
            const auto row = [&](const std::string& solver, const Outcome& outcome) {
                std::printf("| %s | %zu | %zu | %s | %s |\n", name.c_str(), data.size.rows, data.entries.size(),
                            solver.c_str(), cell(outcome).c_str());
                std::fflush(stdout);
            };
            row("petsc", run_petsc(data, repeat));
            for (const auto& executor : executors) {
                row("larch " + executor, run_larch(data, executor, repeat));
            }
        }
    } catch (const std::exception& error) {
        // A file that cannot be read, an unknown executor, a matrix larch rejects: said, not aborted on.
        std::fprintf(stderr, "bicgstab_side_by_side: %s\n", error.what());
        status = 1;
    }
    return PetscFinalize() == 0 ? status : 3;
}
