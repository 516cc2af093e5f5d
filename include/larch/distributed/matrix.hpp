// distributed::Matrix<V, I>: a square sparse matrix whose rows are split over the processes of a partition;
// per process a local diagonal block and a non-local block (both Csr), and the halo exchange of its SpMV.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/host_staging_buffer.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/base/process_group.hpp"
#include "larch/distributed/partition.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace distributed {

/**
 * Process p holds rows [begin_p, end_p) of the global matrix A as two Csr matrices on its executor:
 * - the local block A(rows, own columns), local_rows x local_rows, in local indices;
 * - the non-local block A(rows, other columns), local_rows x ghosts, whose columns are the distinct global
 *   columns outside the process's block that its rows touch ("ghosts"), compressed and sorted by global index
 *   (so the ghosts sent by one process are contiguous).
 * Which of its rows each process sends to which neighbour and where the received ghosts go is computed once,
 * at creation.
 *
 * As a LinOp it is this process's block: local_rows x local_rows, applied to vectors of this process's rows
 * (distributed::Vector, or a plain matrix::Dense of local rows inside a solver); apply is collective. x = A b:
 * post the receives and sends of the ghost values (non-blocking MPI), compute the local product meanwhile,
 * wait, then add the non-local product. Operand checks are collective (a wrong size on one process, or a
 * column count that differs between processes, throws DimensionMismatch on every process). The rows to send
 * are gathered on the executor first, so only they leave a device; there they are staged through
 * page-locked host memory, unless the MPI library is CUDA-aware (mpi::is_cuda_aware()), which then sends
 * and receives device memory directly. The gathered rows, the received ghosts and the staging memory are
 * allocated at the first apply and kept (allocated again only for another column count). One apply at a
 * time per matrix and per communicator (those buffers are the matrix's, and the messages of concurrent
 * applies would mix).
 *
 * As a SplitOperator the unchanged Krylov solvers run on it (see solver::IterativeSolver) and generate their
 * preconditioner on the local block: preconditioner::BlockJacobi on each process's diagonal block.
 */
template <typename V, typename I = std::int32_t>
class Matrix : public LinOp, public SplitOperator {
public:
    static_assert(is_instantiated_value_type<V>, LARCH_VALUE_TYPE_MESSAGE);
    static_assert(is_instantiated_index_type<I>, LARCH_INDEX_TYPE_MESSAGE);
    using value_type = V;
    using index_type = I;

    /**
     * From global coordinate data held by process `root` (ignored elsewhere), scattered to the owners of
     * its rows. Every process passes the same `root`. Collective; throws on every process: DimensionMismatch
     * when the data is not square or its size differs from the partition's, BadInput for entries outside
     * the matrix, for processes that pass different roots, or for a root that is not a process;
     * NotSupported for more than 2^31 - 1 bytes of entries (what one MPI call carries).
     */
    static std::unique_ptr<Matrix> create_from_global(std::shared_ptr<const Executor> exec,
                                                      std::shared_ptr<const Partition> partition,
                                                      const matrix_data<V, I>& global_data, int root = 0);
    /**
     * From each process's own rows (global row and column indices; data.size the global size).
     * Collective; throws on every process: DimensionMismatch when a process passes a size other than the
     * partition's, BadInput for a null executor, a row the process does not own or a column outside the
     * matrix. (A null partition throws BadInput on that process alone: it names no communicator to tell.)
     */
    static std::unique_ptr<Matrix> create_from_local(std::shared_ptr<const Executor> exec,
                                                     std::shared_ptr<const Partition> partition,
                                                     const matrix_data<V, I>& local_data);
    /**
     * From a Matrix Market file read by process 0 and scattered; with a null partition, a uniform one over
     * `comm`. Collective; throws on every process: BadInput for a file that cannot be read, or a partition
     * over another communicator than `comm` (other processes, or the same ones in another order);
     * DimensionMismatch for a matrix that is not square or whose rows differ from the partition's.
     */
    static std::unique_ptr<Matrix> read_matrix_market(std::shared_ptr<const Executor> exec,
                                                      std::shared_ptr<const mpi::communicator> comm,
                                                      const std::string& path,
                                                      std::shared_ptr<const Partition> partition = nullptr);

    const std::shared_ptr<const Partition>& get_partition() const noexcept { return partition_; }
    std::shared_ptr<const matrix::Csr<V, I>> get_local_matrix() const noexcept { return local_; }
    std::shared_ptr<const matrix::Csr<V, I>> get_non_local_matrix() const noexcept { return non_local_; }
    /// The global column of each ghost (column of the non-local block), ascending.
    const std::vector<size_type>& get_ghost_columns() const noexcept { return ghost_columns_; }
    /// The processes this one receives ghosts from, and sends rows to.
    const std::vector<int>& get_receive_processes() const noexcept { return receive_processes_; }
    const std::vector<int>& get_send_processes() const noexcept { return send_processes_; }

    std::shared_ptr<const ProcessGroup> get_process_group() const override { return partition_->get_communicator(); }
    std::shared_ptr<const LinOp> get_local_block() const override { return local_; }
    size_type get_local_begin() const override { return partition_->get_local_begin(); }

    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    void apply_impl(const LinOp& b, LinOp& x) const override;
    void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const override;
    const ProcessGroup* get_apply_group() const noexcept override { return partition_->get_communicator().get(); }

private:
    Matrix(std::shared_ptr<const Executor> exec, std::shared_ptr<const Partition> partition);

    /// Builds the blocks and the communication pattern from validated local data (collective).
    void build(const matrix_data<V, I>& local_data);
    /// The ghost values of b (ghosts x b's columns) on this executor, exchanged while `local_product` runs;
    /// valid until the next apply.
    const matrix::Dense<V>& exchange_ghosts(const matrix::Dense<V>& b, const std::function<void()>& local_product) const;

    std::shared_ptr<const Partition> partition_;
    std::shared_ptr<const matrix::Csr<V, I>> local_;
    std::shared_ptr<const matrix::Csr<V, I>> non_local_;
    std::vector<size_type> ghost_columns_;
    std::vector<int> receive_processes_;
    /// Ghosts [receive_offsets_[k], receive_offsets_[k + 1]) come from receive_processes_[k].
    std::vector<size_type> receive_offsets_;
    std::vector<int> send_processes_;
    /// Local rows send_rows_[send_offsets_[k] .. send_offsets_[k + 1]) go to send_processes_[k], in order;
    /// the row indices live on the executor, which gathers those rows before they leave it.
    std::vector<size_type> send_offsets_;
    array<I> send_rows_;
    /// The most rows any process sends in one halo message (the same on every process).
    size_type largest_halo_message_rows_ = 0;
    /// The rows sent and the ghosts received on the executor, kept between applies of the same column count.
    mutable std::unique_ptr<matrix::Dense<V>> send_block_;
    mutable std::unique_ptr<matrix::Dense<V>> ghosts_;
    /// Host staging of the rows sent and the ghosts received, where MPI cannot address the executor's memory.
    mutable HostStagingBuffer staged_send_;
    mutable HostStagingBuffer staged_receive_;
};

}  // namespace distributed
}  // namespace larch
