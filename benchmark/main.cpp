// larch_benchmark: runs the cases of a JSON configuration and writes JSON results (see README.md).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "benchmark/driver/runner.hpp"

namespace {

const char* const usage =
    "usage: larch_benchmark CONFIG.json [--output RESULTS.json] [--matrix-dir DIR]\n"
    "                       [--executor NAME] [--list-operations]\n"
    "  --output      where the JSON results go (default: none, only the table is printed)\n"
    "  --matrix-dir  root of the matrix files named in the configuration (default: $LARCH_MATRIX_DIR,\n"
    "                else ../shared/matrices next to the larch sources; a folder named here or in\n"
    "                $LARCH_MATRIX_DIR must exist)\n"
    "  --executor    run every case on this executor (reference, omp, cuda, cuda:N, hip, hip:N, best)\n"
    "exit code: 0 if every case that ran was correct, 1 if one failed, 2 for a bad configuration or command\n"
    "line (checked before anything runs), 3 if every case was skipped (its executor is not available)\n";

}  // namespace

int main(int argc, char** argv)
{
    using namespace larch::benchmark;
    Options options;
    const char* matrix_dir_from_environment = std::getenv("LARCH_MATRIX_DIR");
    options.matrix_dir =
        matrix_dir_from_environment ? matrix_dir_from_environment : LARCH_BENCHMARK_DEFAULT_MATRIX_DIR;
    std::vector<std::string> flags_given;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--output" || arg == "--matrix-dir" || arg == "--executor") {
            if (!has_value) {
                std::cerr << "larch_benchmark: flag " << arg << " needs a value\n" << usage;
                return 2;
            }
            // A second value would silently replace the first; an empty one (an unset shell variable) would
            // silently mean the default.
            if (std::find(flags_given.begin(), flags_given.end(), arg) != flags_given.end()) {
                std::cerr << "larch_benchmark: flag " << arg << " is given twice; give it once\n";
                return 2;
            }
            if (std::string{argv[i + 1]}.empty()) {
                std::cerr << "larch_benchmark: flag " << arg << " has an empty value\n";
                return 2;
            }
            flags_given.push_back(arg);
        }
        if (arg == "--output") {
            options.output_path = argv[++i];
        } else if (arg == "--matrix-dir") {
            options.matrix_dir = argv[++i];
        } else if (arg == "--executor") {
            options.executor_override = argv[++i];
        } else if (arg == "--list-operations") {
            for (const auto& name : operation_names()) {
                std::cout << name << ": " << find_operation(name).description << '\n';
            }
            return 0;
        } else if (arg == "--help" || arg == "-h") {
            std::cout << usage;
            return 0;
        } else if (arg.rfind("--", 0) == 0 || !options.config_path.empty()) {
            std::cerr << "larch_benchmark: unexpected argument '" << arg << "'\n" << usage;
            return 2;
        } else {
            options.config_path = arg;
        }
    }
    if (options.config_path.empty()) {
        std::cerr << usage;
        return 2;
    }
    // Every matrix file of a missing folder would be skipped as "not found", one case at a time. The folder the
    // user named is checked, whether by the flag or by the environment; the default one may be absent, since a
    // configuration of generated matrices needs none.
    const bool matrix_dir_given =
        std::find(flags_given.begin(), flags_given.end(), "--matrix-dir") != flags_given.end();
    const char* const matrix_dir_source = matrix_dir_given              ? "--matrix-dir"
                                          : matrix_dir_from_environment ? "LARCH_MATRIX_DIR (from the environment)"
                                                                        : nullptr;
    if (matrix_dir_source && !std::filesystem::is_directory(options.matrix_dir)) {
        std::cerr << "larch_benchmark: " << matrix_dir_source << " '" << options.matrix_dir
                  << "' is not a directory\n";
        return 2;
    }
    try {
        return run_benchmark(options);
    } catch (const ConfigError& error) {
        std::cerr << "larch_benchmark: configuration error: " << error.what() << std::endl;
        return 2;
    } catch (const std::exception& error) {
        std::cerr << "larch_benchmark: " << error.what() << std::endl;
        return 1;
    }
}
