// solver_study: the real-matrix solver study. Every matrix of a folder, x0 = 0, b uniform in [0, 1)
// (fixed seed), relative residual 1e-9, at most 50,000 iterations, stopped early when the residual stays above 1e5
// times the initial one for 200 iterations or makes no 0.1% progress in 2,000 iterations (--no-progress-stops: off); BiCGSTAB, IDR(4) and GMRES(100) with scalar
// Jacobi, and CG with scalar Jacobi on the SPD ones: those the folder's INDEX.md marks SPD, and a matrix it does
// not list (or a folder without one) when the matrix may be SPD: symmetric in pattern and values with a positive
// diagonal, a cheap necessary condition (CG may still fail on it; the SPD column says "candidate"). A solve counts
// as solved when the TRUE relative residual ||b - Ax|| / ||b||, recomputed here on the host from the file's
// entries, is at most 1e-8. Matrix files are *.mtx in any letter case; a folder without one is an error.
// Usage: solver_study [MATRIX_DIR] [--executor NAME] [--output table.md] [--json results.json]
//                     [--max-iterations N] [--shard K/N]
//                     [--solvers bicgstab,idr,gmres,cg] [--block-sizes 1,4,8,16,24,32]
//                     [--algorithm gauss_jordan|gauss_huard|gauss_huard_transposed] [--time-limit SECONDS]
//                     [--no-progress-stops] [--rhs uniform|ones] [--tolerance TOL]
// (every flag is checked before the first solve: a bad value, a flag given twice or a block size named twice ends
// the study with exit code 2 and a message naming the flag; --time-limit 0, the default, sets no limit)
// (--tolerance sets the relative residual the solvers stop at, in [0, 1), 1e-9 by default; solved means a true
// relative residual of at most 10 times it; --rhs ones replaces the uniform right-hand side by ones)
// (--shard K/N takes every N-th matrix starting at the K-th, so N processes can share the work; every solver
// runs with block-Jacobi of every bound of --block-sizes, 1 = scalar Jacobi, the default)
// (--json writes the same results for benchmark/plot.py: a case of kind "matrix" per matrix and configuration, one
// of kind "summary" per configuration; "fastest" = the solved bound of least setup + solve time of its solver)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <larch/base/executor.hpp>
#include <larch/config/solver_config.hpp>
#include <larch/generate/problems.hpp>
#include <larch/io/matrix_market.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/preconditioner/block_jacobi.hpp>

#include "flag_value.hpp"
#include "matrix_index.hpp"

using namespace larch;
namespace fs = std::filesystem;

namespace {

const char* const usage =
    "usage: solver_study [MATRIX_DIR] [--executor NAME] [--output table.md] [--json results.json]\n"
    "                    [--max-iterations N] [--shard K/N] [--solvers bicgstab,idr,gmres,cg]\n"
    "                    [--block-sizes 1,4,8,16,24,32]\n"
    "                    [--algorithm gauss_jordan|gauss_huard|gauss_huard_transposed]\n"
    "                    [--time-limit SECONDS (0 = none)] [--no-progress-stops] [--rhs uniform|ones]\n"
    "                    [--tolerance TOL (0 <= TOL < 1)]\n"
    "CG runs on the matrices INDEX.md marks SPD and, where INDEX.md does not list a matrix, on those that are\n"
    "symmetric with a positive diagonal (necessary for SPD, not sufficient).\n";

struct Settings {
    std::string matrix_dir = LARCH_DEFAULT_MATRIX_DIR;
    bool matrix_dir_given = false;
    std::string executor = "omp";
    std::string output;
    std::string json;
    size_type max_iterations = 50000;
    size_type shard = 0;
    size_type num_shards = 1;
    std::set<std::string> solvers{"bicgstab", "idr", "gmres", "cg"};
    std::vector<size_type> block_sizes{1};
    std::string algorithm = "gauss_jordan";
    double time_limit = 0;  // seconds per solve, 0 = none
    bool progress_stops = true;  // divergence and stagnation
    bool rhs_of_ones = false;
    double tolerance = 1e-9;
};

constexpr std::uint64_t rhs_seed = 42;  // of the uniform right-hand side

struct SolverCase {
    std::string name;  // as --solvers names it
    std::string label;
    std::string config;  // JSON without criteria
    bool spd_only;
};

const std::vector<SolverCase> solver_cases{
    {"bicgstab", "BiCGSTAB", R"({"type": "bicgstab"})", false},
    {"idr", "IDR(4)", R"({"type": "idr", "subspace_dim": 4, "seed": 42})", false},
    {"gmres", "GMRES(100)", R"({"type": "gmres", "restart": 100})", false},
    {"cg", "CG", R"({"type": "cg"})", true},
};

/// A solver with a block-Jacobi bound (1 = scalar Jacobi) and its description, criteria included.
struct StudyCase {
    SolverCase solver;
    size_type block_size;
    nlohmann::json description;
    std::string label() const
    {
        return solver.label + (block_size == 1 ? "+J" : "+BJ(" + std::to_string(block_size) + ")");
    }
};

struct Outcome {
    bool ran = false;
    bool solved = false;
    size_type iterations = 0;
    double relative_residual = 0;
    std::string reason;
    size_type replacements = 0;
    double seconds = 0;
    double generate_seconds = 0;  // the solver's setup, the preconditioner's generation included
    size_type singular_blocks = 0;
    bool fastest = false;  // the solved configuration of least total time of its solver on its matrix
};

/// A matrix with its outcome for every study case, in their order.
struct MatrixResult {
    std::string file;
    size_type rows;
    size_type nnz;
    bool spd;
    bool spd_from_index;  // else a candidate by is_spd_candidate
    std::vector<Outcome> outcomes;
};

/// A study case's counts over the matrices, as both reports give them.
struct Tally {
    int attempted = 0;
    int solved = 0;
    int fastest = 0;
    int false_convergences = 0;
    int stopped_at_start = 0;
};

double host_relative_residual(const matrix_data<double, std::int32_t>& a, const std::vector<double>& b,
                              const std::vector<double>& x)
{
    std::vector<long double> r(b.begin(), b.end());
    for (const auto& e : a.entries) {
        r[e.row] -= static_cast<long double>(e.value) * x[e.col];
    }
    long double r_norm = 0;
    long double b_norm = 0;
    for (size_type i = 0; i < r.size(); ++i) {
        r_norm += r[i] * r[i];
        b_norm += static_cast<long double>(b[i]) * b[i];
    }
    // an empty system has ||b|| = 0 and nothing left to solve
    return static_cast<double>(std::sqrt(b_norm > 0 ? r_norm / b_norm : r_norm));
}

/// Whether `a` may be symmetric positive definite, judged from its entries: square, symmetric in pattern and
/// values (exactly), and a positive diagonal entry in every row. Necessary for SPD, not sufficient (no
/// factorization is tried), so CG may still fail on a candidate.
bool is_spd_candidate(const matrix_data<double, std::int32_t>& a)
{
    if (a.size.rows != a.size.cols) {
        return false;
    }
    using Entry = std::tuple<std::int32_t, std::int32_t, double>;
    std::vector<Entry> entries;
    std::vector<Entry> transposed;
    std::vector<bool> positive_diagonal(a.size.rows, false);
    for (const auto& e : a.entries) {
        entries.emplace_back(e.row, e.col, e.value);
        transposed.emplace_back(e.col, e.row, e.value);
        if (e.row == e.col && e.value > 0) {
            positive_diagonal[e.row] = true;
        }
    }
    std::sort(entries.begin(), entries.end());
    std::sort(transposed.begin(), transposed.end());
    return entries == transposed &&
           std::all_of(positive_diagonal.begin(), positive_diagonal.end(), [](bool positive) { return positive; });
}

/// The flag that sets each field of the study's solver descriptions, so that a message of the library's reader
/// about the field can name the flag.
const std::vector<std::pair<std::string, std::string>> flag_of_field{
    {"/criteria/max_iterations", "--max-iterations"},
    {"/criteria/relative_residual", "--tolerance"},
    {"/criteria/time_limit", "--time-limit"},
    {"/preconditioner/max_block_size", "--block-sizes"},
    {"/preconditioner/algorithm", "--algorithm"}};

/// One study case per solver of --solvers and bound of --block-sizes. Each description is read once here by the
/// library's reader, so that a bad value throws BadInput naming its flag before the first solve.
std::vector<StudyCase> create_study_cases(const Settings& settings, std::shared_ptr<const Executor> exec)
{
    std::vector<StudyCase> study_cases;
    for (const auto& solver_case : solver_cases) {
        if (settings.solvers.count(solver_case.name) == 0) {
            continue;
        }
        for (const auto block_size : settings.block_sizes) {
            auto description = nlohmann::json::parse(solver_case.config);
            description["criteria"] = {{"max_iterations", settings.max_iterations},
                                       {"relative_residual", settings.tolerance}};
            if (settings.time_limit > 0) {
                description["criteria"]["time_limit"] = settings.time_limit;
            }
            if (settings.progress_stops) {
                description["criteria"]["divergence"] = 1e5;
                description["criteria"]["stagnation"] = {{"window", 2000}};
            }
            description["preconditioner"] = {{"type", "block_jacobi"},
                                             {"max_block_size", block_size},
                                             {"algorithm", settings.algorithm}};
            try {
                config::create_solver_factory<double>(description, exec);
            } catch (BadInput& error) {
                examples::name_the_flag_of_its_field(error, flag_of_field);
                throw;
            }
            study_cases.push_back({solver_case, block_size, std::move(description)});
        }
    }
    return study_cases;
}

Outcome run_case(const StudyCase& study_case, std::shared_ptr<const Executor> exec,
                 const matrix_data<double, std::int32_t>& data, std::shared_ptr<const LinOp> a,
                 const std::vector<double>& rhs, double tolerance)
{
    Outcome outcome;
    outcome.ran = true;
    const auto n = data.size.rows;
    auto b = matrix::Dense<double>::create(exec, dim2{n, 1}, array<double>{exec, rhs.begin(), rhs.end()}, 1);
    auto x = matrix::Dense<double>::create(exec, dim2{n, 1});
    x->fill(0.0);
    const auto start = std::chrono::steady_clock::now();
    try {
        auto solver = config::create_solver_factory<double>(study_case.description, exec)->generate(a);
        outcome.generate_seconds = solver->get_generate_time();
        if (study_case.block_size > 1) {
            outcome.singular_blocks =
                solver->get_preconditioner_as<preconditioner::BlockJacobi<double>>()->get_num_split_blocks();
        }
        solver->apply(b, x);
        const auto& status = solver->get_status();
        outcome.iterations = status.iterations;
        outcome.reason = stop::to_string(status.reason);
        outcome.replacements = status.residual_replacements;
    } catch (const Error& error) {
        outcome.reason = std::string{"error: "} + error.what();
    }
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.relative_residual = host_relative_residual(data, rhs, x->copy_to_host());
    outcome.solved = std::isfinite(outcome.relative_residual) && outcome.relative_residual <= 10 * tolerance;
    return outcome;
}

std::string cell(const Outcome& outcome)
{
    if (!outcome.ran) {
        return "-";
    }
    char text[200];
    std::snprintf(text, sizeof text, "%s %zu it, %.1e%s%s; setup %.3g ms, solve %.3g ms",
                  outcome.solved ? "**ok**" : outcome.reason.c_str(), outcome.iterations, outcome.relative_residual,
                  outcome.replacements > 0 ? (" (" + std::to_string(outcome.replacements) + " rr)").c_str() : "",
                  outcome.singular_blocks > 0 ? (", " + std::to_string(outcome.singular_blocks) + " sb").c_str() : "",
                  1e3 * outcome.generate_seconds, 1e3 * (outcome.seconds - outcome.generate_seconds));
    return text;
}

/// Solves one matrix with every study case, printing each outcome to stderr; CG only where it is SPD by `index`
/// (INDEX.md), or, for a matrix the index does not list, where it is a candidate (is_spd_candidate).
MatrixResult run_matrix(const std::string& file, const std::map<std::string, bool>& index, const Settings& settings,
                        std::shared_ptr<const Executor> exec, const std::vector<StudyCase>& study_cases)
{
    const auto path = settings.matrix_dir + "/" + file;
    const auto data = io::read_matrix_market_data<double, std::int32_t>(path);
    // checked before anything is solved: the true residual below indexes x (of one entry per row) by column
    LARCH_ENSURE(data.size.rows == data.size.cols, BadInput,
                 path + " is a " + to_string(data.size) + " matrix; the study solves square systems only");
    auto a = share(matrix::Csr<double>::create(exec, data));
    const auto rhs = settings.rhs_of_ones ? std::vector<double>(data.size.rows, 1.0)
                                          : generate::right_hand_side<double>(data.size.rows,
                                                                              generate::RhsKind::uniform, rhs_seed);
    const auto listed = index.find(file);
    const bool spd_from_index = listed != index.end();
    const bool is_spd = spd_from_index ? listed->second : is_spd_candidate(data);
    MatrixResult result{file, data.size.rows, data.entries.size(), is_spd, spd_from_index, {}};
    for (const auto& study_case : study_cases) {
        Outcome outcome;
        if (!study_case.solver.spd_only || is_spd) {
            outcome = run_case(study_case, exec, data, a, rhs, settings.tolerance);
            std::cerr << file << " " << study_case.label() << ": " << cell(outcome) << " in " << outcome.seconds
                      << " s (generate " << outcome.generate_seconds << " s)\n";
        }
        result.outcomes.push_back(outcome);
    }
    return result;
}

/// Marks, for each solver, its solved outcome of least total time (setup and solve) as the fastest.
void mark_fastest(const std::vector<StudyCase>& study_cases, std::vector<Outcome>& outcomes)
{
    std::map<std::string, Outcome*> fastest;
    for (size_t k = 0; k < study_cases.size(); ++k) {
        auto& best = fastest[study_cases[k].solver.name];
        if (outcomes[k].solved && (best == nullptr || outcomes[k].seconds < best->seconds)) {
            best = &outcomes[k];
        }
    }
    for (auto& entry : fastest) {
        if (entry.second != nullptr) {
            entry.second->fastest = true;
        }
    }
}

Tally tally(const std::vector<MatrixResult>& results, size_t study_case)
{
    Tally counts;
    for (const auto& result : results) {
        const auto& outcome = result.outcomes[study_case];
        if (outcome.ran) {
            ++counts.attempted;
            counts.solved += outcome.solved ? 1 : 0;
            counts.fastest += outcome.fastest ? 1 : 0;
            counts.false_convergences += !outcome.solved && outcome.reason == "converged" ? 1 : 0;
            counts.stopped_at_start += !outcome.solved && outcome.iterations == 0 ? 1 : 0;
        }
    }
    return counts;
}

std::string markdown_report(const Settings& settings, const std::string& executor,
                            const std::vector<StudyCase>& study_cases, const std::vector<MatrixResult>& results)
{
    std::ostringstream report;
    report << "Solved (true relative residual <= " << 10 * settings.tolerance << "), executor " << executor << ", "
           << results.size() << " matrices:\n\n";
    for (size_t k = 0; k < study_cases.size(); ++k) {
        const auto counts = tally(results, k);
        report << "- " << study_cases[k].label() << ": " << counts.solved << " / " << counts.attempted
               << (study_cases[k].solver.spd_only ? " (SPD matrices)" : "") << "; fastest " << counts.fastest
               << ", false convergences " << counts.false_convergences << ", unsolved at iteration 0 "
               << counts.stopped_at_start << "\n";
    }
    report << "\n(J = scalar Jacobi, BJ(k) = block-Jacobi with blocks of up to k rows, algorithm "
           << settings.algorithm << "; sb = singular blocks split in halves; fastest = on how many matrices it is "
           << "the solved bound of least setup + solve time of its solver; SPD: yes from INDEX.md, candidate = not "
           << "listed there but symmetric with a positive diagonal, necessary for SPD, not sufficient)\n\n";
    report << "| matrix | n | nnz | SPD |";
    for (const auto& study_case : study_cases) {
        report << " " << study_case.label() << " |";
    }
    report << "\n|---|---|---|---|";
    for (size_t k = 0; k < study_cases.size(); ++k) {
        report << "---|";
    }
    report << "\n";
    for (const auto& result : results) {
        report << "| " << result.file << " | " << result.rows << " | " << result.nnz << " | "
               << (result.spd ? (result.spd_from_index ? "yes" : "candidate") : "") << " |";
        for (const auto& outcome : result.outcomes) {
            report << " " << cell(outcome) << " |";
        }
        report << "\n";
    }
    return report.str();
}

/// The executor for the JSON results (plot.py's subtitle): its name, with the thread count on omp.
std::string describe(const Executor& exec)
{
    if (const auto omp = dynamic_cast<const OmpExecutor*>(&exec)) {
        const auto threads = omp->get_num_threads();
        return "omp, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
    }
    return exec.get_name();
}

nlohmann::ordered_json settings_record(const Settings& settings, size_type num_matrices)
{
    return {{"matrix_dir", settings.matrix_dir},
            {"num_matrices", num_matrices},
            {"tolerance", settings.tolerance},
            {"solved_at_true_residual", 10 * settings.tolerance},
            {"max_iterations", settings.max_iterations},
            {"time_limit_s", settings.time_limit},
            {"progress_stops", settings.progress_stops},
            {"rhs", settings.rhs_of_ones ? "ones" : "uniform in [0, 1), seed " + std::to_string(rhs_seed)},
            {"shard", std::to_string(settings.shard) + "/" + std::to_string(settings.num_shards)},
            {"solvers", settings.solvers},
            {"block_sizes", settings.block_sizes},
            {"algorithm", settings.algorithm}};
}

// Every case has "status": "ok", as plot.py draws no other; the solver's stop is its "reason".
nlohmann::ordered_json matrix_record(const MatrixResult& result, const StudyCase& study_case, const Outcome& outcome)
{
    return {{"kind", "matrix"},
            {"matrix", result.file},
            {"n", result.rows},
            {"nnz", result.nnz},
            {"spd", result.spd},
            {"spd_from_index", result.spd_from_index},
            {"solver", study_case.solver.label},
            {"block_size", study_case.block_size},
            {"status", "ok"},
            {"solved", outcome.solved},
            {"reason", outcome.reason},
            {"iterations", outcome.iterations},
            {"true_residual", outcome.relative_residual},
            {"residual_replacements", outcome.replacements},
            {"singular_blocks", outcome.singular_blocks},
            {"setup_s", outcome.generate_seconds},
            {"solve_s", outcome.seconds - outcome.generate_seconds},
            {"fastest", outcome.fastest}};
}

nlohmann::ordered_json summary_record(const StudyCase& study_case, const Tally& counts)
{
    return {{"kind", "summary"},
            {"solver", study_case.solver.label},
            {"block_size", study_case.block_size},
            {"status", "ok"},
            {"attempted", counts.attempted},
            {"solved", counts.solved},
            {"fastest", counts.fastest},
            {"false_convergences", counts.false_convergences},
            {"unsolved_at_iteration_0", counts.stopped_at_start}};
}

nlohmann::ordered_json json_report(const Settings& settings, const Executor& exec,
                                   const std::vector<StudyCase>& study_cases, const std::vector<MatrixResult>& results)
{
    auto cases = nlohmann::ordered_json::array();
    for (const auto& result : results) {
        for (size_t k = 0; k < study_cases.size(); ++k) {
            if (result.outcomes[k].ran) {
                cases.push_back(matrix_record(result, study_cases[k], result.outcomes[k]));
            }
        }
    }
    for (size_t k = 0; k < study_cases.size(); ++k) {
        cases.push_back(summary_record(study_cases[k], tally(results, k)));
    }
    return {{"executors", {{exec.get_name(), {{"description", describe(exec)}}}}},
            {"settings", settings_record(settings, results.size())},
            {"cases", cases}};
}

/// Opens an output file (none for an empty path) before the solves, so that a bad path fails at once.
bool open_output(const std::string& path, std::ofstream& file)
{
    if (!path.empty()) {
        file.open(path);
        if (!file) {
            std::cerr << "solver_study: cannot write the output file '" << path << "'\n";
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv)
try {
    Settings settings;
    // every flag given, in order: a flag given twice is rejected (its second value would replace the first)
    std::vector<std::string> flags;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&] { return examples::next_flag_value(argc, argv, i); };
        if (arg.rfind("-", 0) == 0) {
            flags.push_back(arg);
        }
        if (arg == "--executor") {
            settings.executor = value();
        } else if (arg == "--output") {
            settings.output = value();
        } else if (arg == "--json") {
            settings.json = value();
        } else if (arg == "--max-iterations") {
            settings.max_iterations = examples::flag_value<size_type>(arg, value());
        } else if (arg == "--shard") {
            const std::string shard = value();
            const auto slash = shard.find('/');
            settings.shard = examples::flag_value<size_type>(arg, shard.substr(0, slash));
            settings.num_shards =
                slash == std::string::npos ? 0 : examples::flag_value<size_type>(arg, shard.substr(slash + 1));
            if (settings.shard >= settings.num_shards) {
                throw BadInput(__FILE__, __LINE__, "--shard expects K/N with K < N, got '" + shard + "'");
            }
        } else if (arg == "--solvers") {
            settings.solvers.clear();
            std::stringstream list{value()};
            for (std::string name; std::getline(list, name, ',');) {
                if (std::none_of(solver_cases.begin(), solver_cases.end(),
                                 [&](const SolverCase& solver_case) { return solver_case.name == name; })) {
                    throw BadInput(__FILE__, __LINE__, "--solvers: unknown solver '" + name +
                                                           "'; valid names are bicgstab, idr, gmres, cg");
                }
                settings.solvers.insert(name);
            }
            if (settings.solvers.empty()) {
                throw BadInput(__FILE__, __LINE__, "--solvers names no solver");
            }
        } else if (arg == "--block-sizes") {
            settings.block_sizes.clear();
            std::stringstream list{value()};
            for (std::string size; std::getline(list, size, ',');) {
                const auto block_size = examples::flag_value<size_type>(arg, size);
                // a bound named twice would run and report the same configuration twice
                if (std::find(settings.block_sizes.begin(), settings.block_sizes.end(), block_size) !=
                    settings.block_sizes.end()) {
                    throw BadInput(__FILE__, __LINE__, "--block-sizes names " + size + " twice");
                }
                settings.block_sizes.push_back(block_size);
            }
            if (settings.block_sizes.empty()) {
                throw BadInput(__FILE__, __LINE__, "--block-sizes names no block size");
            }
        } else if (arg == "--algorithm") {
            settings.algorithm = value();
        } else if (arg == "--time-limit") {
            settings.time_limit = examples::flag_value<double>(arg, value());
            if (settings.time_limit < 0) {
                throw BadInput(__FILE__, __LINE__, "--time-limit expects seconds >= 0 (0 = no limit), got " +
                                                       std::string{argv[i]});
            }
        } else if (arg == "--no-progress-stops") {
            settings.progress_stops = false;
        } else if (arg == "--rhs") {
            const std::string rhs = value();
            if (rhs != "uniform" && rhs != "ones") {
                throw BadInput(__FILE__, __LINE__, "--rhs expects uniform or ones, got '" + rhs + "'");
            }
            settings.rhs_of_ones = rhs == "ones";
        } else if (arg == "--tolerance") {
            // a negative value is left to the solvers' reader, which names the field
            settings.tolerance = examples::relative_tolerance_value(arg, value());
        } else if (arg == "--help" || arg == "-h") {
            std::cout << usage;
            return 0;
        } else if (arg.rfind("-", 0) != 0 && !settings.matrix_dir_given) {
            settings.matrix_dir = arg;
            settings.matrix_dir_given = true;
        } else {
            const bool second_folder = arg.rfind("-", 0) != 0;
            std::cerr << "solver_study: unexpected argument '" << arg << "'"
                      << (second_folder ? " (the study reads one matrix folder, '" + settings.matrix_dir + "')" : "")
                      << "\n" << usage;
            return 2;
        }
    }
    examples::reject_repeated_flags(flags);
    auto exec = make_executor(settings.executor);
    const auto study_cases = create_study_cases(settings, exec);
    std::ofstream markdown_file;
    std::ofstream json_file;
    if (!open_output(settings.output, markdown_file) || !open_output(settings.json, json_file)) {
        return 1;
    }
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(settings.matrix_dir)) {
        if (examples::is_matrix_market_file_name(entry.path().filename().string())) {
            files.push_back(entry.path().filename().string());
        }
    }
    LARCH_ENSURE(!files.empty(), BadInput, "no matrix file (*.mtx) in the folder '" + settings.matrix_dir + "'");
    std::sort(files.begin(), files.end());
    std::vector<std::string> shard_files;
    for (size_type k = settings.shard; k < files.size(); k += std::max<size_type>(1, settings.num_shards)) {
        shard_files.push_back(files[k]);
    }
    files = shard_files;
    const auto index = examples::read_spd_index(settings.matrix_dir);
    std::vector<MatrixResult> results;
    for (const auto& file : files) {
        results.push_back(run_matrix(file, index, settings, exec, study_cases));
        mark_fastest(study_cases, results.back().outcomes);
    }
    const auto report = markdown_report(settings, exec->get_name(), study_cases, results);
    std::cout << report;
    if (markdown_file.is_open()) {
        markdown_file << report;
    }
    if (json_file.is_open()) {
        json_file << json_report(settings, *exec, study_cases, results).dump(2) << '\n';
    }
    return 0;
} catch (const std::exception& error) {
    // A bad flag value, a missing matrix folder: a message, not std::terminate.
    std::cerr << "solver_study: " << error.what() << "\n";
    return 2;
}
