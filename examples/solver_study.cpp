// solver_study: the real-matrix solver study. Every matrix of a folder, x0 = 0, b uniform in [0, 1)
// (fixed seed), relative residual 1e-9, at most 50,000 iterations, stopped early when the residual stays above 1e5
// times the initial one for 200 iterations or makes no 0.1% progress in 2,000 iterations (--no-progress-stops: off); BiCGSTAB, IDR(4) and GMRES(100) with scalar
// Jacobi, and CG with scalar Jacobi on the SPD ones. A solve counts as solved when the TRUE relative
// residual ||b - Ax|| / ||b||, recomputed here on the host from the file's entries, is at most 1e-8.
// Usage: solver_study [MATRIX_DIR] [--executor NAME] [--output table.md] [--max-iterations N] [--shard K/N]
//                     [--solvers bicgstab,idr,gmres,cg] [--block-sizes 1,4,8,16,24,32]
//                     [--algorithm gauss_jordan|gauss_huard|gauss_huard_transposed] [--time-limit SECONDS]
//                     [--no-progress-stops] [--rhs uniform|ones] [--tolerance TOL]
// (--tolerance sets the relative residual the solvers stop at, 1e-9 by default; solved means a true relative
// residual of at most 10 times it; --rhs ones replaces the uniform right-hand side by ones)
// (--shard K/N takes every N-th matrix starting at the K-th, so N processes can share the work; every solver
// runs with block-Jacobi of every bound of --block-sizes, 1 = scalar Jacobi, the default)
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
#include <vector>

#include <nlohmann/json.hpp>

#include <larch/base/executor.hpp>
#include <larch/config/solver_config.hpp>
#include <larch/generate/problems.hpp>
#include <larch/io/matrix_market.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/preconditioner/block_jacobi.hpp>

using namespace larch;
namespace fs = std::filesystem;

namespace {

struct Settings {
    std::string matrix_dir = LARCH_DEFAULT_MATRIX_DIR;
    std::string executor = "omp";
    std::string output;
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

/// A solver with a block-Jacobi bound (1 = scalar Jacobi).
struct StudyCase {
    SolverCase solver;
    size_type block_size;
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
};

/// Files marked SPD ("yes") in the folder's INDEX.md table (column "SPD"); empty if there is no index.
std::set<std::string> read_spd_list(const std::string& dir)
{
    std::set<std::string> spd;
    std::ifstream index{dir + "/INDEX.md"};
    std::string line;
    while (std::getline(index, line)) {
        std::vector<std::string> cells;
        std::stringstream row{line};
        std::string cell;
        while (std::getline(row, cell, '|')) {
            cell.erase(0, cell.find_first_not_of(' '));
            cell.erase(cell.find_last_not_of(' ') + 1);
            cells.push_back(cell);
        }
        // | file | rows | cols | nnz stored | nnz full | symmetry | field | SPD | ...
        if (cells.size() > 8 && cells[8] == "yes") {
            spd.insert(cells[1]);
        }
    }
    return spd;
}

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
    return static_cast<double>(std::sqrt(r_norm / b_norm));
}

Outcome run_case(const StudyCase& study_case, const Settings& settings, std::shared_ptr<const Executor> exec,
                 const matrix_data<double, std::int32_t>& data, std::shared_ptr<const LinOp> a,
                 const std::vector<double>& rhs)
{
    auto description = nlohmann::json::parse(study_case.solver.config);
    description["criteria"] = {{"max_iterations", settings.max_iterations}, {"relative_residual", settings.tolerance}};
    if (settings.time_limit > 0) {
        description["criteria"]["time_limit"] = settings.time_limit;
    }
    if (settings.progress_stops) {
        description["criteria"]["divergence"] = 1e5;
        description["criteria"]["stagnation"] = {{"window", 2000}};
    }
    description["preconditioner"] = {{"type", "block_jacobi"},
                                     {"max_block_size", study_case.block_size},
                                     {"algorithm", settings.algorithm}};
    Outcome outcome;
    outcome.ran = true;
    const auto n = data.size.rows;
    auto b = matrix::Dense<double>::create(exec, dim2{n, 1}, array<double>{exec, rhs.begin(), rhs.end()}, 1);
    auto x = matrix::Dense<double>::create(exec, dim2{n, 1});
    x->fill(0.0);
    const auto start = std::chrono::steady_clock::now();
    try {
        auto solver = config::create_solver_factory<double>(description, exec)->generate(a);
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
    outcome.solved = std::isfinite(outcome.relative_residual) && outcome.relative_residual <= 10 * settings.tolerance;
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

}  // namespace

int main(int argc, char** argv)
{
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--executor" && i + 1 < argc) {
            settings.executor = argv[++i];
        } else if (arg == "--output" && i + 1 < argc) {
            settings.output = argv[++i];
        } else if (arg == "--max-iterations" && i + 1 < argc) {
            settings.max_iterations = std::stoul(argv[++i]);
        } else if (arg == "--shard" && i + 1 < argc) {
            const std::string shard = argv[++i];
            settings.shard = std::stoul(shard.substr(0, shard.find('/')));
            settings.num_shards = std::stoul(shard.substr(shard.find('/') + 1));
        } else if (arg == "--solvers" && i + 1 < argc) {
            settings.solvers.clear();
            std::stringstream list{argv[++i]};
            for (std::string name; std::getline(list, name, ',');) {
                settings.solvers.insert(name);
            }
        } else if (arg == "--block-sizes" && i + 1 < argc) {
            settings.block_sizes.clear();
            std::stringstream list{argv[++i]};
            for (std::string size; std::getline(list, size, ',');) {
                settings.block_sizes.push_back(std::stoul(size));
            }
        } else if (arg == "--algorithm" && i + 1 < argc) {
            settings.algorithm = argv[++i];
        } else if (arg == "--time-limit" && i + 1 < argc) {
            settings.time_limit = std::stod(argv[++i]);
        } else if (arg == "--no-progress-stops") {
            settings.progress_stops = false;
        } else if (arg == "--rhs" && i + 1 < argc) {
            settings.rhs_of_ones = std::string{argv[++i]} == "ones";
        } else if (arg == "--tolerance" && i + 1 < argc) {
            settings.tolerance = std::stod(argv[++i]);
        } else if (arg.rfind("--", 0) != 0) {
            settings.matrix_dir = arg;
        } else {
            std::cerr << "usage: solver_study [MATRIX_DIR] [--executor NAME] [--output table.md] "
                         "[--max-iterations N] [--shard K/N] [--solvers bicgstab,idr,gmres,cg] "
                         "[--block-sizes 1,4,8,16,24,32] [--algorithm NAME] [--time-limit SECONDS] "
                         "[--no-progress-stops] [--rhs uniform|ones] [--tolerance TOL]\n";
            return 2;
        }
    }
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(settings.matrix_dir)) {
        if (entry.path().extension() == ".mtx") {
            files.push_back(entry.path().filename().string());
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<std::string> shard_files;
    for (size_type k = settings.shard; k < files.size(); k += std::max<size_type>(1, settings.num_shards)) {
        shard_files.push_back(files[k]);
    }
    files = shard_files;
    const auto spd = read_spd_list(settings.matrix_dir);
    auto exec = make_executor(settings.executor);
    std::vector<StudyCase> study_cases;
    for (const auto& solver_case : solver_cases) {
        if (settings.solvers.count(solver_case.name) > 0) {
            for (const auto block_size : settings.block_sizes) {
                study_cases.push_back({solver_case, block_size});
            }
        }
    }
    std::map<std::string, int> false_convergences;
    std::map<std::string, int> stopped_at_start;
    std::map<std::string, int> solved;
    std::map<std::string, int> attempted;
    std::ostringstream table;
    std::string header_rule = "|---|---|---|---|";
    for (size_t k = 0; k < study_cases.size(); ++k) {
        header_rule += "---|";
    }
    table << "| matrix | n | nnz | SPD |";
    for (const auto& study_case : study_cases) {
        table << " " << study_case.label() << " |";
    }
    table << "\n" << header_rule << "\n";
    for (const auto& file : files) {
        const auto data = io::read_matrix_market_data<double, std::int32_t>(settings.matrix_dir + "/" + file);
        auto a = share(matrix::Csr<double>::create(exec, data));
        const auto rhs = settings.rhs_of_ones ? std::vector<double>(data.size.rows, 1.0)
                                              : generate::right_hand_side<double>(data.size.rows,
                                                                                  generate::RhsKind::uniform, 42);
        const bool is_spd = spd.count(file) > 0;
        table << "| " << file << " | " << data.size.rows << " | " << data.entries.size() << " | "
              << (is_spd ? "yes" : "") << " |";
        for (const auto& study_case : study_cases) {
            Outcome outcome;
            const auto label = study_case.label();
            if (!study_case.solver.spd_only || is_spd) {
                outcome = run_case(study_case, settings, exec, data, a, rhs);
                ++attempted[label];
                solved[label] += outcome.solved ? 1 : 0;
                false_convergences[label] += !outcome.solved && outcome.reason == "converged" ? 1 : 0;
                stopped_at_start[label] += !outcome.solved && outcome.iterations == 0 ? 1 : 0;
            }
            table << " " << cell(outcome) << " |";
            if (outcome.ran) {
                std::cerr << file << " " << label << ": " << cell(outcome) << " in " << outcome.seconds
                          << " s (generate " << outcome.generate_seconds << " s)\n";
            }
        }
        table << "\n";
    }
    std::ostringstream summary;
    summary << "Solved (true relative residual <= " << 10 * settings.tolerance << "), executor " << exec->get_name() << ", "
            << files.size() << " matrices:\n\n";
    for (const auto& study_case : study_cases) {
        const auto label = study_case.label();
        summary << "- " << label << ": " << solved[label] << " / " << attempted[label]
                << (study_case.solver.spd_only ? " (SPD matrices)" : "") << "; false convergences "
                << false_convergences[label] << ", unsolved at iteration 0 " << stopped_at_start[label] << "\n";
    }
    summary << "\n(J = scalar Jacobi, BJ(k) = block-Jacobi with blocks of up to k rows, algorithm "
            << settings.algorithm << "; sb = singular blocks split in halves)\n";
    const auto report = summary.str() + "\n" + table.str();
    std::cout << report;
    if (!settings.output.empty()) {
        std::ofstream{settings.output} << report;
    }
    return 0;
}
