// Shared by the solver tests: building any of the four solvers by kind, and an independent host-side
// ||b - Ax|| computed from the matrix data (not through the solver or the executor).
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "larch/base/matrix_data.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/preconditioner/block_jacobi.hpp"
#include "larch/solver/bicgstab.hpp"
#include "larch/solver/cg.hpp"
#include "larch/solver/gmres.hpp"
#include "larch/solver/idr.hpp"

namespace larch {
namespace test {

enum class SolverKind { cg, bicgstab, idr, gmres };

inline std::string to_string(SolverKind kind)
{
    switch (kind) {
    case SolverKind::cg:
        return "cg";
    case SolverKind::bicgstab:
        return "bicgstab";
    case SolverKind::idr:
        return "idr";
    case SolverKind::gmres:
        return "gmres";
    }
    return "?";
}

/// What the tests vary besides the solver kind.
struct SolverSetup {
    std::vector<stop::Criterion> criteria;
    bool jacobi = true;
    std::shared_ptr<const LinOp> generated_preconditioner;
    std::shared_ptr<log::Logger> logger;
    size_type gmres_restart = 30;
    size_type max_residual_replacements = 5;
};

template <typename T, typename Parameters>
Parameters with_setup(Parameters parameters, const SolverSetup& setup)
{
    parameters.criteria = setup.criteria;
    parameters.max_residual_replacements = setup.max_residual_replacements;
    if (setup.generated_preconditioner) {
        parameters.with_generated_preconditioner(setup.generated_preconditioner);
    } else if (setup.jacobi) {
        parameters.with_preconditioner(preconditioner::BlockJacobi<T>::build());
    }
    if (setup.logger) {
        parameters.with_logger(setup.logger);
    }
    return parameters;
}

/// Generates the solver of `kind` for `a` on `exec`.
template <typename T>
std::unique_ptr<solver::IterativeSolver<T>> make_solver(SolverKind kind, std::shared_ptr<const Executor> exec,
                                                        std::shared_ptr<const LinOp> a,
                                                        const SolverSetup& setup)
{
    auto generate = [&](auto parameters) { return with_setup<T>(parameters, setup).on(exec)->generate(a); };
    switch (kind) {
    case SolverKind::cg:
        return generate(typename solver::Cg<T>::parameters_type{});
    case SolverKind::bicgstab:
        return generate(typename solver::Bicgstab<T>::parameters_type{});
    case SolverKind::idr:
        return generate(solver::Idr<T>::build().with_subspace_dim(4));
    case SolverKind::gmres:
        return generate(solver::Gmres<T>::build().with_restart(setup.gmres_restart));
    }
    return nullptr;
}

/// ||b - A x|| in long double on the host from A's coordinate data: an oracle independent of the solver.
template <typename T, typename I>
double host_residual_norm(const matrix_data<T, I>& a, const std::vector<T>& b, const std::vector<T>& x)
{
    std::vector<long double> residual(b.begin(), b.end());
    for (const auto& entry : a.entries) {
        residual[entry.row] -= static_cast<long double>(entry.value) * x[entry.col];
    }
    long double sum = 0;
    for (auto value : residual) {
        sum += value * value;
    }
    return static_cast<double>(std::sqrt(sum));
}

template <typename T>
double host_norm(const std::vector<T>& v)
{
    long double sum = 0;
    for (auto value : v) {
        sum += static_cast<long double>(value) * value;
    }
    return static_cast<double>(std::sqrt(sum));
}

/// Scalar Jacobi of a matrix two ways: the preconditioner itself, which the solvers fold into their steps,
/// and its D^{-1} as a diagonal Csr matrix, a preconditioner the solvers know nothing of and apply in passes
/// of their own (one product per entry: d r, the bits of the folded scaling).
struct ScalarJacobiTwoWays {
    std::shared_ptr<const preconditioner::BlockJacobi<double>> folded;
    std::shared_ptr<const LinOp> separate;
};

inline ScalarJacobiTwoWays scalar_jacobi_two_ways(const std::shared_ptr<const Executor>& exec,
                                                  const std::shared_ptr<const LinOp>& a)
{
    auto jacobi = share(preconditioner::BlockJacobi<double>::build().with_max_block_size(1).on(exec)->generate(a));
    const auto inverse = jacobi->get_inverse_diagonal().copy_to_host();
    matrix_data<double, std::int32_t> diagonal{dim2{inverse.size(), inverse.size()}};
    for (std::size_t row = 0; row < inverse.size(); ++row) {
        const auto index = static_cast<std::int32_t>(row);
        diagonal.entries.push_back({index, index, inverse[row]});
    }
    return {jacobi, share(matrix::Csr<double, std::int32_t>::create(exec, diagonal))};
}

/// What solve_with_each_preconditioner gives for one preconditioner.
struct PreconditionedSolve {
    size_type iterations;
    std::vector<double> x;
};

/// `iterations` iterations of Solver (the iteration limit its only criterion, x0 = 0) on A x = b with each
/// of `preconditioners` in turn: the iterations each solve reported and its x on the host.
template <typename Solver>
std::vector<PreconditionedSolve> solve_with_each_preconditioner(
    const std::shared_ptr<const Executor>& exec, const std::shared_ptr<const LinOp>& a, const matrix::Dense<double>& b,
    const std::vector<std::shared_ptr<const LinOp>>& preconditioners, size_type iterations)
{
    std::vector<PreconditionedSolve> solves;
    for (const auto& preconditioner : preconditioners) {
        auto solver = Solver::build()
                          .with_generated_preconditioner(preconditioner)
                          .with_criteria(stop::max_iterations(iterations))
                          .on(exec)
                          ->generate(a);
        auto x = matrix::Dense<double>::create(exec, b.get_size());
        x->fill(0.0);
        solver->apply(b, x);
        solves.push_back({solver->get_status().iterations, x->copy_to_host()});
    }
    return solves;
}

}  // namespace test
}  // namespace larch
