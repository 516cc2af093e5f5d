// The interface between the benchmark driver and one benchmarked operation (spmv, batched inversion, a
// solver, ...). An operation lives in ONE file under benchmark/operations/ and registers itself there
// with one call to register_operation(); see benchmark/README.md.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "benchmark/driver/config.hpp"
#include "benchmark/driver/timer.hpp"
#include "larch/base/executor.hpp"

namespace larch {
namespace benchmark {

/// Thrown by an operation for a case that cannot run here (e.g. a matrix file that is not present);
/// the case is reported as skipped with this message, not as failed.
class CaseSkipped : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The repetition times of one implementation ("larch", "cuSPARSE", ...) and its error against the
/// reference executor (the operation's own error measure, compared with CaseResult::tolerance).
struct Measurement {
    std::string name;
    std::vector<double> seconds;
    double error = 0.0;
};

/// What an operation reports for one case; the driver turns it into statistics, rates and the table.
struct CaseResult {
    /// Short text for the progress line and the table, e.g. "csr laplace3d(n=100)".
    std::string label;
    /// Facts written into the case's JSON record (matrix name, size, nonzeros, ...).
    json details = json::object();
    /// Floating-point operations and bytes moved by ONE application (the operation's documented model).
    double flops = 0.0;
    double bytes = 0.0;
    /// The largest error that counts as correct; a larger one fails the case and posts no numbers.
    double tolerance = 0.0;
    /// What the error measures, as the message of a failed case names it.
    std::string error_measure = "the error against the reference executor";
    /// Why a result may be wrong, where the operation knows (a solver that stopped without converging); added
    /// to the message of a failed case.
    std::string failure_reason;
    Measurement ours;
    /// The vendor library's measurement of the same work, where one exists on this executor.
    std::optional<Measurement> vendor;
    /// Bytes the vendor's own format moves for that work, where they differ from `bytes` (its GB/s and
    /// fraction of copy bandwidth are computed from them).
    std::optional<double> vendor_bytes;
};

/// Everything an operation needs to run one (expanded) case.
class CaseContext {
public:
    CaseContext(const Fields& fields, std::shared_ptr<const Executor> exec, Timer& timer,
                std::string precision, std::string matrix_dir, int repetitions, int warmup);

    /// The case's fields; list fields are already expanded to single values.
    const Fields& fields() const { return fields_; }
    const std::shared_ptr<const Executor>& executor() const { return exec_; }
    /// The sequential oracle every result is checked against.
    const std::shared_ptr<const Executor>& reference() const { return reference_; }
    const std::string& precision() const { return precision_; }
    /// Where matrix files named by relative paths are found.
    const std::string& matrix_dir() const { return matrix_dir_; }

    /// Runs `work` warmup times (and on until the warm-up took 50 ms, when warmup > 0), then times it
    /// `repetitions` times with the executor's timer (device events on CUDA, steady_clock around a
    /// synchronize elsewhere).
    std::vector<double> time(const std::function<void()>& work) const;

private:
    const Fields& fields_;
    std::shared_ptr<const Executor> exec_;
    std::shared_ptr<const Executor> reference_;
    Timer& timer_;
    std::string precision_;
    std::string matrix_dir_;
    int repetitions_;
    int warmup_;
};

/// An operation the driver can run: its name, the case fields it reads, and two functions.
struct OperationInfo {
    std::string name;
    std::string description;
    /// Case fields this operation reads in addition to the common ones (operation, executor, precision,
    /// repetitions, warmup, name); any other field is an error.
    std::vector<std::string> fields;
    /// Those of `fields` whose value may be a list: the case then expands into one case per value.
    std::vector<std::string> list_fields;
    /// Checks the operation's fields (types, allowed values) before anything runs; throws ConfigError.
    std::function<void(const Fields&)> validate;
    /// Runs one case; throws anything derived from std::exception on failure.
    std::function<CaseResult(const CaseContext&)> run;
};

/// Adds an operation to the registry; call it once from a namespace-scope initializer of the operation's
/// file (`const bool registered = register_operation({...});`). Returns true.
bool register_operation(OperationInfo info);

/// The operation called `name`; throws ConfigError listing the known operations otherwise.
const OperationInfo& find_operation(const std::string& name);

/// Names of all registered operations, sorted.
std::vector<std::string> operation_names();

/// Calls `function(ValueType{})` with float or double as named by `precision` ("float", "double").
template <typename Function>
auto dispatch_precision(const std::string& precision, Function&& function)
{
    if (precision == "float") {
        return function(float{});
    }
    if (precision != "double") {
        throw ConfigError("precision must be \"float\" or \"double\", not \"" + precision + "\"");
    }
    return function(double{});
}

}  // namespace benchmark
}  // namespace larch
