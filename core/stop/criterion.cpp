// Stopping criteria: construction with validation, combination by "or", and their description.
#include "larch/stop/criterion.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/base/number_text.hpp"
#include "larch/base/exception.hpp"

namespace larch {
namespace stop {

const char* to_string(Reason reason)
{
    switch (reason) {
    case Reason::none:
        return "none";
    case Reason::converged:
        return "converged";
    case Reason::max_iterations:
        return "max_iterations";
    case Reason::time_limit:
        return "time_limit";
    case Reason::breakdown:
        return "breakdown";
    case Reason::non_finite:
        return "non_finite";
    case Reason::residual_gap:
        return "residual_gap";
    case Reason::divergence:
        return "divergence";
    case Reason::stagnation:
        return "stagnation";
    }
    return "unknown";
}

namespace {

double checked_nonnegative(const char* name, double value, bool allow_infinity = false)
{
    if (std::isnan(value) || value < 0 || (std::isinf(value) && !allow_infinity)) {
        LARCH_THROW(BadInput, std::string{"stop::"} + name + ": expected a finite value >= 0, got " +
                                  detail::number_text(value));
    }
    return value;
}

}  // namespace

Criterion max_iterations(size_type count)
{
    // kept as an integer: a count near 2^64 does not survive a trip through a double
    return {Criterion::Kind::max_iterations, 0.0, count};
}

Criterion relative_residual(double tolerance)
{
    return {Criterion::Kind::relative_residual, checked_nonnegative("relative_residual", tolerance)};
}

Criterion initial_residual(double tolerance)
{
    return {Criterion::Kind::initial_residual, checked_nonnegative("initial_residual", tolerance)};
}

Criterion absolute_residual(double tolerance)
{
    return {Criterion::Kind::absolute_residual, checked_nonnegative("absolute_residual", tolerance)};
}

Criterion time_limit(double seconds)
{
    return {Criterion::Kind::time_limit, checked_nonnegative("time_limit", seconds, true)};
}

Criterion divergence(double factor, size_type iterations)
{
    if (!(factor >= 1) || std::isinf(factor)) {
        LARCH_THROW(BadInput, "stop::divergence: expected a finite factor >= 1, got " +
                                  detail::number_text(factor));
    }
    if (iterations == 0) {
        LARCH_THROW(BadInput, std::string{"stop::divergence: expected at least 1 iteration above the factor, got 0"});
    }
    return {Criterion::Kind::divergence, factor, iterations};
}

Criterion stagnation(size_type window, double relative_decrease)
{
    if (window == 0) {
        LARCH_THROW(BadInput, std::string{"stop::stagnation: expected a window of at least 1 iteration, got 0"});
    }
    if (!(relative_decrease >= 0 && relative_decrease < 1)) {
        LARCH_THROW(BadInput, "stop::stagnation: expected a relative decrease in [0, 1), got " +
                                  detail::number_text(relative_decrease));
    }
    return {Criterion::Kind::stagnation, relative_decrease, window};
}

Criteria::Criteria(const std::vector<Criterion>& criteria)
{
    for (const auto& criterion : criteria) {
        add(criterion);
    }
}

void Criteria::add(const Criterion& criterion)
{
    using Kind = Criterion::Kind;
    switch (criterion.kind) {
    case Kind::max_iterations:
        max_iterations_ = std::min(max_iterations_, criterion.iterations);
        break;
    case Kind::time_limit:
        time_limit_ = std::min(time_limit_, checked_nonnegative("time_limit", criterion.value, true));
        break;
    case Kind::relative_residual:
        relative_ = std::max(relative_, checked_nonnegative("relative_residual", criterion.value));
        break;
    case Kind::initial_residual:
        initial_ = std::max(initial_, checked_nonnegative("initial_residual", criterion.value));
        break;
    case Kind::absolute_residual:
        absolute_ = std::max(absolute_, checked_nonnegative("absolute_residual", criterion.value));
        break;
    case Kind::divergence:
        divergence_.push_back(divergence(criterion.value, criterion.iterations));
        break;
    case Kind::stagnation:
        stagnation_.push_back(stagnation(criterion.iterations, criterion.value));
        break;
    }
}

bool Criteria::has_residual_criterion() const noexcept
{
    return relative_ >= 0 || initial_ >= 0 || absolute_ >= 0;
}

bool Criteria::is_bounded() const noexcept
{
    return max_iterations_ != std::numeric_limits<size_type>::max() || std::isfinite(time_limit_);
}

double Criteria::get_threshold(double rhs_norm, double initial_residual_norm, double absolute_factor) const noexcept
{
    double threshold = -1;
    if (relative_ >= 0) {
        threshold = std::max(threshold, relative_ * rhs_norm);
    }
    if (initial_ >= 0) {
        threshold = std::max(threshold, initial_ * initial_residual_norm);
    }
    if (absolute_ >= 0) {
        threshold = std::max(threshold, absolute_ * absolute_factor);
    }
    return threshold;
}

std::string Criteria::describe() const
{
    std::ostringstream text;
    const char* separator = "";
    auto add_term = [&](const char* name, double value) {
        text << separator << name << " " << value;
        separator = " or ";
    };
    if (max_iterations_ != std::numeric_limits<size_type>::max()) {
        text << "max_iterations " << max_iterations_;
        separator = " or ";
    }
    if (relative_ >= 0) {
        add_term("relative_residual", relative_);
    }
    if (initial_ >= 0) {
        add_term("initial_residual", initial_);
    }
    if (absolute_ >= 0) {
        add_term("absolute_residual", absolute_);
    }
    if (std::isfinite(time_limit_)) {
        add_term("time_limit", time_limit_);
    }
    for (const auto& growth : divergence_) {
        text << separator << "divergence " << growth.value << " " << growth.iterations;
        separator = " or ";
    }
    for (const auto& window : stagnation_) {
        text << separator << "stagnation " << window.iterations << " " << window.value;
        separator = " or ";
    }
    return text.str().empty() ? std::string{"(none)"} : text.str();
}

ProgressTracker::ProgressTracker(const Criteria& criteria, double initial_residual_norm)
{
    for (const auto& criterion : criteria.get_divergence()) {
        growths_.push_back({criterion.iterations, criterion.value * initial_residual_norm});
    }
    for (const auto& criterion : criteria.get_stagnation()) {
        windows_.push_back({criterion.iterations, 1 - criterion.value, initial_residual_norm});
    }
}

Reason ProgressTracker::record(double residual_norm)
{
    auto reason = Reason::none;
    for (auto& growth : growths_) {
        growth.above = residual_norm > growth.limit ? growth.above + 1 : 0;
        if (growth.above >= growth.length) {
            reason = Reason::divergence;
        }
    }
    for (auto& window : windows_) {
        if (residual_norm < window.keep_fraction * window.best) {
            window.best = residual_norm;
            window.quiet = 0;
        } else if (++window.quiet >= window.length && reason == Reason::none) {
            reason = Reason::stagnation;
        }
    }
    return reason;
}

}  // namespace stop
}  // namespace larch
