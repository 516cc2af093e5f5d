// ProcessGroup's collective helpers (deterministic sums and norms, agreement on bad input) and the
// per-thread reduction scope; the transport itself is the implementation's (larch::mpi::communicator).
#include "larch/base/process_group.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include "core/base/reduction_completion.hpp"
#include "larch/base/exception.hpp"
#include "larch/base/executor.hpp"

namespace larch {
namespace {

thread_local const ProcessGroup* current_group = nullptr;

/// The kinds of error check_on_every_process carries to the other processes (0: none).
enum error_kind { no_error = 0, dimension_mismatch = 1, bad_input = 2, not_supported = 3, other_error = 4 };

[[noreturn]] void throw_kind(int kind, const std::string& message)
{
    switch (kind) {
    case dimension_mismatch:
        LARCH_THROW(DimensionMismatch, message);
    case bad_input:
        LARCH_THROW(BadInput, message);
    case not_supported:
        LARCH_THROW(NotSupported, message);
    default:
        LARCH_THROW(Error, message);
    }
}

}  // namespace

void ProcessGroup::sum(std::vector<double>& values) const
{
    const auto count = values.size();
    std::vector<double> all(count * static_cast<size_type>(get_num_processes()));
    allgather(values.data(), count, all.data());
    for (size_type i = 0; i < count; ++i) {
        double total = 0;
        for (int p = 0; p < get_num_processes(); ++p) {
            total += all[p * count + i];
        }
        values[i] = total;
    }
}

void ProcessGroup::combine_norms(std::vector<double>& norms) const
{
    const auto count = norms.size();
    std::vector<double> all(count * static_cast<size_type>(get_num_processes()));
    allgather(norms.data(), count, all.data());
    for (size_type i = 0; i < count; ++i) {
        double scale = 0;
        bool nan = false;
        for (int p = 0; p < get_num_processes(); ++p) {
            const auto norm = all[p * count + i];
            nan = nan || std::isnan(norm);
            scale = std::max(scale, norm);
        }
        if (nan || scale == 0 || std::isinf(scale)) {
            norms[i] = nan ? std::nan("") : scale;
            continue;
        }
        double sum_of_squares = 0;
        for (int p = 0; p < get_num_processes(); ++p) {
            const auto ratio = all[p * count + i] / scale;
            sum_of_squares += ratio * ratio;
        }
        norms[i] = scale * std::sqrt(sum_of_squares);
    }
}

void ProcessGroup::check_on_every_process(const std::function<void()>& check) const
{
    double kind = no_error;
    std::string message;
    std::exception_ptr error;
    try {
        check();
    } catch (const DimensionMismatch& e) {
        kind = dimension_mismatch, message = e.get_message(), error = std::current_exception();
    } catch (const BadInput& e) {
        kind = bad_input, message = e.get_message(), error = std::current_exception();
    } catch (const NotSupported& e) {
        kind = not_supported, message = e.get_message(), error = std::current_exception();
    } catch (const Error& e) {
        kind = other_error, message = e.get_message(), error = std::current_exception();
    } catch (const std::exception& e) {
        kind = other_error, message = e.what(), error = std::current_exception();
    }
    std::vector<double> kinds(static_cast<size_type>(get_num_processes()));
    allgather(&kind, 1, kinds.data());
    const auto failed = std::find_if(kinds.begin(), kinds.end(), [](double k) { return k != no_error; });
    if (failed == kinds.end()) {
        return;
    }
    const auto root = static_cast<int>(failed - kinds.begin());
    // Every process takes part in the broadcast before any of them throws.
    broadcast(message, root);
    if (error) {
        std::rethrow_exception(error);
    }
    const auto process = "on process " + std::to_string(root) + " of " + std::to_string(get_num_processes());
    const auto names_process = message.compare(0, process.size(), process) == 0;
    throw_kind(static_cast<int>(*failed), names_process ? message : process + ": " + message);
}

const ProcessGroup* current_reduction_group() noexcept { return current_group; }

ReductionScope::ReductionScope(const ProcessGroup* group) noexcept : previous_{current_group}
{
    current_group = group;
}

ReductionScope::~ReductionScope() { current_group = previous_; }

namespace detail {
namespace {

/// Runs `combine` on the host copy (as double) of `count` values of T on `exec`, when a group is current.
template <typename T, typename Combine>
void complete_on_host(const Executor& exec, T* values, size_type count, Combine combine)
{
    const auto group = current_reduction_group();
    if (!group) {
        return;
    }
    const auto host = exec.get_host();
    std::vector<T> partial(count);
    host->copy_from(exec, count * sizeof(T), values, partial.data());
    std::vector<double> total(partial.begin(), partial.end());
    combine(*group, total);
    std::transform(total.begin(), total.end(), partial.begin(), [](double v) { return static_cast<T>(v); });
    exec.copy_from(*host, count * sizeof(T), partial.data(), values);
}

}  // namespace

template <typename T>
void complete_sums(const Executor& exec, T* values, size_type count)
{
    complete_on_host(exec, values, count, [](const ProcessGroup& group, std::vector<double>& v) { group.sum(v); });
}

template <typename T>
void complete_norms(const Executor& exec, T* values, size_type count)
{
    complete_on_host(exec, values, count,
                     [](const ProcessGroup& group, std::vector<double>& v) { group.combine_norms(v); });
}

#define LARCH_INSTANTIATE_REDUCTION_COMPLETION(T)                           \
    template void complete_sums<T>(const Executor&, T*, size_type);    \
    template void complete_norms<T>(const Executor&, T*, size_type)
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_REDUCTION_COMPLETION);

}  // namespace detail
}  // namespace larch
