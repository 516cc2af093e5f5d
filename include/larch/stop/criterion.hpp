// Stopping criteria of the iterative solvers (combinable: the solver stops at the first one met) and the
// per-column status a solver records: why it stopped, after how many iterations, with which true residual.
#pragma once

#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "larch/base/types.hpp"

namespace larch {
namespace stop {

/// Why a solver stopped on one right-hand side.
enum class Reason {
    none,            ///< not solved yet
    converged,       ///< the TRUE residual ||b - Ax|| met a residual criterion (or b = 0, or x was exact)
    max_iterations,  ///< the iteration limit was reached without convergence
    time_limit,      ///< the time limit was reached without convergence
    breakdown,       ///< a Krylov breakdown (rho, omega, ...) that restarting from the true residual did not cure
    non_finite,      ///< NaN or Inf appeared (in b, x0, A, the preconditioner or the iteration)
    residual_gap,    ///< the recursive residual converged, the true one did not, after every allowed restart
    divergence,      ///< the residual stayed above the divergence factor times the initial residual
    stagnation,      ///< the residual made no relative progress over the stagnation window
};

/// The enum's name, e.g. "converged", "non_finite".
const char* to_string(Reason reason);

/// One stopping criterion; build it with the functions below and pass it to `with_criteria`.
struct Criterion {
    enum class Kind {
        max_iterations,
        relative_residual,
        initial_residual,
        absolute_residual,
        time_limit,
        divergence,
        stagnation
    };
    Kind kind;
    /// The tolerance, time limit or factor; for stagnation the relative decrease that counts as progress.
    double value;
    /// Max_iterations: the limit; divergence: consecutive iterations above the factor that stop;
    /// stagnation: iterations without progress.
    size_type iterations = 0;
};

/// Stop after `count` iterations (an iteration is one application of the system matrix's Krylov step); the
/// largest size_type means no limit.
Criterion max_iterations(size_type count);
/// Converged when ||b - Ax|| <= tolerance * ||b||.
Criterion relative_residual(double tolerance);
/// Converged when ||b - Ax|| <= tolerance * ||b - A x0||.
Criterion initial_residual(double tolerance);
/// Converged when ||b - Ax|| <= tolerance.
Criterion absolute_residual(double tolerance);
/// Stop once a right-hand side has taken `seconds` of wall-clock time.
Criterion time_limit(double seconds);
/**
 * Stop (Reason::divergence) once the iteration's residual norm has exceeded `factor` times the initial
 * residual norm ||b - A x0|| in `iterations` consecutive iterations. A peak does not stop: on the shared
 * matrices BiCGSTAB's residual rose above 1e5 times the initial one for 1-3 iterations on systems it then
 * solved with scalar Jacobi (saylr1, adder_dcop_05, bentpipe2d100), and for 122 iterations (up to 4e6 times
 * the initial one) on sherman2 with block-Jacobi(32), which it then solved; the diverging solves stayed above
 * it for thousands of iterations on their way to 1e148 and NaN. Throws BadInput unless factor >= 1 and
 * finite and iterations >= 1.
 */
Criterion divergence(double factor = 1e5, size_type iterations = 200);
/**
 * Stop (Reason::stagnation) when for `window` iterations in a row the residual norm has not fallen below
 * (1 - relative_decrease) times the smallest residual norm seen before them: the solve has stopped making
 * progress. Several stagnation criteria combine by "or" like every other criterion. Throws BadInput for a
 * window of 0 or relative_decrease outside [0, 1).
 */
Criterion stagnation(size_type window, double relative_decrease = 1e-3);
/// Stop once a right-hand side has taken `duration` of wall-clock time.
template <typename Rep, typename Period>
Criterion time_limit(std::chrono::duration<Rep, Period> duration)
{
    return time_limit(std::chrono::duration<double>(duration).count());
}

/**
 * A set of criteria combined by "or": the solver stops at the first one met. Several residual criteria
 * give the largest of their thresholds; several limits give the smallest; divergence and stagnation
 * criteria are each kept. Throws BadInput for a negative or non-finite tolerance or time.
 */
class Criteria {
public:
    Criteria() = default;
    explicit Criteria(const std::vector<Criterion>& criteria);

    void add(const Criterion& criterion);

    size_type get_max_iterations() const noexcept { return max_iterations_; }
    /// Seconds; infinity when there is no time limit.
    double get_time_limit() const noexcept { return time_limit_; }
    bool has_residual_criterion() const noexcept;
    /// True when an iteration or time limit guarantees termination.
    bool is_bounded() const noexcept;
    /// The residual norm at or below which a right-hand side counts as converged; -1 when there is no
    /// residual criterion (only an exactly zero residual stops then). A solve that runs in a scale of its own
    /// (b multiplied by s) passes its norms in that scale and absolute_factor = s.
    double get_threshold(double rhs_norm, double initial_residual_norm, double absolute_factor = 1) const noexcept;
    /// The divergence criteria (each a factor and a number of consecutive iterations).
    const std::vector<Criterion>& get_divergence() const noexcept { return divergence_; }
    /// The stagnation criteria (each a window and the relative decrease that counts as progress).
    const std::vector<Criterion>& get_stagnation() const noexcept { return stagnation_; }
    /// E.g. "max_iterations 1000 or relative_residual 1e-09".
    std::string describe() const;

private:
    size_type max_iterations_ = std::numeric_limits<size_type>::max();
    double time_limit_ = std::numeric_limits<double>::infinity();
    double relative_ = -1;
    double initial_ = -1;
    double absolute_ = -1;
    std::vector<Criterion> divergence_;
    std::vector<Criterion> stagnation_;
};

/**
 * Tracks one right-hand side's residual norms against the divergence and stagnation criteria: O(1) work
 * and memory per iteration and criterion.
 */
class ProgressTracker {
public:
    ProgressTracker(const Criteria& criteria, double initial_residual_norm);
    /// Records the residual norm of the next iteration; Reason::divergence, Reason::stagnation or none.
    Reason record(double residual_norm);

private:
    struct Growth {
        size_type length;
        double limit;          // factor times the initial residual norm
        size_type above = 0;   // consecutive iterations above the limit
    };
    struct Window {
        size_type length;
        double keep_fraction;  // 1 - relative_decrease
        double best;           // the residual norm the next progress is measured against
        size_type quiet = 0;   // iterations since the last progress
    };
    std::vector<Growth> growths_;
    std::vector<Window> windows_;
};

/// The outcome of a solve on one right-hand side (one column of b).
struct Status {
    Reason reason = Reason::none;
    /// A sentence saying what happened (e.g. which breakdown, which quantity was not finite).
    std::string message;
    size_type iterations = 0;
    /// ||b - Ax|| recomputed from the returned x (not the solver's recursive estimate).
    double residual_norm = 0;
    double rhs_norm = 0;
    double initial_residual_norm = 0;
    /// The threshold the residual norm was compared with (-1: no residual criterion).
    double threshold = -1;
    /// How often the iteration restarted from the true residual (after false convergence or a breakdown).
    size_type residual_replacements = 0;

    bool converged() const noexcept { return reason == Reason::converged; }
};

}  // namespace stop
}  // namespace larch
