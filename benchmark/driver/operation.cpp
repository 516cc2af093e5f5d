// The operation registry and the timing loop shared by every operation.
#include "benchmark/driver/operation.hpp"

#include <chrono>
#include <map>

namespace larch {
namespace benchmark {
namespace {

std::map<std::string, OperationInfo>& registry()
{
    // A function-local static, so registrations from other files' static initializers find it built.
    static std::map<std::string, OperationInfo> operations;
    return operations;
}

}  // namespace

CaseContext::CaseContext(const Fields& fields, std::shared_ptr<const Executor> exec, Timer& timer,
                         std::string precision, std::string matrix_dir, int repetitions, int warmup)
    : fields_{fields},
      exec_{std::move(exec)},
      reference_{make_executor("reference")},
      timer_{timer},
      precision_{std::move(precision)},
      matrix_dir_{std::move(matrix_dir)},
      repetitions_{repetitions},
      warmup_{warmup}
{}

std::vector<double> CaseContext::time(const std::function<void()>& work) const
{
    // At least minimum_warmup_seconds of warm-up runs (when any are asked for): a GPU that idled through
    // the case's host-side setup runs at a lower clock for a while, and three runs of a 0.6 ms kernel
    // were not enough (H100: a batched SpMV measured 1.86x slower than the identical launch measured in
    // the next case).
    constexpr double minimum_warmup_seconds = 0.05;
    const auto warmup_start = std::chrono::steady_clock::now();
    const auto warmed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - warmup_start).count() >=
               minimum_warmup_seconds;
    };
    for (int i = 0; i < warmup_ || (warmup_ > 0 && !warmed()); ++i) {
        work();
        exec_->synchronize();
    }
    std::vector<double> seconds;
    seconds.reserve(repetitions_);
    for (int i = 0; i < repetitions_; ++i) {
        timer_.start();
        work();
        seconds.push_back(timer_.stop());
    }
    return seconds;
}

bool register_operation(OperationInfo info)
{
    auto name = info.name;
    if (!registry().emplace(name, std::move(info)).second) {
        throw std::logic_error("benchmark operation '" + name + "' is registered twice");
    }
    return true;
}

const OperationInfo& find_operation(const std::string& name)
{
    const auto found = registry().find(name);
    if (found == registry().end()) {
        throw ConfigError("unknown operation '" + name + "' (known operations: " +
                          join(operation_names()) + ")");
    }
    return found->second;
}

std::vector<std::string> operation_names()
{
    std::vector<std::string> names;
    for (const auto& entry : registry()) {
        names.push_back(entry.first);
    }
    return names;
}

}  // namespace benchmark
}  // namespace larch
