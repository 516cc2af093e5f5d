// log::Stream: progress output during a solve, one line every k iterations (like PETSc's -ksp_monitor).
#pragma once

#include <memory>
#include <mutex>
#include <ostream>

#include "larch/log/convergence.hpp"

namespace larch {
namespace log {

/**
 * Prints the iteration and the solver's own residual norm of each column every `every` iterations (and the
 * initial residual), then one line with the column's final status and true residual:
 *
 *     column 0 iteration 0: residual 3.162e+01
 *     column 0 iteration 10: residual 4.217e-02
 *     column 0 converged after 27 iterations: true residual 2.1e-08 (the true residual meets the tolerance)
 *
 * Attach with a solver factory's `with_logger(log::Stream::create(std::cout, 10))`, from JSON with
 * `"monitor": {"every": 10}`, or with `examples/solve --monitor 10`. Lines are written whole under a lock.
 * The stream must outlive the logger. Throws BadInput for every = 0.
 */
class Stream : public Logger {
public:
    static std::shared_ptr<Stream> create(std::ostream& stream, size_type every = 1);

    void on_iteration(size_type column, size_type iteration, double residual_norm) override;
    void on_column_end(size_type column, const stop::Status& status, double seconds) override;
    /// One line when the preconditioner fell back on singular blocks or met zero diagonal entries.
    void on_preconditioner(const PreconditionerReport& report) override;

    size_type get_every() const noexcept { return every_; }

private:
    Stream(std::ostream& stream, size_type every) : stream_{stream}, every_{every} {}

    std::ostream& stream_;
    size_type every_;
    std::mutex mutex_;
};

}  // namespace log
}  // namespace larch
