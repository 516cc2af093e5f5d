// ProcessGroup: the processes over which the rows of a distributed operator and its vectors are spread, as
// the part of the library that knows no MPI sees them (larch::mpi::communicator implements it), and the
// reduction scope through which the unchanged Krylov solvers complete their dot products and norms over
// such a group.
//
// Why a scope and not a vector type: the solvers create their work vectors as plain matrix::Dense<T> of the
// operator's (local) size and reduce them with Dense's compute_dot / compute_norm2 and two fused kernels
// (the conjugate-gradient step's residual norm, Gram-Schmidt's projections). A solver generated on an
// operator that is spread over a group (a SplitOperator) installs a ReductionScope for the duration of its
// apply; every one of those reductions then adds up this process's partial result with the other
// processes' ones. Operators applied inside the solve (the system matrix, the preconditioner) run with the
// scope lifted, so their own work stays local.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "larch/base/types.hpp"

namespace larch {

class LinOp;

/**
 * A group of processes that reduce together. All members are collective: every process of the group
 * calls them in the same order with the same counts.
 */
class ProcessGroup {
public:
    virtual ~ProcessGroup() = default;

    /// This process's index in the group (0 .. get_num_processes() - 1).
    virtual int get_process() const = 0;
    virtual int get_num_processes() const = 0;
    /// all[p * count + i] = local[i] of process p, for every process p (all has count * processes entries).
    virtual void allgather(const double* local, size_type count, double* all) const = 0;
    /// Process `root`'s text, on every process.
    virtual void broadcast(std::string& text, int root) const = 0;

    /**
     * Replaces values[i] (this process's partial sum) by the sum over the group, added in process order
     * from the gathered partial sums. Why not MPI_Allreduce's sum: its tree (and so its rounding) may
     * depend on the library, the process count and the placement, and may even differ between processes;
     * the solvers' branches (stop, breakdown, restart) must come out the same on every process, so every
     * process adds the same numbers in the same order and gets bitwise the same total.
     */
    void sum(std::vector<double>& values) const;
    /// Replaces norms[i] (this process's 2-norm of its rows) by the 2-norm over the group: the partial
    /// norms are scaled by their largest one before their squares are added (in process order), so that
    /// no square overflows where the norm itself does not.
    void combine_norms(std::vector<double>& norms) const;
    /**
     * Runs `check` (which throws larch::Error for bad input) on every process and agrees on the outcome:
     * when it throws on any process, every process throws, the failing one its own exception and the
     * others one of the same kind naming the process and its message (a message that names its process
     * already, starting "on process p of n", is passed on as it is). So bad input passed on one process
     * only ends the collective operation everywhere instead of leaving the others waiting for it.
     */
    void check_on_every_process(const std::function<void()>& check) const;
};

/**
 * Implemented by operators whose rows are spread over a ProcessGroup (distributed::Matrix). Their size as
 * a LinOp is this process's block (local rows x local rows), so solvers create vectors of local rows;
 * a solver generated on one completes its reductions over get_process_group() and generates its
 * preconditioner on get_local_block() (block-Jacobi on each process's diagonal block).
 */
class SplitOperator {
public:
    virtual ~SplitOperator() = default;
    virtual std::shared_ptr<const ProcessGroup> get_process_group() const = 0;
    /// This process's diagonal block: its rows and the columns it owns, as a local LinOp.
    virtual std::shared_ptr<const LinOp> get_local_block() const = 0;
    /// The global index of this process's first row (row 0 of get_local_block()).
    virtual size_type get_local_begin() const = 0;
};

/// The group the reductions of the calling thread complete over, or null (local reductions).
const ProcessGroup* current_reduction_group() noexcept;

/**
 * Makes the calling thread's reductions complete over `group` (null: local) until the scope ends, then
 * restores the previous group. Scopes nest; each thread has its own.
 */
class ReductionScope {
public:
    explicit ReductionScope(const ProcessGroup* group) noexcept;
    ~ReductionScope();
    ReductionScope(const ReductionScope&) = delete;
    ReductionScope& operator=(const ReductionScope&) = delete;

private:
    const ProcessGroup* previous_;
};

}  // namespace larch
