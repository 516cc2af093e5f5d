// Benchmark operation "batch_solver": a batched Krylov solver (batch::Cg, Bicgstab or Gmres from a JSON
// description, include/larch/config/batch_solver_config.hpp) on a batch of sparse items, x_i = 0, b_i = 1;
// time to solution of the whole batch (one apply: on CUDA one kernel launch, then the per-item results
// copied to the host). Checked item by item: every item reported converged must have a true residual
// ||b_i - A_i x_i||, recomputed here in double from the entries, within its threshold (error = the largest
// ratio of the two over the converged items); the details count the items of every status.
//
// Batches ("batch" field): "heterogeneous" (`num_items` items drawn uniformly, seed 42, from the square
// matrices of the matrix folder with at most `max_rows` rows; with "pool": "solvable" only from those that
// larch's single-system solver of the same description solves, b = ones and x0 = 0, so that the join has a
// solution to reach; default "all") and "stencil" (`num_items` copies of the
// 1D 3-point (`stencil`: "3pt", order `rows`) or 2D 5-point ("5pt", grid round(sqrt(rows))^2) Laplacian,
// each item's values scaled by a random factor in [0.5, 1.5], so one size and pattern).
//
// Byte model (minimum traffic of the solve): every SpMV of every item reads the item's matrix once (CSR:
// values, column indices, row pointers; COO: values, row and column indices; ELL: its padded slots; a
// shared pattern's indices counted once per SpMV of the batch) — CG and GMRES do one SpMV per iteration,
// BiCGSTAB two; the Krylov vectors count only when they live in global memory (the CUDA kernels' rule for
// the shared-memory workspace is mirrored below), then with the method's vector accesses per iteration
// (CG 18, BiCGSTAB 31, GMRES(m) 1.5 m + 8 on average over a cycle; one more per Jacobi scaling);
// block-Jacobi reads its block inverses and 16 bytes of per-row indices (20 with a row-matched item) once
// per application (one per SpMV). Flops: the SpMVs only (2 per nonzero).
//
// Baselines ("baselines": true): larch's single-system solver of the same type, criteria and
// preconditioner (scalar Jacobi = block-Jacobi with blocks of 1, block-Jacobi with the same bound) looped over the first `loop_items` items,
// timed and extrapolated linearly to the batch (marked loop_extrapolated), and (unless "join_baseline" is
// false: on a CPU it takes minutes at 10,000 items) the same solver on the block-diagonal join of the batch
// (one matrix; it stops on the norm of the whole residual, after at most "join_max_iterations", by default
// the solver's own limit).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "benchmark/driver/block_diagonal_join.hpp"
#include "benchmark/driver/operation.hpp"
#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/solver/batch_iterative_solver.hpp"
#include "larch/config.hpp"
#include "larch/config/batch_solver_config.hpp"
#include "larch/config/solver_config.hpp"
#include "larch/io/matrix_market.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace benchmark {
namespace {

using index_type = std::int32_t;
constexpr long long max_integer = 1LL << 31;
const std::vector<std::string> batch_kinds{"heterogeneous", "stencil"};
const std::vector<std::string> formats{"csr", "coo", "ell"};

template <typename V>
struct SolverProblem {
    std::string key;
    std::string name;
    std::vector<matrix_data<V, index_type>> items;
    size_type rows = 0;
    size_type min_rows = 0;
    size_type max_rows = 0;
    size_type nonzeros = 0;
    /// Heterogeneous batches: the files the items were drawn from, and each item's file in it.
    std::vector<std::string> pool;
    std::vector<size_type> sources;
};

/// The single-system description matching the batched one (scalar Jacobi = block-Jacobi of 1 x 1 blocks, the
/// same BiCGSTAB).
json single_system_description(const json& batched)
{
    json single = batched;
    if (batched.contains("preconditioner")) {
        const auto& preconditioner = batched.at("preconditioner");
        const auto type = preconditioner.at("type").get<std::string>();
        single["preconditioner"] =
            type == "none" ? json{{"type", "none"}}
                           : json{{"type", "block_jacobi"},
                                  {"max_block_size", type == "jacobi" ? 1 : preconditioner.value("max_block_size", 32)}};
    }
    if (!single.contains("criteria")) {
        single["criteria"] = json::object();
    }
    auto& criteria = single["criteria"];
    if (!criteria.contains("max_iterations")) {
        criteria["max_iterations"] = 100;
    }
    if (!criteria.contains("relative_residual") && !criteria.contains("absolute_residual")) {
        criteria["relative_residual"] = 1e-8;
    }
    return single;
}

/// Whether `factory`'s solver solves A x = ones from x0 = 0 on `exec`.
template <typename V>
bool solves_from_ones(const solver::SolverFactory<V>& factory, const std::shared_ptr<const Executor>& exec,
                      const matrix_data<V, index_type>& data)
{
    auto solver = factory.generate(share(matrix::Csr<V, index_type>::create(exec, data)));
    const std::vector<V> ones(data.size.rows, V{1});
    auto b = matrix::Dense<V>::create(exec, dim2{data.size.rows, 1}, array<V>{exec, ones.begin(), ones.end()}, 1);
    auto x = matrix::Dense<V>::create(exec, dim2{data.size.rows, 1});
    x->fill(V{0});
    solver->apply(b, x);
    return solver->get_status().reason == stop::Reason::converged;
}

/// The items, drawn from the matrices whose file names end up in `pool_names` (item i from pool_names[sources[i]]).
template <typename V>
std::vector<matrix_data<V, index_type>> heterogeneous_items(const CaseContext& context, size_type num_items,
                                                            std::mt19937& engine, std::vector<std::string>& pool_names,
                                                            std::vector<size_type>& sources)
{
    // "pool": "solvable" keeps the matrices that larch's single-system solver of the batched description solves
    const auto single_system = context.fields().get_string("pool", "all") == "solvable"
                                   ? config::create_solver_factory<V>(
                                         single_system_description(context.fields().get_object("solver").get_json()),
                                         context.executor())
                                   : nullptr;
    const auto max_rows = static_cast<size_type>(context.fields().get_integer("max_rows", 1024, 1, max_integer));
    std::vector<std::string> files;
    std::error_code error;
    for (std::filesystem::directory_iterator it{context.matrix_dir(), error}, end; !error && it != end;
         it.increment(error)) {
        if (it->path().extension() == ".mtx") {
            files.push_back(it->path().string());
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<matrix_data<V, index_type>> pool;
    for (const auto& file : files) {
        auto data = io::read_matrix_market_data<V, index_type>(file);
        if (data.size.rows <= max_rows && data.size.rows == data.size.cols &&
            (!single_system || solves_from_ones(*single_system, context.executor(), data))) {
            pool.push_back(std::move(data));
            pool_names.push_back(std::filesystem::path{file}.filename().string());
        }
    }
    if (pool.empty()) {
        throw CaseSkipped("no square matrix with at most " + std::to_string(max_rows) + " rows" +
                          (single_system ? " that the single-system solver solves" : "") + " in " +
                          context.matrix_dir());
    }
    std::uniform_int_distribution<size_type> pick{0, pool.size() - 1};
    std::vector<matrix_data<V, index_type>> items;
    items.reserve(num_items);
    for (size_type item = 0; item < num_items; ++item) {
        sources.push_back(pick(engine));
        items.push_back(pool[sources.back()]);
    }
    return items;
}

/// The 1D 3-point Laplacian of order n or the 2D 5-point Laplacian on a k x k grid.
template <typename V>
matrix_data<V, index_type> stencil(const std::string& kind, size_type rows)
{
    const auto k = kind == "3pt" ? rows : static_cast<size_type>(std::lround(std::sqrt(double(rows))));
    const auto n = kind == "3pt" ? rows : k * k;
    const auto width = kind == "3pt" ? n : k;
    matrix_data<V, index_type> data{dim2{n, n}};
    for (size_type row = 0; row < n; ++row) {
        const auto r = static_cast<index_type>(row);
        const auto w = static_cast<index_type>(width);
        const bool grid = kind == "5pt";
        if (grid && row >= width) data.entries.push_back({r, r - w, V{-1}});
        if (row % width > 0) data.entries.push_back({r, r - 1, V{-1}});
        data.entries.push_back({r, r, V(grid ? 4 : 2)});
        if (row % width + 1 < width) data.entries.push_back({r, r + 1, V{-1}});
        if (grid && row + width < n) data.entries.push_back({r, r + w, V{-1}});
    }
    return data;
}

template <typename V>
const SolverProblem<V>& load_problem(const CaseContext& context)
{
    static SolverProblem<V> problem;
    const auto& fields = context.fields();
    auto key_fields = fields.get_json();
    for (const auto& common : {"solver", "format", "executor", "repetitions", "warmup", "name", "baselines",
                               "join_baseline", "join_max_iterations", "loop_items"}) {
        key_fields.erase(common);
    }
    if (fields.get_string("pool", "all") == "solvable") {
        // the pool depends on the solver and the executor that ran the single-system solves
        key_fields["solver"] = fields.get_object("solver").get_json();
        key_fields["executor"] = context.executor()->get_name();
    }
    const auto key = key_fields.dump() + "@" + context.matrix_dir();
    if (problem.key == key) {
        return problem;
    }
    problem = SolverProblem<V>{};
    const auto num_items = static_cast<size_type>(fields.get_integer("num_items", 1));
    std::mt19937 engine{42};
    if (fields.get_string("batch") == "heterogeneous") {
        problem.items = heterogeneous_items<V>(context, num_items, engine, problem.pool, problem.sources);
        problem.name = std::string{fields.get_string("pool", "all") == "solvable" ? "solvable " : ""} +
                       "shared matrices, rows <= " + std::to_string(fields.get_integer("max_rows", 1024, 1, max_integer));
    } else {
        const auto kind = fields.get_string("stencil", "3pt");
        const auto base = stencil<V>(kind, static_cast<size_type>(fields.get_integer("rows", 1, max_integer)));
        std::uniform_real_distribution<double> scale{0.5, 1.5};
        problem.items.assign(num_items, base);
        for (auto& item : problem.items) {
            const auto factor = static_cast<V>(scale(engine));
            for (auto& e : item.entries) {
                e.value *= factor;
            }
        }
        problem.name = kind + " n=" + std::to_string(base.size.rows);
    }
    problem.min_rows = problem.items.empty() ? 0 : problem.items.front().size.rows;
    for (const auto& item : problem.items) {
        problem.rows += item.size.rows;
        problem.min_rows = std::min(problem.min_rows, item.size.rows);
        problem.max_rows = std::max(problem.max_rows, item.size.rows);
        problem.nonzeros += item.entries.size();
    }
    problem.key = key;
    return problem;
}

/// The batch in `format` on `exec` and its matrix bytes per item SpMV (indices of a shared pattern counted
/// once per batch SpMV, i.e. spread over the items).
template <typename V>
std::shared_ptr<const batch::BatchLinOp<V>> create_batch(const std::string& format,
                                                         const std::shared_ptr<const Executor>& exec,
                                                         const SolverProblem<V>& problem,
                                                         std::vector<double>& item_bytes, json& details)
{
    const auto num_items = problem.items.size();
    item_bytes.assign(num_items, 0.0);
    constexpr double v = sizeof(V);
    constexpr double i = sizeof(index_type);
    const auto fill = [&](const auto& layout, double index_arrays, bool with_row_ptrs) {
        const bool shared = layout.has_shared_pattern();
        details["shared_pattern"] = shared;
        for (size_type item = 0; item < num_items; ++item) {
            const double stored = double(layout.get_num_stored(item));
            const double rows = double(layout.get_size(item).rows);
            const double indices = index_arrays * stored * i + (with_row_ptrs ? (rows + 1) * i : 0.0);
            item_bytes[item] = stored * v + (shared ? indices / double(num_items) : indices);
        }
    };
    if (format == "csr") {
        auto a = batch::Csr<V, index_type>::create(exec, problem.items);
        fill(a->get_layout(), 1.0, true);
        return a;
    }
    if (format == "coo") {
        auto a = batch::Coo<V, index_type>::create(exec, problem.items);
        fill(a->get_layout(), 2.0, false);
        return a;
    }
    auto a = batch::Ell<V, index_type>::create(exec, problem.items);
    fill(a->get_layout(), 1.0, false);
    return a;
}

/// Whether the CUDA kernels keep this solve's vectors in shared memory (mirrors SolverPolicy in
/// cuda/batch/batch_solver_kernels.cu: (vectors + 1) x max rows + scalars values, plus the block
/// all-reduce's words, within the default shared memory per block, or within the opt-in maximum when the
/// smallest item has at least half the largest's rows). Host executors: true (nothing is "global").
template <typename V>
bool vectors_in_shared_memory(const Executor& exec, size_type min_rows, size_type max_rows, double vectors,
                              double scalars)
{
    const auto* gpu = dynamic_cast<const GpuExecutor*>(&exec);
    if (gpu == nullptr) {
        return true;
    }
    const double block = max_rows <= 64 ? 64 : min_rows >= 512 ? 256 : 128;
    const double bytes = ((vectors + 1) * double(max_rows) + scalars + block / 32) * sizeof(V);
    const bool similar_sizes = 2 * min_rows >= max_rows;
    return bytes <= double(similar_sizes ? gpu->get_max_shared_memory_per_block() : gpu->get_shared_memory_per_block());
}

double median(std::vector<double> seconds)
{
    std::sort(seconds.begin(), seconds.end());
    return seconds.empty() ? 0.0 : seconds[seconds.size() / 2];
}

/// The loop over the first items and the block-diagonal join with larch's single-system solver.
template <typename V>
void measure_baselines(const CaseContext& context, const SolverProblem<V>& problem, const json& batched,
                       double batched_seconds, json& details)
{
    const auto& exec = context.executor();
    const auto description = single_system_description(batched);
    const auto factory = config::create_solver_factory<V>(description, exec);
    const auto num_items = problem.items.size();
    const auto loop_items = std::min<size_type>(
        num_items, static_cast<size_type>(context.fields().get_integer("loop_items", 20, 1, max_integer)));
    std::vector<std::unique_ptr<solver::IterativeSolver<V>>> solvers;
    std::vector<std::unique_ptr<matrix::Dense<V>>> bs;
    std::vector<std::unique_ptr<matrix::Dense<V>>> xs;
    for (size_type item = 0; item < loop_items; ++item) {
        const auto n = problem.items[item].size.rows;
        solvers.push_back(factory->generate(share(matrix::Csr<V, index_type>::create(exec, problem.items[item]))));
        const std::vector<V> ones(n, V{1});
        bs.push_back(matrix::Dense<V>::create(exec, dim2{n, 1}, array<V>{exec, ones.begin(), ones.end()}, 1));
        xs.push_back(matrix::Dense<V>::create(exec, dim2{n, 1}));
    }
    auto loop_seconds = context.time([&] {
        for (size_type item = 0; item < loop_items; ++item) {
            xs[item]->fill(V{0});
            solvers[item]->apply(bs[item], xs[item]);
        }
    });
    const double loop = median(loop_seconds) * double(num_items) / double(loop_items);
    details["loop_seconds"] = loop;
    details["loop_items_timed"] = loop_items;
    details["loop_extrapolated"] = loop_items < num_items;
    details["speedup_vs_loop"] = batched_seconds > 0 ? loop / batched_seconds : 0.0;
    if (!context.fields().get_bool("join_baseline", true)) {
        return;
    }

    // The join may get more iterations than an item ("join_max_iterations"), so that its time to solution
    // is measured where it needs more than the hardest item.
    auto join_description = description;
    join_description["criteria"]["max_iterations"] = context.fields().get_integer(
        "join_max_iterations", description.at("criteria").at("max_iterations").get<long long>(), 1, max_integer);
    auto joined = join_block_diagonal(problem.items);
    auto join_solver = config::create_solver_factory<V>(join_description, exec)->generate(share(matrix::Csr<V, index_type>::create(
        exec, dim2{problem.rows, problem.rows}, array<V>{exec, joined.values.begin(), joined.values.end()},
        array<index_type>{exec, joined.col_idxs.begin(), joined.col_idxs.end()},
        array<index_type>{exec, joined.row_ptrs.begin(), joined.row_ptrs.end()})));
    const std::vector<V> ones(problem.rows, V{1});
    auto b = matrix::Dense<V>::create(exec, dim2{problem.rows, 1}, array<V>{exec, ones.begin(), ones.end()}, 1);
    auto x = matrix::Dense<V>::create(exec, dim2{problem.rows, 1});
    const double join_seconds = median(context.time([&] {
        x->fill(V{0});
        join_solver->apply(b, x);
    }));
    const auto status = join_solver->get_status();
    details["join_seconds"] = join_seconds;
    details["join_iterations"] = status.iterations;
    details["join_max_iterations"] = join_description["criteria"]["max_iterations"];
    details["join_stop_reason"] = stop::to_string(status.reason);
    details["speedup_vs_join"] = batched_seconds > 0 ? join_seconds / batched_seconds : 0.0;
}

template <typename V>
CaseResult run_batch_solver(const CaseContext& context)
{
    const auto& problem = load_problem<V>(context);
    const auto& fields = context.fields();
    const auto& exec = context.executor();
    const auto format = fields.get_string("format", "csr");
    const auto description = fields.get_object("solver").get_json();
    const auto num_items = problem.items.size();

    CaseResult result;
    const auto type = description.at("type").get<std::string>();
    const auto preconditioner = description.contains("preconditioner")
                                    ? description.at("preconditioner").value("type", std::string{"none"})
                                    : std::string{"none"};
    const bool jacobi = preconditioner == "jacobi";
    result.label = fields.get_string("batch") + " " + problem.name + " x" + std::to_string(num_items) + " " +
                   type + (preconditioner == "none" ? " " : "+" + preconditioner + " ") + format;
    result.details = json{{"batch", fields.get_string("batch")}, {"matrix", problem.name},
                          {"format", format},   {"solver", description},
                          {"num_items", num_items}, {"rows", problem.rows},
                          {"max_rows", problem.max_rows}, {"nonzeros", problem.nonzeros}};
    if (!problem.pool.empty()) {
        result.details["pool"] = problem.pool;
    }
    std::vector<double> item_bytes;
    const auto a = create_batch<V>(format, exec, problem, item_bytes, result.details);
    const auto solver = config::create_batch_solver_factory<V>(description, exec)->generate_solver(a);
    std::vector<size_type> rows;
    for (const auto& item : problem.items) {
        rows.push_back(item.size.rows);
    }
    const auto b = batch::Vector<V>::create(exec, rows, 1, std::vector<V>(problem.rows, V{1}));
    auto x0 = batch::Vector<V>::create(exec, rows, 1, std::vector<V>(problem.rows, V{0}));
    std::unique_ptr<batch::Vector<V>> x;
    result.ours.name = "larch batch::" + type;
    result.ours.seconds = context.time([&] {
        x = x0->clone_to(exec);
        solver->apply(*b, *x);
    });
    const auto solve = solver->get_result();

    // Every converged item's true residual, in double from the entries.
    const auto solution = x->copy_to_host();
    double worst = 0.0;
    size_type worst_item = 0;
    size_type offset = 0;
    for (size_type item = 0; item < num_items; ++item) {
        const auto& data = problem.items[item];
        if (solve.get_status(item) == batch::ItemStatus::converged) {
            std::vector<double> residual(data.size.rows, 1.0);
            for (const auto& e : data.entries) {
                residual[e.row] -= double(e.value) * double(solution[offset + e.col]);
            }
            double norm = 0.0;
            for (const auto r : residual) {
                norm += r * r;
            }
            const double ratio = std::sqrt(norm) / solve.get_threshold(item);
            if (!(ratio <= worst)) {
                worst = std::isfinite(ratio) ? ratio : std::numeric_limits<double>::infinity();
                worst_item = item;
            }
        }
        offset += data.size.rows;
    }
    result.ours.error = worst;
    result.error_measure = "the worst converged item's true residual (recomputed in double) over its threshold,";
    result.failure_reason =
        "that item is " + std::to_string(worst_item) + " (" +
        (problem.sources.empty() ? std::string{} : problem.pool[problem.sources[worst_item]] + ", ") +
        std::to_string(problem.items[worst_item].size.rows) + " rows), reported converged after " +
        std::to_string(solve.get_iterations(worst_item)) + " iterations by the solver's check in " +
        (sizeof(V) == 4 ? "float" : "double");
    // The solver checked each true residual in its own precision; recomputing it in double from the
    // entries differs by rounding only (float: a few eps times ||A|| ||x|| relative to the threshold).
    result.tolerance = sizeof(V) == 4 ? 1.5 : 1.05;

    const double spmvs = type == "bicgstab" ? 2.0 : 1.0;
    const double m = double(description.value("restart", 30));
    const double vectors = (type == "cg" ? 4.0 : type == "bicgstab" ? 6.0 : m + 4.0) + (jacobi ? 1.0 : 0.0);
    const double scalars = type == "gmres" ? (m + 1) * m + 3 * m + 1 : 0.0;
    const bool in_shared = vectors_in_shared_memory<V>(*exec, problem.min_rows, problem.max_rows, vectors, scalars);
    const double accesses = (type == "cg" ? 18.0 : type == "bicgstab" ? 31.0 : 1.5 * m + 8.0) +
                            (jacobi ? spmvs : 0.0);
    // Block-Jacobi reads every block inverse and three per-row indices once per application, and a fourth (the
    // row matching) where an item is matched; scalar Jacobi's scales and no preconditioner read nothing here.
    const double index_bytes = solver->get_num_row_matched_items() > 0 ? 20.0 : 16.0;
    const double block_bytes =
        preconditioner == "block_jacobi"
            ? double(solver->get_num_block_values()) * sizeof(V) + double(problem.rows) * index_bytes
            : 0.0;
    double total_iterations = 0.0;
    for (size_type item = 0; item < num_items; ++item) {
        const double iterations = double(solve.get_iterations(item));
        total_iterations += iterations;
        const double rows_i = double(problem.items[item].size.rows);
        const double item_block_bytes = block_bytes * rows_i / double(problem.rows);
        result.bytes += iterations * (spmvs * (item_bytes[item] + item_block_bytes) +
                                      (in_shared ? 0.0 : accesses * rows_i * sizeof(V)));
        result.flops += iterations * spmvs * 2.0 * double(problem.items[item].entries.size());
    }
    const double seconds = median(result.ours.seconds);
    for (const auto status : {batch::ItemStatus::converged, batch::ItemStatus::max_iterations,
                              batch::ItemStatus::breakdown, batch::ItemStatus::non_finite,
                              batch::ItemStatus::residual_gap}) {
        result.details["items_" + batch::to_string(status)] = solve.count(status);
    }
    result.details["mean_iterations"] = total_iterations / double(num_items);
    result.details["max_iterations_of_an_item"] = solve.get_max_iterations();
    result.details["vectors_in_shared_memory"] = in_shared;
    result.details["blocks"] = solver->get_num_blocks();
    result.details["split_blocks"] = solver->get_num_split_blocks();
    result.details["singular_blocks"] = solver->get_num_singular_blocks();
    result.details["row_matched_items"] = solver->get_num_row_matched_items();
    result.details["seconds_per_item_iteration"] = total_iterations > 0 ? seconds / total_iterations : 0.0;
    if (fields.get_bool("baselines", false)) {
        measure_baselines<V>(context, problem, description, seconds, result.details);
    }
    return result;
}

void validate_batch_solver(const Fields& fields)
{
    const auto kind = fields.get_string("batch");
    if (std::find(batch_kinds.begin(), batch_kinds.end(), kind) == batch_kinds.end()) {
        fields.fail("batch", "must be one of " + join(batch_kinds) + ", not \"" + kind + "\"");
    }
    const auto format = fields.get_string("format", "csr");
    if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
        fields.fail("format", "must be one of " + join(formats) + ", not \"" + format + "\"");
    }
    const auto num_items = fields.get_integer("num_items", 1);
    fields.get_integer("loop_items", 20, 1, max_integer);
    fields.get_bool("baselines", false);
    fields.get_bool("join_baseline", true);
    if (fields.has("join_max_iterations")) {
        fields.get_integer("join_max_iterations", 1, 1, max_integer);
    }
    if (kind == "stencil") {
        const auto stencil_kind = fields.get_string("stencil", "3pt");
        if (stencil_kind != "3pt" && stencil_kind != "5pt") {
            fields.fail("stencil", "must be \"3pt\" or \"5pt\", not \"" + stencil_kind + "\"");
        }
        fields.get_integer("rows", 1, max_integer);
    } else {
        fields.get_integer("max_rows", 1024, 1, max_integer);
        const auto pool = fields.get_string("pool", "all");
        if (pool != "all" && pool != "solvable") {
            fields.fail("pool", "must be \"all\" or \"solvable\", not \"" + pool + "\"");
        }
    }
    // The description is checked by the library's own reader (BadInput naming the JSON path).
    try {
        config::create_batch_solver_factory<double>(fields.get_object("solver").get_json(),
                                                    make_executor("reference"));
    } catch (const BadInput& error) {
        fields.fail("solver", error.get_message());
    }
    // The solver compares a per-item tolerance list with the batch only when it runs.
    const auto solver = fields.get_object("solver");
    if (solver.has("criteria")) {
        const auto criteria = solver.get_object("criteria");
        for (const std::string key : {"relative_residual", "absolute_residual"}) {
            const auto tolerances = criteria.get_json().value(key, json{});
            if (tolerances.is_array() && static_cast<long long>(tolerances.size()) != num_items) {
                criteria.fail(key, "lists " + std::to_string(tolerances.size()) + " tolerances but num_items is " +
                                       std::to_string(num_items) + "; give one per item");
            }
        }
    }
}

const bool registered = register_operation(
    {"batch_solver",
     "batched Krylov solve (batch::Cg, Bicgstab, Gmres) of variable-size sparse items, each converging on "
     "its own; optional baselines: larch's single-system solver looped over items and on the block-diagonal "
     "join",
     {"batch", "solver", "format", "num_items", "max_rows", "pool", "stencil", "rows", "baselines", "join_baseline",
      "join_max_iterations", "loop_items"},
     // solver and format last: the cases of one batch run one after the other and share its setup.
     {"num_items", "rows", "stencil", "solver", "format"},
     validate_batch_solver,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(), [&](auto value) {
             return run_batch_solver<decltype(value)>(context);
         });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
