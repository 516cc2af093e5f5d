// Loggers of the batched solvers: told about every finished batched solve, and able to ask for the residual
// history of chosen items (recorded by the solve kernels themselves, so no host synchronization is needed).
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "larch/batch/solver/solve_result.hpp"

namespace larch {
namespace batch {

/// Base of the batched solvers' loggers.
class BatchLogger {
public:
    virtual ~BatchLogger() = default;
    /// Called once at the end of every apply of a solver the logger is attached to.
    virtual void on_batch_solve(const BatchSolveResult& result) = 0;
    /// Items whose residual history the solve should record (costs max_iterations + 1 values each).
    virtual std::vector<size_type> get_history_items() const { return {}; }
};

/**
 * Keeps the result of the last solve (per-item status, iterations, true residual) and records the
 * residual histories of the items given at creation. Safe to share between solvers used from several
 * threads (the last solve to finish wins).
 *
 *     auto logger = batch::BatchConvergence::create({0, 17});
 *     solver->add_logger(logger);   // or .with_logger(logger) on the factory
 *     solver->apply(*b, *x);
 *     logger->get_result().get_residual_history(17);
 */
class BatchConvergence : public BatchLogger {
public:
    static std::shared_ptr<BatchConvergence> create(std::vector<size_type> history_items = {})
    {
        return std::shared_ptr<BatchConvergence>(new BatchConvergence(std::move(history_items)));
    }

    void on_batch_solve(const BatchSolveResult& result) override
    {
        std::lock_guard<std::mutex> lock{mutex_};
        result_ = result;
        ++num_solves_;
    }
    std::vector<size_type> get_history_items() const override { return history_items_; }

    /// The result of the last solve (empty before the first).
    BatchSolveResult get_result() const
    {
        std::lock_guard<std::mutex> lock{mutex_};
        return result_;
    }
    /// How many solves were logged.
    size_type get_num_solves() const
    {
        std::lock_guard<std::mutex> lock{mutex_};
        return num_solves_;
    }

private:
    explicit BatchConvergence(std::vector<size_type> history_items)
        : history_items_{std::move(history_items)}
    {}

    std::vector<size_type> history_items_;
    mutable std::mutex mutex_;
    BatchSolveResult result_;
    size_type num_solves_ = 0;
};

}  // namespace batch
}  // namespace larch
