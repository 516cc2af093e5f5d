// Benchmark operation "solver": a Krylov solver from a JSON description (include/larch/config) on one matrix,
// x0 = 0; time to solution split into generate and solve, iterations, time per iteration, and the TRUE
// relative residual ||b - Ax|| / ||b|| (recomputed on the host from the matrix entries, the largest over the
// columns) as the error. "columns": k > 1 solves k right-hand sides in one apply (column c of a "uniform"
// right-hand side is drawn with seed 42 + c; "ones" repeats the column); time per column = solve / k.
//
// Byte model (per iteration, the minimum traffic, with scalar Jacobi or none, per column): every SpMV reads
// the CSR arrays once (values, column indices, row pointers) plus its input and writes its output; every
// vector operation reads and writes its operands once; Jacobi reads D^{-1}, its input and writes its output
// (a copy, 2 vectors, without preconditioner). CG: 1 SpMV + 14 vectors of n + 1 preconditioner application;
// with scalar Jacobi, folded into the steps, 1 SpMV + 13 vectors (p^T q: 2, the solution step with r^T r and
// r^T D^{-1} r: 7, the direction step p = D^{-1} r + beta p: 4);
// BiCGSTAB: 2 SpMV + 20 vectors + 4 (3 dot products: 5, the direction update: 4, the half step with ||s||: 3,
// the solution step with ||r|| and the next r_hat^T r: 8; scalar Jacobi runs inside the direction and half
// steps, reading D^{-1} and writing p_hat and s_hat, and without a preconditioner they are copies of p and s:
// 2 x 2 vectors). BiCGSTAB's dot r_hat^T r at the start of each block of check_interval steps is left out.
// GMRES(m), Arnoldi step j (j + 1 basis vectors): 1 SpMV + 1 preconditioner application + two CGS passes of
// (2j + 5) vectors each (projection: basis and w read; update: basis and w read, w written) + 3 (norm of w,
// v_{j+1} = w / norm); per restart
// cycle of k steps once more: k basis vectors read and one written (x's combination), 1 preconditioner
// application, x += z (3), the true residual (1 SpMV + 3), its norm (1) and v_0 = r / norm (2). IDR has no
// byte model here (its traffic depends on s): gbs is 0 for it. Flops are not modelled (0).
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
#include "larch/solver/gmres.hpp"

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

/// "+block_jacobi(k)" with k the block bound (1, BlockJacobi's default, is scalar Jacobi), or "" without a
/// preconditioner: the label tells cases with different bounds apart.
std::string preconditioner_label(const json& description)
{
    if (!description.contains("preconditioner")) {
        return "";
    }
    const auto& preconditioner = description.at("preconditioner");
    const auto type = preconditioner.value("type", std::string{"none"});
    if (type == "none") {
        return "";
    }
    return "+" + type + "(" + std::to_string(preconditioner.value("max_block_size", 1)) + ")";
}

/// Bytes `iterations` iterations of one column move at least (see the byte model above), without the reads
/// of the matrix's arrays unless `with_matrix`; 0 where there is no model. `restart` is GMRES's m.
template <typename V>
double bytes_moved(const std::string& type, double iterations, size_type restart, double rows, double nonzeros,
                   bool jacobi, bool with_matrix)
{
    const double csr =
        with_matrix ? nonzeros * (sizeof(V) + sizeof(index_type)) + (rows + 1) * sizeof(index_type) : 0.0;
    const double spmv = csr + 2 * rows * sizeof(V);
    const double vector = rows * sizeof(V);
    // without a preconditioner z = r is a copy (2 vectors) instead of a scaling (3 vectors)
    const double preconditioner = (jacobi ? 3 : 2) * vector;
    if (type == "cg") {
        return iterations * (spmv + (jacobi ? 13 * vector : 14 * vector + preconditioner));
    }
    if (type == "bicgstab") {
        return iterations * (2 * spmv + 24 * vector);
    }
    if (type == "gmres") {
        double bytes = 0;
        const auto steps = static_cast<size_type>(iterations);
        for (size_type step = 0; step < steps; step += restart) {
            const auto k = std::min(restart, steps - step);
            for (size_type j = 0; j < k; ++j) {
                bytes += spmv + preconditioner + (2 * (2.0 * j + 5) + 3) * vector;
            }
            bytes += (k + 1) * vector + preconditioner + 3 * vector + spmv + 3 * vector + vector + 2 * vector;
        }
        return bytes;
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
    const auto columns = static_cast<size_type>(context.fields().get_integer("columns", 1, 1, 1024));
    const auto rhs_kind = context.fields().get_string("rhs", "ones") == "uniform" ? generate::RhsKind::uniform
                                                                                  : generate::RhsKind::ones;
    // Row-major n x k: entry (i, c) is row i of column c's right-hand side.
    std::vector<V> rhs(n * columns);
    for (size_type col = 0; col < columns; ++col) {
        const auto column = generate::right_hand_side<V>(n, rhs_kind, 42 + col);
        for (size_type i = 0; i < n; ++i) {
            rhs[i * columns + col] = column[i];
        }
    }
    const auto description = solver_description(context.fields());
    auto a = share(matrix::Csr<V, index_type>::create(exec, data));
    auto b = matrix::Dense<V>::create(exec, dim2{n, columns}, array<V>{exec, rhs.begin(), rhs.end()}, columns);
    auto x = matrix::Dense<V>::create(exec, dim2{n, columns});

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
    const auto statuses = solver->get_statuses();

    // The true residual in long double on the host, independent of the solver and the executor; the
    // largest relative one over the columns.
    const auto solution = x->copy_to_host();
    std::vector<long double> residual(rhs.begin(), rhs.end());
    for (const auto& entry : data.entries) {
        for (size_type col = 0; col < columns; ++col) {
            residual[entry.row * columns + col] -=
                static_cast<long double>(entry.value) * solution[entry.col * columns + col];
        }
    }
    double true_relative_residual = 0;
    for (size_type col = 0; col < columns; ++col) {
        long double residual_norm = 0;
        long double rhs_norm = 0;
        for (size_type i = 0; i < n; ++i) {
            residual_norm += residual[i * columns + col] * residual[i * columns + col];
            rhs_norm += static_cast<long double>(rhs[i * columns + col]) * rhs[i * columns + col];
        }
        // A zero residual is exact whatever b is, as for the solvers; so a 0x0 system, which they solve at once
        // (b = 0 gives x = 0), has error 0 rather than 0 / 0.
        const auto relative = residual_norm == 0 ? 0.0 : static_cast<double>(std::sqrt(residual_norm / rhs_norm));
        true_relative_residual = std::isfinite(relative) ? std::max(true_relative_residual, relative)
                                                         : std::numeric_limits<double>::infinity();
    }
    result.ours.error = true_relative_residual;
    result.error_measure = "the true relative residual ||b - Ax|| / ||b||";
    const auto stopped = std::find_if(statuses.begin(), statuses.end(),
                                      [](const stop::Status& status) { return !status.converged(); });
    if (stopped != statuses.end()) {
        result.failure_reason = "the solver stopped without converging on column " +
                                std::to_string(stopped - statuses.begin()) + " after " +
                                std::to_string(stopped->iterations) + " iterations: " +
                                stop::to_string(stopped->reason) +
                                (stopped->message.empty() ? "" : " (" + stopped->message + ")");
    }
    const auto& criteria = description.at("criteria");
    // the solver checks its true residual against the requested tolerance; rounding in another summation
    // order may add a few percent
    result.tolerance = criteria.contains("relative_residual")
                           ? 1.05 * criteria.at("relative_residual").get<double>()
                           : std::numeric_limits<double>::infinity();

    const auto type = description.at("type").get<std::string>();
    const bool jacobi = description.contains("preconditioner") &&
                        description.at("preconditioner").value("type", std::string{"none"}) != "none";
    const auto restart = static_cast<size_type>(description.value("restart", 30));
    // The solvers iterate the columns together: one read of the matrix per iteration serves them all
    // (counted for the column that iterates longest), per group of columns for GMRES.
    const auto group_size = type == "gmres" ? solver::Gmres<V>::max_columns_together : statuses.size();
    const auto bytes = [&](size_type column_iterations, bool with_matrix) {
        return bytes_moved<V>(type, static_cast<double>(column_iterations), restart, static_cast<double>(n),
                              static_cast<double>(data.entries.size()), jacobi, with_matrix);
    };
    size_type iterations = 0;
    size_type group_iterations = 0;
    json column_iterations = json::array();
    for (size_type col = 0; col < statuses.size(); ++col) {
        const auto& status = statuses[col];
        iterations = std::max(iterations, status.iterations);
        group_iterations = std::max(group_iterations, status.iterations);
        column_iterations.push_back(status.iterations);
        result.bytes += bytes(status.iterations, false);
        if ((col + 1) % group_size == 0 || col + 1 == statuses.size()) {
            result.bytes += bytes(group_iterations, true) - bytes(group_iterations, false);
            group_iterations = 0;
        }
    }
    auto sorted = result.ours.seconds;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
    result.label = type + preconditioner_label(description) + " " + matrix_source_name(source) +
                   (columns > 1 ? " x" + std::to_string(columns) + " columns" : "");
    const auto& first = statuses.front();
    result.details = json{{"matrix", matrix_source_name(source)},
                          {"rows", n},
                          {"nonzeros", data.entries.size()},
                          {"columns", columns},
                          {"solver", description},
                          {"stop_reason", stop::to_string(first.reason)},
                          {"stop_message", first.message},
                          {"iterations", iterations},
                          {"column_iterations", column_iterations},
                          {"residual_replacements", first.residual_replacements},
                          {"generate_s", generate_seconds},
                          {"solve_s", median},
                          {"solve_s_per_column", median / static_cast<double>(columns)},
                          {"time_per_iteration_s", iterations > 0 ? median / static_cast<double>(iterations) : 0.0},
                          {"bytes_per_iteration",
                           iterations > 0 ? result.bytes / static_cast<double>(iterations) : 0.0},
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
    fields.get_integer("columns", 1, 1, 1024);
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
     {"matrix", "solver", "rhs", "columns"},
     {"solver", "columns"},
     validate_solver,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(),
                                   [&](auto value) { return run_solver<decltype(value)>(context); });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
