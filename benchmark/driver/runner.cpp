// Planning (defaults, list expansion, validation before anything runs) and running of benchmark cases.
#include "benchmark/driver/runner.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <sstream>
#include <stdexcept>

#include "benchmark/driver/report.hpp"
#include "benchmark/driver/statistics.hpp"
#include "core/config/json_reader.hpp"

namespace larch {
namespace benchmark {
namespace {

const std::vector<std::string> common_fields{"operation", "executor", "precision",
                                             "repetitions", "warmup", "name"};
const std::vector<std::string> common_list_fields{"executor", "precision"};
const std::vector<std::string> top_level_fields{"description", "defaults", "copy_bytes",
                                                "cases"};
constexpr long long default_copy_bytes = 256LL << 20;

/// Replaces every list-valued field named in `list_fields` by each of its values in turn.
std::vector<json> expand_lists(const json& spec, const std::string& path,
                               const std::vector<std::string>& list_fields)
{
    std::vector<json> expanded{spec};
    for (const auto& key : list_fields) {
        if (!spec.contains(key) || !spec.at(key).is_array()) {
            continue;
        }
        if (spec.at(key).empty()) {
            throw ConfigError(path + "." + key + ": an empty list leaves nothing to run");
        }
        std::vector<json> next;
        for (const auto& partial : expanded) {
            for (const auto& value : spec.at(key)) {
                next.push_back(partial);
                next.back()[key] = value;
            }
        }
        expanded = std::move(next);
    }
    return expanded;
}

/// Throws ConfigError naming the first field of the `merged` case (its defaults updated by the `given` fields) that
/// its operation does not read; a field the case took from "defaults" is blamed on config.defaults, not the case.
void check_case_fields(const Fields& given, const Fields& merged, const std::vector<std::string>& known,
                       const std::string& operation_name)
{
    for (const auto& item : merged.get_json().items()) {
        if (std::find(known.begin(), known.end(), item.key()) != known.end() || given.has(item.key())) {
            continue;
        }
        throw ConfigError("config.defaults: field '" + item.key() + "' does not apply to " + given.get_path() +
                          " (operation '" + operation_name + "', known fields: " + join(known) + ")");
    }
    given.check_known(known);
}

/// Rethrows `error`, about the case whose own fields are `given`, adding where the field it names came from when the
/// case took it from "defaults": "cases[0].format: ..." would send the reader to a case that has no such field.
[[noreturn]] void throw_naming_defaults(const ConfigError& error, const Fields& given, const json& defaults)
{
    const std::string message = error.what();
    for (const auto& item : defaults.items()) {
        const auto field = given.get_path() + "." + item.key();
        const bool names_field = message.rfind(field, 0) == 0 && message.size() > field.size() &&
                                 (message[field.size()] == ':' || message[field.size()] == '.');
        if (names_field && !given.has(item.key())) {
            throw ConfigError(message + " (" + given.get_path() + " takes '" + item.key() +
                              "' from config.defaults)");
        }
    }
    throw error;
}

const std::string executor_names = "reference, omp, cuda, cuda:N, hip, hip:N or best";

/// Whether `name` is one of executor_names. A backend missing from this build is no reason to reject its name:
/// its cases are skipped when they come to run.
bool is_executor_name_or_best(const std::string& name) { return name == "best" || larch::is_executor_name(name); }

PlannedCase validate_case(json spec, const std::string& path, const OperationInfo& operation)
{
    Fields fields{std::move(spec), path};
    auto executor = fields.get_string("executor", "best");
    if (!is_executor_name_or_best(executor)) {
        fields.fail("executor", "must be one of " + executor_names + ", not \"" + executor + "\"");
    }
    if (executor == "best") {
        executor = best_available_executor_name();
    }
    const auto precision = fields.get_string("precision", "double");
    if (precision != "float" && precision != "double") {
        fields.fail("precision", "must be \"float\" or \"double\", not \"" + precision + "\"");
    }
    const auto repetitions = static_cast<int>(fields.get_integer("repetitions", 10, 1, 1000000));
    const auto warmup = static_cast<int>(fields.get_integer("warmup", 2, 0, 1000000));
    fields.get_string("name", "");
    if (operation.validate) {
        operation.validate(fields);
    }
    return PlannedCase{std::move(fields), &operation, executor, precision, repetitions, warmup};
}

/// An executor, its timer and its copy bandwidth, created on first use; `unavailable` says why not.
struct ExecutorState {
    std::shared_ptr<const Executor> exec;
    std::unique_ptr<Timer> timer;
    std::string description;
    double copy_bandwidth = 0.0;
    std::string unavailable;
};

std::string out_of_memory_for_copy(const std::string& executor, long long copy_bytes, const std::string& reason)
{
    return "config.copy_bytes: the copy that measures the bandwidth of " + executor + " could not allocate its " +
           std::to_string(copy_bytes) + "-byte source and destination (" + reason + "); make copy_bytes smaller";
}

ExecutorState open_executor(const std::string& name, long long copy_bytes)
{
    ExecutorState state;
    try {
        state.exec = make_executor(name);
    } catch (const BackendNotBuilt& error) {
        state.unavailable = error.what();
        return state;
    } catch (const DeviceNotFound& error) {
        state.unavailable = error.what();
        return state;
    }
    state.timer = create_timer(state.exec);
    state.description = describe_executor(state.exec);
    try {
        state.copy_bandwidth = measure_copy_bandwidth(state.exec, copy_bytes, 5, *state.timer);
    } catch (const std::bad_alloc&) {
        throw std::runtime_error(out_of_memory_for_copy(name, copy_bytes, "std::bad_alloc on the host"));
    } catch (const AllocationError& error) {
        throw std::runtime_error(out_of_memory_for_copy(name, copy_bytes, error.what()));
    }
    std::cout << "executor " << name << ": " << state.description << ", copy bandwidth "
              << format_number(state.copy_bandwidth, 4) << " GB/s (" << copy_bytes
              << " bytes copied)" << std::endl;
    return state;
}

json rates(const Measurement& measurement, double bytes, const CaseResult& result,
           double copy_bandwidth)
{
    const auto summary = summarize(measurement.seconds);
    const double gbs = bytes / summary.median / 1e9;
    return json{{"name", measurement.name},
                {"time_s", {{"median", summary.median}, {"min", summary.min}, {"max", summary.max}}},
                {"gflops", result.flops / summary.median / 1e9},
                {"gbs", gbs},
                {"copy_bandwidth_fraction", gbs / copy_bandwidth},
                {"error", measurement.error}};
}

/// The JSON record of a case that ran; throws std::runtime_error if a result is wrong.
json record_result(const CaseResult& result, double copy_bandwidth)
{
    json record = result.details;
    record["label"] = result.label;
    record["flops"] = result.flops;
    record["bytes"] = result.bytes;
    record["tolerance"] = result.tolerance;
    for (const auto* measurement : {&result.ours, result.vendor ? &*result.vendor : nullptr}) {
        if (measurement && !(measurement->error <= result.tolerance)) {
            throw std::runtime_error(measurement->name + " result is wrong: " + result.error_measure + " " +
                                     format_number(measurement->error, 3) + " exceeds the tolerance " +
                                     format_number(result.tolerance, 3) +
                                     (result.failure_reason.empty() ? "" : "; " + result.failure_reason));
        }
    }
    record["larch"] = rates(result.ours, result.bytes, result, copy_bandwidth);
    if (result.vendor) {
        record["vendor"] = rates(*result.vendor, result.vendor_bytes.value_or(result.bytes), result,
                                 copy_bandwidth);
        if (result.vendor_bytes) {
            record["vendor"]["bytes"] = *result.vendor_bytes;
        }
        record["larch_over_vendor"] = summarize(result.vendor->seconds).median /
                                      summarize(result.ours.seconds).median;
    }
    return record;
}

/// The configuration file parsed with the library's strict reader: ConfigError naming the file and the JSON
/// path for malformed JSON or a key given twice in one object (nlohmann::json would keep the last).
json read_config(const std::string& path)
{
    // An ifstream opens a directory without complaint and then reads nothing: "unexpected end of input" would
    // blame the JSON.
    if (std::filesystem::is_directory(path)) {
        throw ConfigError("the configuration file '" + path + "' is a directory, not a JSON file");
    }
    std::ifstream file{path};
    if (!file) {
        throw ConfigError("cannot open the configuration file '" + path + "'");
    }
    std::ostringstream text;
    text << file.rdbuf();
    return config::detail::parse_rejecting_duplicate_keys(
        text.str(), [&path](const std::string& json_path, const std::string& problem) {
            throw ConfigError(path + ": " + json_path + ": " + problem);
        });
}

/// Throws ConfigError unless a file can be written at `path` and it is not the configuration file at `config_path`
/// (the results would replace the configuration); leaves an existing file as it was and creates none, so that a
/// run that stops early does not leave an empty results file behind.
void check_writable(const std::string& path, const std::string& config_path)
{
    std::error_code error;
    const bool existed = std::filesystem::exists(path, error);
    if (existed && std::filesystem::equivalent(path, config_path, error)) {
        throw ConfigError("--output: '" + path + "' is the configuration file " + config_path +
                          "; the results would overwrite it");
    }
    if (!std::ofstream{path, std::ios::app}) {
        throw ConfigError("cannot write the results file '" + path + "'");
    }
    if (!existed) {
        std::filesystem::remove(path, error);
    }
}

std::string current_time()
{
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return text;
}

}  // namespace

std::vector<PlannedCase> plan_cases(const json& config, const std::string& executor_override)
{
    if (!executor_override.empty() && !is_executor_name_or_best(executor_override)) {
        throw ConfigError("--executor: must be one of " + executor_names + ", not \"" + executor_override +
                          "\"");
    }
    const Fields root{config, "config"};
    root.check_known(top_level_fields);
    root.get_string("description", "");
    const auto defaults = root.has("defaults") ? root.get_object("defaults").get_json() : json::object();
    if (!root.has("cases")) {
        throw ConfigError("config: the required field 'cases' (a list of cases) is missing");
    }
    if (!config.at("cases").is_array()) {
        root.fail("cases", "must be a list of cases, not " + describe_type(config.at("cases")));
    }
    std::vector<PlannedCase> planned;
    for (size_type i = 0; i < config.at("cases").size(); ++i) {
        const auto path = "cases[" + std::to_string(i) + "]";
        const Fields given{config.at("cases").at(i), path};
        json spec = defaults;
        spec.update(given.get_json());
        if (!executor_override.empty()) {
            spec["executor"] = executor_override;
        }
        const Fields merged{spec, path};
        const auto operation_name = merged.get_string("operation");
        const OperationInfo* found = nullptr;
        try {
            found = &find_operation(operation_name);
        } catch (const ConfigError& error) {
            merged.fail("operation", error.what());
        }
        const auto& operation = *found;
        auto known = common_fields;
        known.insert(known.end(), operation.fields.begin(), operation.fields.end());
        check_case_fields(given, merged, known, operation_name);
        auto list_fields = common_list_fields;
        list_fields.insert(list_fields.end(), operation.list_fields.begin(),
                           operation.list_fields.end());
        try {
            for (auto& single : expand_lists(spec, path, list_fields)) {
                planned.push_back(validate_case(std::move(single), path, operation));
            }
        } catch (const ConfigError& error) {
            throw_naming_defaults(error, given, defaults);
        }
    }
    if (planned.empty()) {
        throw ConfigError("config.cases: the configuration lists no case");
    }
    return planned;
}

int run_benchmark(const Options& options)
{
    const auto config = read_config(options.config_path);
    const auto cases = plan_cases(config, options.executor_override);
    const auto copy_bytes = Fields{config, "config"}.get_integer("copy_bytes", default_copy_bytes,
                                                                  1024, 1LL << 40);
    if (!options.output_path.empty()) {
        check_writable(options.output_path, options.config_path);
    }
    std::cout << "larch_benchmark: " << cases.size() << " case(s) from " << options.config_path
              << ", matrices from " << options.matrix_dir << std::endl;

    std::map<std::string, ExecutorState> executors;
    json records = json::array();
    int num_failed = 0;
    size_type num_skipped = 0;
    for (size_type i = 0; i < cases.size(); ++i) {
        const auto& planned = cases[i];
        auto found = executors.find(planned.executor);
        if (found == executors.end()) {
            found = executors.emplace(planned.executor, open_executor(planned.executor, copy_bytes))
                        .first;
        }
        auto& state = found->second;
        json record{{"case", i},
                    {"operation", planned.operation->name},
                    {"executor", planned.executor},
                    {"precision", planned.precision},
                    {"repetitions", planned.repetitions},
                    {"warmup", planned.warmup},
                    {"config", planned.fields.get_json()}};
        if (!state.unavailable.empty()) {
            record["status"] = "skipped";
            record["message"] = state.unavailable;
        } else {
            try {
                const CaseContext context{planned.fields,      state.exec,
                                          *state.timer,        planned.precision,
                                          options.matrix_dir,  planned.repetitions,
                                          planned.warmup};
                record.update(record_result(planned.operation->run(context), state.copy_bandwidth));
                record["status"] = "ok";
            } catch (const CaseSkipped& error) {
                record["status"] = "skipped";
                record["message"] = error.what();
            } catch (const std::bad_alloc&) {
                // The bare "std::bad_alloc" would not say that the case's sizes are what to change.
                record["status"] = "failed";
                record["message"] = "out of host memory (std::bad_alloc): the case is too large for this machine";
                ++num_failed;
            } catch (const std::exception& error) {
                record["status"] = "failed";
                record["message"] = error.what();
                ++num_failed;
            }
        }
        if (record["status"] == "skipped") {
            ++num_skipped;
        }
        print_progress(i, cases.size(), record);
        records.push_back(std::move(record));
    }

    json executor_records = json::object();
    for (const auto& entry : executors) {
        executor_records[entry.first] = entry.second.unavailable.empty()
                                            ? json{{"description", entry.second.description},
                                                   {"copy_bandwidth_gbs", entry.second.copy_bandwidth},
                                                   {"copy_bytes", copy_bytes}}
                                            : json{{"unavailable", entry.second.unavailable}};
    }
    const json results{{"config_file", options.config_path},
                       {"description", config.value("description", "")},
                       {"date", current_time()},
                       {"matrix_dir", options.matrix_dir},
                       {"executors", executor_records},
                       {"cases", records}};
    print_table(records);
    if (!options.output_path.empty()) {
        std::ofstream output{options.output_path};
        if (!output) {
            throw ConfigError("cannot write the results file '" + options.output_path + "'");
        }
        output << results.dump(2) << '\n';
        std::cout << "results written to " << options.output_path << std::endl;
    }
    std::cout << num_failed << " of " << cases.size() << " case(s) failed";
    if (num_skipped > 0) {
        std::cout << ", " << num_skipped << " skipped";
    }
    std::cout << std::endl;
    if (num_failed > 0) {
        return 1;
    }
    // A run that measured nothing (every executor it names missing) is not a success: a script that runs a
    // GPU configuration on a machine without the GPU would otherwise see exit 0.
    if (!cases.empty() && num_skipped == cases.size()) {
        std::cerr << "larch_benchmark: none of the " << cases.size() << " case(s) ran (all skipped)" << std::endl;
        return 3;
    }
    return 0;
}

}  // namespace benchmark
}  // namespace larch
