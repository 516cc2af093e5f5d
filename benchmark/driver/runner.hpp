// The benchmark driver: reads a configuration, expands and validates its cases, runs them, writes the
// JSON results and prints the table.
#pragma once

#include <string>
#include <vector>

#include "benchmark/driver/config.hpp"
#include "benchmark/driver/operation.hpp"

namespace larch {
namespace benchmark {

/// Command-line settings of one run.
struct Options {
    std::string config_path;
    /// Where the JSON results go ("" = do not write).
    std::string output_path;
    /// Root of the relative matrix paths in the configuration.
    std::string matrix_dir;
    /// If set, replaces the executor of every case.
    std::string executor_override;
};

/// One case after defaults were merged and list fields expanded: every field holds a single value.
struct PlannedCase {
    Fields fields;
    const OperationInfo* operation;
    std::string executor;
    std::string precision;
    int repetitions;
    int warmup;
};

/// Expands and validates every case of `config` (throws ConfigError naming the field on any problem).
std::vector<PlannedCase> plan_cases(const json& config, const std::string& executor_override);

/// Runs the configuration; returns 0 if every case that ran was correct, 1 otherwise.
int run_benchmark(const Options& options);

}  // namespace benchmark
}  // namespace larch
