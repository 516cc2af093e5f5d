// distributed::Vector<T>: a (multi-)vector whose rows are split over the processes of a partition; on each
// process a matrix::Dense<T> of its own rows, on its own executor.
#pragma once

#include <memory>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/distributed/partition.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace distributed {

/**
 * This process's block of rows of a global rows x cols vector: it IS a matrix::Dense<T> of
 * get_partition()->get_local_rows() x cols (so every Dense operation, a solver's apply and a
 * distributed::Matrix's apply take it), and its reductions (compute_dot, compute_norm2) return the values of
 * the whole vector, the same on every process: they are collective. Element-wise operations are local.
 * Reductions throw BadInput on every process for an operand of another partition, and they and
 * gather_global throw DimensionMismatch on every process when the column count differs between processes
 * (checked with one allgather of one number; skipped for the reductions inside a solve over the same
 * communicator, whose apply checked its vectors' column counts already).
 */
template <typename T>
class Vector : public matrix::Dense<T> {
public:
    /// An uninitialized vector with `cols` columns over `partition`, on `exec`.
    static std::unique_ptr<Vector> create(std::shared_ptr<const Executor> exec,
                                          std::shared_ptr<const Partition> partition, size_type cols = 1);
    /**
     * This process's rows of `global`, a global_rows x cols matrix that every process holds (e.g. a
     * right-hand side every process computes). Collective; throws DimensionMismatch on every process when
     * `global` does not have the partition's number of rows on some process, or when its column count
     * differs between processes (one allgather of one number).
     */
    static std::unique_ptr<Vector> create_from_global(std::shared_ptr<const Executor> exec,
                                                      std::shared_ptr<const Partition> partition,
                                                      const matrix::Dense<T>& global);

    const std::shared_ptr<const Partition>& get_partition() const noexcept { return partition_; }

    /// The whole vector (global_rows x cols) on every process, on `exec` (collective: MPI_Allgatherv).
    /// Throws NotSupported on every process for more than 2^31 - 1 bytes (what one MPI call carries).
    std::unique_ptr<matrix::Dense<T>> gather_global(std::shared_ptr<const Executor> exec) const;

    /// Per column, the dot product of the whole vectors (collective).
    std::vector<T> compute_dot(const matrix::Dense<T>& b) const;
    /// Per column, the 2-norm of the whole vector (collective).
    std::vector<T> compute_norm2() const;

    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

private:
    Vector(std::shared_ptr<const Executor> exec, std::shared_ptr<const Partition> partition, size_type cols);

    std::shared_ptr<const Partition> partition_;
};

}  // namespace distributed
}  // namespace larch
