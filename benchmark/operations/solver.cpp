// Benchmark operation "solver": a Krylov solver from a JSON description (include/larch/config) on one matrix,
// x0 = 0; time to solution split into generate and solve, iterations, time per iteration, and the TRUE
// relative residual ||b - Ax|| / ||b|| (recomputed on the host from the matrix entries) as the error.
//
// Byte model (per iteration, the minimum traffic, CG and BiCGSTAB with scalar Jacobi or none): every
// SpMV reads the CSR arrays once (values, column indices, row pointers) plus its input and writes its
// output; every vector operation reads and writes its operands once; Jacobi reads D^{-1}, its input and
// writes its output (a copy, 2 vectors, without preconditioner). CG: 1 SpMV + 14 vectors of n + 1
// preconditioner application; BiCGSTAB: 2 SpMV + 27 vectors + 2 preconditioner applications. IDR and GMRES
// have no byte model here (their traffic depends on s and on the Arnoldi step): gbs is 0 for them.
// Flops are not modelled (0).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "benchmark/driver/matrix_source.hpp"
#include "benchmark/driver/operation.hpp"
#include "larch/config/solver_config.hpp"
#include "larch/generate/problems.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace benchmark {
namespace {

using index_type = std::int32_t;

/// The solver description with default criteria (10,000 iterations, relative residual 1e-9) where it has none.
json solver_description(const Fields& fields)
{
    auto description = fields.get_object("solver").get_json();
    if (!description.contains("criteria")) {
        description["criteria"] = {{"max_iterations", 10000}, {"relative_residual", 1e-9}};
    }
    return description;
}

/// Bytes one iteration moves at least (see the byte model above); 0 where there is no model.
template <typename V>
double bytes_per_iteration(const std::string& type, double rows, double nonzeros, bool jacobi)
{
    const double csr = nonzeros * (sizeof(V) + sizeof(index_type)) + (rows + 1) * sizeof(index_type);
    const double spmv = csr + 2 * rows * sizeof(V);
    const double vector = rows * sizeof(V);
    // without a preconditioner z = r is a copy (2 vectors) instead of a scaling (3 vectors)
    const double preconditioner_vectors = jacobi ? 3 : 2;
    if (type == "cg") {
        return spmv + (14 + preconditioner_vectors) * vector;
    }
    if (type == "bicgstab") {
        return 2 * spmv + (27 + 2 * preconditioner_vectors) * vector;
    }
    return 0.0;
}

template <typename V>
CaseResult run_solver(const CaseContext& context)
{
    const auto& exec = context.executor();
    const auto source = context.fields().get_object("matrix");
    const auto data = load_matrix<V, index_type>(source, context.matrix_dir());
    const auto n = data.size.rows;
    const auto rhs_kind = context.fields().get_string("rhs", "ones") == "uniform" ? generate::RhsKind::uniform
                                                                                  : generate::RhsKind::ones;
    const auto rhs = generate::right_hand_side<V>(n, rhs_kind, 42);
    const auto description = solver_description(context.fields());
    auto a = share(matrix::Csr<V, index_type>::create(exec, data));
    auto b = matrix::Dense<V>::create(exec, dim2{n, 1}, array<V>{exec, rhs.begin(), rhs.end()}, 1);
    auto x = matrix::Dense<V>::create(exec, dim2{n, 1});

    auto factory = config::create_solver_factory<V>(description, exec);
    exec->synchronize();
    const auto generate_start = std::chrono::steady_clock::now();
    auto solver = factory->generate(a);
    exec->synchronize();
    const double generate_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - generate_start).count();

    CaseResult result;
    result.ours.name = "larch";
    result.ours.seconds = context.time([&] {
        x->fill(V{0});
        solver->apply(b, x);
    });
    const auto& status = solver->get_status();

    // The true residual in long double on the host, independent of the solver and the executor.
    const auto solution = x->copy_to_host();
    std::vector<long double> residual(rhs.begin(), rhs.end());
    for (const auto& entry : data.entries) {
        residual[entry.row] -= static_cast<long double>(entry.value) * solution[entry.col];
    }
    long double residual_norm = 0;
    long double rhs_norm = 0;
    for (size_type i = 0; i < n; ++i) {
        residual_norm += residual[i] * residual[i];
        rhs_norm += static_cast<long double>(rhs[i]) * rhs[i];
    }
    const double true_relative_residual = static_cast<double>(std::sqrt(residual_norm / rhs_norm));
    result.ours.error = std::isfinite(true_relative_residual) ? true_relative_residual
                                                              : std::numeric_limits<double>::infinity();
    const auto& criteria = description.at("criteria");
    // the solver checks its true residual against the requested tolerance; rounding in another summation
    // order may add a few percent
    result.tolerance = criteria.contains("relative_residual")
                           ? 1.05 * criteria.at("relative_residual").get<double>()
                           : std::numeric_limits<double>::infinity();

    const auto type = description.at("type").get<std::string>();
    const bool jacobi = description.contains("preconditioner") &&
                        description.at("preconditioner").value("type", std::string{"none"}) != "none";
    const double iterations = static_cast<double>(status.iterations);
    result.bytes = iterations * bytes_per_iteration<V>(type, static_cast<double>(n),
                                                       static_cast<double>(data.entries.size()), jacobi);
    auto sorted = result.ours.seconds;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
    result.label = type + (jacobi ? "+jacobi " : " ") + matrix_source_name(source);
    result.details = json{{"matrix", matrix_source_name(source)},
                          {"rows", n},
                          {"nonzeros", data.entries.size()},
                          {"solver", description},
                          {"stop_reason", stop::to_string(status.reason)},
                          {"stop_message", status.message},
                          {"iterations", status.iterations},
                          {"residual_replacements", status.residual_replacements},
                          {"generate_s", generate_seconds},
                          {"solve_s", median},
                          {"time_per_iteration_s", iterations > 0 ? median / iterations : 0.0},
                          {"bytes_per_iteration", iterations > 0 ? result.bytes / iterations : 0.0},
                          {"true_relative_residual", true_relative_residual}};
    return result;
}

void validate_solver(const Fields& fields)
{
    validate_matrix_source(fields.get_object("matrix"));
    const auto rhs = fields.get_string("rhs", "ones");
    if (rhs != "ones" && rhs != "uniform") {
        fields.fail("rhs", "must be \"ones\" or \"uniform\", not \"" + rhs + "\"");
    }
    try {
        config::create_solver_factory<double>(solver_description(fields), make_executor("reference"));
    } catch (const BadInput& error) {
        fields.fail("solver", error.what());
    }
}

const bool registered = register_operation(
    {"solver",
     "Krylov solver from a JSON description (include/larch/config): generate and solve times, iterations, "
     "time per iteration, true residual",
     {"matrix", "solver", "rhs"},
     {"solver"},
     validate_solver,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(),
                                   [&](auto value) { return run_solver<decltype(value)>(context); });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
