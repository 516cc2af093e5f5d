// solve: reads a Matrix Market file or generates a problem, builds a Krylov solver from the command line or a
// JSON file, solves A x = b from x0 = 0 and prints iterations, the final residual ||b - Ax|| / ||b||
// (recomputed here, not the solver's estimate) and the generate and solve times.
//
// Usage: solve [matrix.mtx] [--generate laplace2d|laplace3d|convection_diffusion2d] [--size N]
//              [--executor NAME] [--solver cg|bicgstab|idr|gmres] [--config solver.json]
//              [--tolerance TOL (below 1)] [--max-iterations N] [--no-preconditioner] [--rhs ones|uniform]
//              [--monitor [K]] [--block-size K] [--algorithm gauss_jordan|gauss_huard|gauss_huard_transposed]
//              [--adaptive-precision] [--divergence FACTOR] [--stagnation WINDOW]
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <larch/base/executor.hpp>
#include <larch/config/solver_config.hpp>
#include <larch/generate/problems.hpp>
#include <larch/io/matrix_market.hpp>
#include <larch/log/convergence.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/matrix/dense.hpp>

#include "flag_value.hpp"
#include "matrix_index.hpp"

using namespace larch;
using Vector = matrix::Dense<double>;

namespace {

const char* usage =
    "usage: solve [matrix.mtx] [--generate laplace2d|laplace3d|convection_diffusion2d] [--size N]\n"
    "             [--executor NAME] [--solver cg|bicgstab|idr|gmres] [--config solver.json]\n"
    "             [--tolerance TOL (below 1)] [--max-iterations N] [--no-preconditioner] [--rhs ones|uniform]\n"
    "             [--monitor [K]]   (print the residual every K iterations, default 1)\n"
    "             [--block-size K]  (block-Jacobi with blocks of up to K rows; default 1 = scalar Jacobi)\n"
    "             [--algorithm gauss_jordan|gauss_huard|gauss_huard_transposed] [--adaptive-precision]\n"
    "             [--divergence FACTOR]  (stop once the residual stays above FACTOR x the initial one for 200\n"
    "                                     iterations; default 1e5, 0 = off)\n"
    "             [--stagnation WINDOW]  (stop after WINDOW iterations without a 0.1% residual decrease;\n"
    "                                     default 2000, 0 = off)\n"
    "With --config the solver and its preconditioner come from the file: --solver, --block-size, --algorithm,\n"
    "--adaptive-precision and --no-preconditioner are rejected. --tolerance, --max-iterations, --divergence and\n"
    "--stagnation give the criteria of a file without \"criteria\" and are rejected with one that has them;\n"
    "--monitor likewise with \"monitor\".\n"
    "A matrix file and --generate or --size are rejected together, --block-size, --algorithm and\n"
    "--adaptive-precision with --no-preconditioner, and any flag given twice.\n";

// The flags that set up the block-Jacobi preconditioner (and so cannot be combined with --no-preconditioner),
// those that describe the solver (and so cannot be combined with --config), and those that describe its
// stopping criteria (which cannot be combined with a --config file that has "criteria").
const std::vector<std::string> preconditioner_flags{"--block-size", "--algorithm", "--adaptive-precision"};
const std::vector<std::string> solver_flags{"--solver", "--block-size", "--algorithm", "--adaptive-precision",
                                            "--no-preconditioner"};
const std::vector<std::string> criteria_flags{"--tolerance", "--max-iterations", "--divergence", "--stagnation"};
// The flags of a generated problem, which a matrix file replaces.
const std::vector<std::string> generator_flags{"--generate", "--size"};

struct Settings {
    std::string matrix_file;
    std::string generator = "laplace3d";
    size_type size = 64;
    std::string executor = best_available_executor_name();
    std::string solver = "bicgstab";
    std::string config_file;
    double tolerance = 1e-9;
    size_type max_iterations = 10000;
    bool preconditioner = true;
    std::string rhs = "ones";
    size_type monitor_every = 0;
    size_type block_size = 1;
    std::string algorithm = "gauss_jordan";
    bool adaptive_precision = false;
    double divergence = 1e5;
    size_type stagnation_window = 2000;
    /// Every flag given, in order.
    std::vector<std::string> flags;
};

/// The first of `candidates` among the flags given, or "" if none was.
std::string first_given(const Settings& settings, const std::vector<std::string>& candidates)
{
    for (const auto& flag : settings.flags) {
        if (std::find(candidates.begin(), candidates.end(), flag) != candidates.end()) {
            return flag;
        }
    }
    return "";
}

Settings parse_arguments(int argc, char** argv)
{
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&] { return examples::next_flag_value(argc, argv, i, std::string{"\n"} + usage); };
        // The whole value as a count (examples/flag_value.hpp says why not std::stoul).
        auto count_value = [&]() { return examples::flag_value<size_type>(arg, value()); };
        if (arg.rfind("-", 0) == 0) {
            settings.flags.push_back(arg);
        }
        if (arg == "--generate") {
            settings.generator = value();
        } else if (arg == "--size") {
            settings.size = count_value();
        } else if (arg == "--executor") {
            settings.executor = value();
        } else if (arg == "--solver") {
            settings.solver = value();
        } else if (arg == "--config") {
            settings.config_file = value();
        } else if (arg == "--tolerance") {
            settings.tolerance = examples::relative_tolerance_value(arg, value());
        } else if (arg == "--max-iterations") {
            settings.max_iterations = count_value();
        } else if (arg == "--block-size") {
            settings.block_size = count_value();
        } else if (arg == "--algorithm") {
            settings.algorithm = value();
        } else if (arg == "--divergence") {
            // the value as given: std::to_string would print 1e-7 as 0.000000 and 0.9999999 as 1.000000
            const auto text = value();
            settings.divergence = examples::flag_value<double>(arg, text);
            if (settings.divergence != 0 && settings.divergence < 1) {
                throw BadInput(__FILE__, __LINE__,
                               "--divergence expects a factor >= 1, or 0 for off, got '" + text + "'");
            }
        } else if (arg == "--stagnation") {
            settings.stagnation_window = count_value();
        } else if (arg == "--adaptive-precision") {
            settings.adaptive_precision = true;
        } else if (arg == "--no-preconditioner") {
            settings.preconditioner = false;
        } else if (arg == "--rhs") {
            settings.rhs = value();
            if (settings.rhs != "ones" && settings.rhs != "uniform") {
                throw BadInput(__FILE__, __LINE__, "--rhs expects ones or uniform, got '" + settings.rhs + "'");
            }
        } else if (arg == "--monitor") {
            // The count is optional: a number or a single-dash word is taken as the count, so that "-5" is
            // rejected as a count instead of read as the matrix file; a *.mtx name (494_bus.mtx) is the matrix.
            const std::string next = i + 1 < argc ? argv[i + 1] : "--";
            const bool count_follows = !larch::examples::is_matrix_market_file_name(next) &&
                                       (std::isdigit(static_cast<unsigned char>(next[0])) ||
                                        (next[0] == '-' && next.rfind("--", 0) != 0));
            settings.monitor_every = count_follows ? count_value() : 1;
        } else if (arg.rfind("-", 0) != 0 && settings.matrix_file.empty()) {
            settings.matrix_file = arg;
        } else {
            throw BadInput(__FILE__, __LINE__, "unexpected argument '" + arg + "'\n" + usage);
        }
    }
    examples::reject_repeated_flags(settings.flags);
    const auto generator_flag = first_given(settings, generator_flags);
    if (!settings.matrix_file.empty() && !generator_flag.empty()) {
        throw BadInput(__FILE__, __LINE__, generator_flag + " cannot be combined with the matrix file " +
                                               settings.matrix_file + ": the problem is read or generated, not both");
    }
    const auto solver_flag = first_given(settings, solver_flags);
    if (!settings.config_file.empty() && !solver_flag.empty()) {
        throw BadInput(__FILE__, __LINE__, solver_flag + " cannot be combined with --config: the solver and its "
                                           "preconditioner come from the file");
    }
    const auto preconditioner_flag = first_given(settings, preconditioner_flags);
    if (!settings.preconditioner && !preconditioner_flag.empty()) {
        throw BadInput(__FILE__, __LINE__, preconditioner_flag + " cannot be combined with --no-preconditioner: there "
                                           "is no block-Jacobi preconditioner for it to set up");
    }
    return settings;
}

matrix_data<double, std::int32_t> load_problem(const Settings& settings, std::string& name)
{
    if (!settings.matrix_file.empty()) {
        name = settings.matrix_file;
        return io::read_matrix_market_data<double, std::int32_t>(settings.matrix_file);
    }
    name = settings.generator + " n=" + std::to_string(settings.size);
    if (settings.generator == "laplace2d") {
        return generate::laplace_2d<double>(settings.size);
    }
    if (settings.generator == "laplace3d") {
        return generate::laplace_3d<double>(settings.size);
    }
    if (settings.generator == "convection_diffusion2d") {
        return generate::convection_diffusion_2d<double>(settings.size, 1.0);
    }
    throw BadInput(__FILE__, __LINE__, "unknown generator '" + settings.generator +
                                           "'; use laplace2d, laplace3d or convection_diffusion2d");
}

/// The solver description: the JSON file if given, else one built from the flags; the criteria flags give
/// the criteria of a file that has none.
nlohmann::json solver_description(const Settings& settings)
{
    nlohmann::json description;
    if (!settings.config_file.empty()) {
        // An ifstream opens a folder and reads nothing from it: the parser would call that malformed JSON.
        if (std::filesystem::is_directory(settings.config_file)) {
            throw BadInput(__FILE__, __LINE__, "--config " + settings.config_file + " is a directory, not a JSON file");
        }
        std::ifstream file{settings.config_file};
        if (!file) {
            throw BadInput(__FILE__, __LINE__, "cannot open solver configuration '" + settings.config_file + "'");
        }
        std::ostringstream text;
        text << file.rdbuf();
        // The library's strict reading: a duplicate key or a number that overflows a double is an error naming
        // its JSON path, as in read_solver_config.
        try {
            description = config::parse_json(text.str());
        } catch (BadInput& error) {
            error.add_context(settings.config_file + ": ");
            throw;
        }
    } else {
        description = {{"type", settings.solver}};
        if (settings.preconditioner) {
            description["preconditioner"] = {{"type", "block_jacobi"},
                                             {"max_block_size", settings.block_size},
                                             {"algorithm", settings.algorithm},
                                             {"storage_precision", settings.adaptive_precision ? "adaptive" : "working"}};
        }
    }
    // A flag completes a --config file; overwriting a field the file sets would silently drop the file's value.
    const auto reject_over_file_field = [&](const std::string& flag, const std::string& field) {
        if (!flag.empty() && description.is_object() && description.contains(field)) {
            throw BadInput(__FILE__, __LINE__, flag + " cannot be combined with --config " + settings.config_file +
                                                   ", whose description sets \"" + field + "\"");
        }
    };
    reject_over_file_field(first_given(settings, criteria_flags), "criteria");
    reject_over_file_field(first_given(settings, {"--monitor"}), "monitor");
    if (description.is_object() && !description.contains("criteria")) {
        description["criteria"] = {{"max_iterations", settings.max_iterations},
                                   {"relative_residual", settings.tolerance}};
        if (settings.divergence > 0) {
            description["criteria"]["divergence"] = settings.divergence;
        }
        if (settings.stagnation_window > 0) {
            description["criteria"]["stagnation"] = {{"window", settings.stagnation_window}};
        }
    }
    // --monitor 0 too, which the reader rejects as it rejects "every": 0, rather than printing nothing
    if (description.is_object() && !first_given(settings, {"--monitor"}).empty()) {
        description["monitor"] = {{"every", settings.monitor_every}};
    }
    return description;
}

/// The flag that sets each field of a description built from the flags, so that a message of the library's
/// reader about the field can name the flag.
const std::vector<std::pair<std::string, std::string>> flag_of_field{
    {"/type", "--solver"},
    {"/criteria/max_iterations", "--max-iterations"},
    {"/criteria/relative_residual", "--tolerance"},
    {"/criteria/divergence", "--divergence"},
    {"/monitor/every", "--monitor"},
    {"/preconditioner/max_block_size", "--block-size"},
    {"/preconditioner/algorithm", "--algorithm"}};

/// The solver factory of `description`; a BadInput about a field that a flag given set names that flag.
std::unique_ptr<solver::SolverFactory<double>> create_solver_factory(const nlohmann::json& description,
                                                                    const Settings& settings,
                                                                    std::shared_ptr<const Executor> exec)
{
    try {
        return config::create_solver_factory<double>(description, std::move(exec));
    } catch (BadInput& error) {
        // A flag not given set nothing: its field, if any, came from the --config file, which is then named.
        std::vector<std::pair<std::string, std::string>> given;
        std::copy_if(flag_of_field.begin(), flag_of_field.end(), std::back_inserter(given),
                     [&](const auto& field_and_flag) {
                         return !first_given(settings, {field_and_flag.second}).empty();
                     });
        if (!examples::name_the_flag_of_its_field(error, given) && !settings.config_file.empty()) {
            error.add_context(settings.config_file + ": ");
        }
        throw;
    }
}

}  // namespace

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::string{argv[i]} == "--help" || std::string{argv[i]} == "-h") {
            std::cout << usage;
            return 0;
        }
    }
    try {
        const auto settings = parse_arguments(argc, argv);
        auto exec = make_executor(settings.executor);
        std::string problem_name;
        const auto data = load_problem(settings, problem_name);
        const auto n = data.size.rows;
        auto a = share(matrix::Csr<double>::create(exec, data));
        const auto kind = settings.rhs == "uniform" ? generate::RhsKind::uniform : generate::RhsKind::ones;
        const auto rhs = generate::right_hand_side<double>(n, kind, 42);
        auto b = Vector::create(exec, dim2{n, 1}, array<double>{exec, rhs.begin(), rhs.end()}, 1);
        auto x = Vector::create(exec, dim2{n, 1});
        x->fill(0.0);

        const auto description = solver_description(settings);
        auto logger = log::Convergence::create(false);
        auto solver = create_solver_factory(description, settings, exec)->generate(a);
        solver->add_logger(logger);
        solver->apply(b, x);

        // ||b - Ax|| / ||b|| recomputed with the matrix, independently of the solver's bookkeeping.
        auto residual = b->clone_dense(exec);
        a->apply(-1.0, x, 1.0, residual);
        // an empty system has ||b|| = 0 and nothing left to solve
        const double b_norm = b->compute_norm2()[0];
        const double residual_norm = residual->compute_norm2()[0];
        const double relative_residual = b_norm > 0 ? residual_norm / b_norm : residual_norm;
        const auto& status = solver->get_status();

        std::printf("problem            %s (%zu rows, %zu nonzeros)\n", problem_name.c_str(), n,
                    data.entries.size());
        std::printf("executor           %s\n", exec->get_name().c_str());
        std::printf("solver             %s\n", description.dump().c_str());
        const auto fallbacks = log::describe_fallbacks(logger->get_preconditioner_report());
        if (!fallbacks.empty()) {
            std::printf("preconditioner     %s\n", fallbacks.c_str());
        }
        std::printf("stop reason        %s: %s\n", stop::to_string(status.reason), status.message.c_str());
        std::printf("iterations         %zu\n", status.iterations);
        std::printf("||b - Ax|| / ||b|| %.3e\n", relative_residual);
        std::printf("generate time      %.6f s\n", logger->get_generate_time());
        std::printf("solve time         %.6f s (%.3e s per iteration)\n", logger->get_solve_time(),
                    status.iterations > 0 ? logger->get_solve_time() / status.iterations : 0.0);
        return status.converged() ? 0 : 1;
    } catch (const std::exception& error) {
        std::cerr << "solve: " << error.what() << "\n";
        return 2;
    }
}
