// distributed::Matrix: creation (scatter from a root, local rows, Matrix Market), the split into local and
// non-local blocks with the halo pattern, and the SpMV that overlaps the halo exchange with the local product.
#include "larch/distributed/matrix.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/components/instantiation.hpp"
#include "core/distributed/halo_kernels.hpp"
#include "core/distributed/mpi_check.hpp"
#include "larch/io/matrix_market.hpp"

namespace larch {
namespace distributed {
namespace {

constexpr int halo_tag = 7301;

}  // namespace

template <typename V, typename I>
Matrix<V, I>::Matrix(std::shared_ptr<const Executor> exec, std::shared_ptr<const Partition> partition)
    : LinOp(exec, dim2{partition->get_local_rows(), partition->get_local_rows()}),
      partition_{std::move(partition)},
      send_rows_{exec},
      staged_send_{exec},
      staged_receive_{exec}
{}

template <typename V, typename I>
std::unique_ptr<Matrix<V, I>> Matrix<V, I>::create_from_local(std::shared_ptr<const Executor> exec,
                                                             std::shared_ptr<const Partition> partition,
                                                             const matrix_data<V, I>& local_data)
{
    LARCH_ENSURE(partition, BadInput, "distributed::Matrix::create_from_local: the partition is null");
    const auto n = partition->get_global_rows();
    const auto begin = partition->get_local_begin();
    const auto end = begin + partition->get_local_rows();
    partition->get_communicator()->check_on_every_process([&] {
        // Inside the collective check: a null executor on one process must not leave the others waiting.
        LARCH_ENSURE(exec, BadInput, "distributed::Matrix::create_from_local: the executor is null");
        LARCH_ENSURE(local_data.size == (dim2{n, n}), DimensionMismatch,
                     "distributed::Matrix::create_from_local: the data is " + to_string(local_data.size) +
                         " but the partition has " + std::to_string(n) + " global rows (a square matrix)");
        local_data.validate("distributed::Matrix::create_from_local");
        for (const auto& e : local_data.entries) {
            const auto row = static_cast<size_type>(e.row);
            LARCH_ENSURE(row >= begin && row < end, BadInput,
                         "distributed::Matrix::create_from_local: entry (" + std::to_string(e.row) + ", " +
                             std::to_string(e.col) + ") lies in a row this process does not own (its rows are [" +
                             std::to_string(begin) + ", " + std::to_string(end) + "))");
        }
    });
    std::unique_ptr<Matrix> result{new Matrix(std::move(exec), std::move(partition))};
    result->build(local_data);
    return result;
}

template <typename V, typename I>
std::unique_ptr<Matrix<V, I>> Matrix<V, I>::create_from_global(std::shared_ptr<const Executor> exec,
                                                              std::shared_ptr<const Partition> partition,
                                                              const matrix_data<V, I>& global_data, int root)
{
    LARCH_ENSURE(partition, BadInput, "distributed::Matrix::create_from_global: the partition is null");
    const auto& comm = *partition->get_communicator();
    const auto n = partition->get_global_rows();
    // Every process learns every process's root and so decides alike: one allgather, no agreement round.
    const auto passed_root = static_cast<double>(root);
    std::vector<double> roots(static_cast<size_type>(comm.size()));
    comm.allgather(&passed_root, 1, roots.data());
    for (size_type p = 1; p < roots.size(); ++p) {
        LARCH_ENSURE(roots[p] == roots.front(), BadInput,
                     "distributed::Matrix::create_from_global: process " + std::to_string(p) + " passed root " +
                         std::to_string(static_cast<long long>(roots[p])) + " but process 0 root " +
                         std::to_string(static_cast<long long>(roots.front())) +
                         " (every process passes the same root)");
    }
    LARCH_ENSURE(root >= 0 && root < comm.size(), BadInput,
                 "distributed::Matrix::create_from_global: root " + std::to_string(root) + " is not a process of " +
                     std::to_string(comm.size()));
    // The root's checks decide for everybody: the other processes pass no data.
    comm.check_on_every_process([&] {
        if (comm.rank() != root) {
            return;
        }
        LARCH_ENSURE(global_data.size == (dim2{n, n}), DimensionMismatch,
                     "distributed::Matrix::create_from_global: the data is " + to_string(global_data.size) +
                         " but the partition has " + std::to_string(n) + " global rows (a square matrix)");
        global_data.validate("distributed::Matrix::create_from_global");
        // Every owner's byte count and offset is at most the total.
        detail::to_mpi_count(global_data.entries.size() * sizeof(typename matrix_data<V, I>::entry),
                             "distributed::Matrix::create_from_global: the size in bytes of the scattered entries");
    });
    using entry = typename matrix_data<V, I>::entry;
    std::vector<int> byte_counts(static_cast<size_type>(comm.size()), 0);
    std::vector<int> byte_offsets(byte_counts.size(), 0);
    std::vector<entry> grouped;
    if (comm.rank() == root) {
        // Grouped by owner in one counting pass (each owner's entries keep their order), not sorted.
        std::vector<int> owners(global_data.entries.size());
        for (size_type k = 0; k < owners.size(); ++k) {
            owners[k] = partition->get_owner(static_cast<size_type>(global_data.entries[k].row));
            byte_counts[static_cast<size_type>(owners[k])] += static_cast<int>(sizeof(entry));
        }
        for (size_type p = 1; p < byte_counts.size(); ++p) {
            byte_offsets[p] = byte_offsets[p - 1] + byte_counts[p - 1];
        }
        grouped.resize(global_data.entries.size());
        std::vector<size_type> next(byte_counts.size());
        for (size_type p = 0; p < next.size(); ++p) {
            next[p] = static_cast<size_type>(byte_offsets[p]) / sizeof(entry);
        }
        for (size_type k = 0; k < owners.size(); ++k) {
            grouped[next[static_cast<size_type>(owners[k])]++] = global_data.entries[k];
        }
    }
    int my_bytes = 0;
    LARCH_MPI_CHECK(MPI_Scatter(byte_counts.data(), 1, MPI_INT, &my_bytes, 1, MPI_INT, root, comm.get()));
    matrix_data<V, I> local_data{dim2{n, n}};
    local_data.entries.resize(static_cast<size_type>(my_bytes) / sizeof(entry));
    LARCH_MPI_CHECK(MPI_Scatterv(grouped.data(), byte_counts.data(), byte_offsets.data(), MPI_BYTE,
                                 local_data.entries.data(), my_bytes, MPI_BYTE, root, comm.get()));
    return create_from_local(std::move(exec), std::move(partition), local_data);
}

template <typename V, typename I>
std::unique_ptr<Matrix<V, I>> Matrix<V, I>::read_matrix_market(std::shared_ptr<const Executor> exec,
                                                              std::shared_ptr<const mpi::communicator> comm,
                                                              const std::string& path,
                                                              std::shared_ptr<const Partition> partition)
{
    LARCH_ENSURE(comm, BadInput, "distributed::Matrix::read_matrix_market: the communicator is null");
    matrix_data<V, I> data;
    comm->check_on_every_process([&] {
        // Process 0 of `comm` reads and process 0 of the partition's communicator scatters: they must be
        // the same processes in the same order.
        if (partition) {
            int comparison = MPI_UNEQUAL;
            LARCH_MPI_CHECK(MPI_Comm_compare(comm->get(), partition->get_communicator()->get(), &comparison));
            LARCH_ENSURE(comparison == MPI_IDENT || comparison == MPI_CONGRUENT, BadInput,
                         "distributed::Matrix::read_matrix_market: the partition is over another communicator "
                         "than `comm` (other processes, or the same ones in another order)");
        }
        if (comm->rank() == 0) {
            data = io::read_matrix_market_data<V, I>(path);
            LARCH_ENSURE(data.size.rows == data.size.cols, DimensionMismatch,
                         "distributed::Matrix::read_matrix_market: " + path + " is " + to_string(data.size) +
                             ", not square");
            LARCH_ENSURE(!partition || data.size.rows == partition->get_global_rows(), DimensionMismatch,
                         "distributed::Matrix::read_matrix_market: " + path + " has " +
                             std::to_string(data.size.rows) + " rows but the partition " +
                             std::to_string(partition ? partition->get_global_rows() : 0));
        }
    });
    auto rows = static_cast<unsigned long long>(data.size.rows);
    LARCH_MPI_CHECK(MPI_Bcast(&rows, 1, MPI_UNSIGNED_LONG_LONG, 0, comm->get()));
    if (!partition) {
        partition = Partition::create_uniform(comm, rows);
    }
    return create_from_global(std::move(exec), std::move(partition), data, 0);
}

template <typename V, typename I>
void Matrix<V, I>::build(const matrix_data<V, I>& local_data)
{
    const auto& comm = *partition_->get_communicator();
    const auto begin = partition_->get_local_begin();
    const auto rows = partition_->get_local_rows();
    const auto owns = [&](size_type col) { return col >= begin && col < begin + rows; };
    for (const auto& e : local_data.entries) {
        if (!owns(static_cast<size_type>(e.col))) {
            ghost_columns_.push_back(static_cast<size_type>(e.col));
        }
    }
    std::sort(ghost_columns_.begin(), ghost_columns_.end());
    ghost_columns_.erase(std::unique(ghost_columns_.begin(), ghost_columns_.end()), ghost_columns_.end());
    const auto ghost_index = [&](size_type col) {
        return std::lower_bound(ghost_columns_.begin(), ghost_columns_.end(), col) - ghost_columns_.begin();
    };
    matrix_data<V, I> local_block{dim2{rows, rows}};
    matrix_data<V, I> non_local_block{dim2{rows, ghost_columns_.size()}};
    for (const auto& e : local_data.entries) {
        const auto row = static_cast<I>(static_cast<size_type>(e.row) - begin);
        const auto col = static_cast<size_type>(e.col);
        if (owns(col)) {
            local_block.entries.push_back({row, static_cast<I>(col - begin), e.value});
        } else {
            non_local_block.entries.push_back({row, static_cast<I>(ghost_index(col)), e.value});
        }
    }
    local_ = share(matrix::Csr<V, I>::create(get_executor(), local_block));
    non_local_ = share(matrix::Csr<V, I>::create(get_executor(), non_local_block));

    // Receives: the ghosts are sorted by global column, so each owner's ghosts form one run.
    const auto processes = static_cast<size_type>(comm.size());
    std::vector<unsigned long long> wanted_counts(processes, 0);
    receive_offsets_.push_back(0);
    for (size_type k = 0; k < ghost_columns_.size(); ++k) {
        const auto owner = partition_->get_owner(ghost_columns_[k]);
        if (receive_processes_.empty() || receive_processes_.back() != owner) {
            receive_processes_.push_back(owner);
            receive_offsets_.push_back(k);
        }
        receive_offsets_.back() = k + 1;
        ++wanted_counts[static_cast<size_type>(owner)];
    }
    // Sends: every process tells each owner which of its rows it needs.
    std::vector<unsigned long long> requested_counts(processes, 0);
    LARCH_MPI_CHECK(MPI_Alltoall(wanted_counts.data(), 1, MPI_UNSIGNED_LONG_LONG, requested_counts.data(), 1,
                                 MPI_UNSIGNED_LONG_LONG, comm.get()));
    // The longest ghost list any process sends or receives and the largest halo message (in rows), on every
    // process: a count too large for one MPI call then throws on every process alike, here or, for the halo
    // messages, whose size grows with the column count, in exchange_ghosts before any message is posted.
    // Each list's length bounds its counts and offsets.
    unsigned long long largest[2] = {
        std::max<unsigned long long>(ghost_columns_.size(),
                                     std::accumulate(requested_counts.begin(), requested_counts.end(), 0ull)),
        std::max(*std::max_element(wanted_counts.begin(), wanted_counts.end()),
                 *std::max_element(requested_counts.begin(), requested_counts.end()))};
    LARCH_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, largest, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm.get()));
    detail::to_mpi_count(largest[0], "distributed::Matrix: the longest ghost list a process sends or receives");
    largest_halo_message_rows_ = largest[1];
    std::vector<int> wanted_int(processes), wanted_offsets(processes, 0), requested_int(processes),
        requested_offsets(processes, 0);
    for (size_type p = 0; p < processes; ++p) {
        wanted_int[p] = static_cast<int>(wanted_counts[p]);
        requested_int[p] = static_cast<int>(requested_counts[p]);
        if (p > 0) {
            wanted_offsets[p] = wanted_offsets[p - 1] + wanted_int[p - 1];
            requested_offsets[p] = requested_offsets[p - 1] + requested_int[p - 1];
        }
    }
    std::vector<unsigned long long> wanted(ghost_columns_.begin(), ghost_columns_.end());
    std::vector<unsigned long long> requested(requested_offsets.back() + requested_int.back());
    LARCH_MPI_CHECK(MPI_Alltoallv(wanted.data(), wanted_int.data(), wanted_offsets.data(), MPI_UNSIGNED_LONG_LONG,
                                  requested.data(), requested_int.data(), requested_offsets.data(),
                                  MPI_UNSIGNED_LONG_LONG, comm.get()));
    send_offsets_.push_back(0);
    std::vector<I> send_rows;
    for (size_type p = 0; p < processes; ++p) {
        if (requested_int[p] == 0) {
            continue;
        }
        send_processes_.push_back(static_cast<int>(p));
        for (int k = 0; k < requested_int[p]; ++k) {
            // Requested by global index; by construction a row of this process's block.
            send_rows.push_back(static_cast<I>(requested[requested_offsets[p] + k] - begin));
        }
        send_offsets_.push_back(send_rows.size());
    }
    send_rows_ = array<I>{get_executor(), send_rows.begin(), send_rows.end()};
}

namespace {

/// `block` as an empty rows x cols matrix on `exec`, allocated again only when its size changes.
template <typename V>
matrix::Dense<V>& kept_block(std::unique_ptr<matrix::Dense<V>>& block, const std::shared_ptr<const Executor>& exec,
                             dim2 size)
{
    if (!block || block->get_size() != size) {
        block = matrix::Dense<V>::create(exec, size);
    }
    return *block;
}

}  // namespace

template <typename V, typename I>
const matrix::Dense<V>& Matrix<V, I>::exchange_ghosts(const matrix::Dense<V>& b,
                                                      const std::function<void()>& local_product) const
{
    const auto& exec = get_executor();
    const auto& comm = *partition_->get_communicator();
    const auto cols = b.get_size().cols;
    const auto value_bytes = cols * sizeof(V);
    // The largest message of any process, and apply checked that the column count is the same on every
    // process: a message too large for MPI throws on every process, before any is posted.
    detail::to_mpi_count(largest_halo_message_rows_ * value_bytes,
                         "distributed::Matrix::apply: the size in bytes of the largest halo message");
    // MPI reads and writes the executor's memory itself where it can address it (host executors, or a
    // CUDA-aware MPI on a CUDA executor); otherwise both sides are staged through host memory.
    const bool direct = exec->is_host() || (mpi::is_cuda_aware() && dynamic_cast<const CudaExecutor*>(exec.get()));
    // The rows to send, gathered into one block on the executor.
    auto& send_block = kept_block(send_block_, exec, dim2{send_rows_.get_size(), cols});
    LARCH_RUN_KERNEL(exec, halo::gather_rows, b, send_rows_, send_block);
    const auto send_bytes = send_rows_.get_size() * value_bytes;
    const auto receive_bytes = ghost_columns_.size() * value_bytes;
    const V* send_base = send_block.get_const_values();
    auto& ghosts = kept_block(ghosts_, exec, dim2{ghost_columns_.size(), cols});
    V* receive_base = ghosts.get_values();
    if (direct) {
        // The gather must have finished before MPI reads the block.
        exec->synchronize();
    } else {
        auto staged = static_cast<V*>(staged_send_.get(send_bytes));
        exec->get_host()->copy_from(*exec, send_bytes, send_base, staged);
        send_base = staged;
        receive_base = static_cast<V*>(staged_receive_.get(receive_bytes));
    }
    std::vector<MPI_Request> requests;
    requests.reserve(receive_processes_.size() + send_processes_.size());
    for (size_type k = 0; k < receive_processes_.size(); ++k) {
        requests.emplace_back();
        const auto count = receive_offsets_[k + 1] - receive_offsets_[k];
        LARCH_MPI_CHECK(MPI_Irecv(receive_base + receive_offsets_[k] * cols,
                                  static_cast<int>(count * value_bytes), MPI_BYTE,
                                  receive_processes_[k], halo_tag, comm.get(), &requests.back()));
    }
    for (size_type k = 0; k < send_processes_.size(); ++k) {
        requests.emplace_back();
        const auto count = send_offsets_[k + 1] - send_offsets_[k];
        LARCH_MPI_CHECK(MPI_Isend(send_base + send_offsets_[k] * cols,
                                  static_cast<int>(count * value_bytes), MPI_BYTE,
                                  send_processes_[k], halo_tag, comm.get(), &requests.back()));
    }
    local_product();
    LARCH_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
    if (!direct) {
        exec->copy_from(*exec->get_host(), receive_bytes, receive_base, ghosts.get_values());
    }
    return ghosts;
}

template <typename V, typename I>
void Matrix<V, I>::apply_impl(const LinOp& b, LinOp& x) const
{
    const auto& dense_b = as<const matrix::Dense<V>>(b, "distributed::Matrix::apply");
    auto& dense_x = as<matrix::Dense<V>>(x, "distributed::Matrix::apply");
    // The products are this process's own work (no reduction of a solve's scope belongs in them).
    ReductionScope local{nullptr};
    const auto& ghosts = exchange_ghosts(dense_b, [&] { local_->apply(dense_b, dense_x); });
    if (!ghost_columns_.empty()) {
        non_local_->apply(1.0, ghosts, 1.0, dense_x);
    }
}

template <typename V, typename I>
void Matrix<V, I>::apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const
{
    const auto& dense_b = as<const matrix::Dense<V>>(b, "distributed::Matrix::apply");
    auto& dense_x = as<matrix::Dense<V>>(x, "distributed::Matrix::apply");
    ReductionScope local{nullptr};
    const auto& ghosts = exchange_ghosts(dense_b, [&] { local_->apply(alpha, dense_b, beta, dense_x); });
    if (!ghost_columns_.empty()) {
        non_local_->apply(alpha, ghosts, 1.0, dense_x);
    }
}

template <typename V, typename I>
std::unique_ptr<LinOp> Matrix<V, I>::clone_to(std::shared_ptr<const Executor> exec) const
{
    std::unique_ptr<Matrix> copy{new Matrix(exec, partition_)};
    copy->local_ = share(std::unique_ptr<matrix::Csr<V, I>>(
        static_cast<matrix::Csr<V, I>*>(local_->clone_to(exec).release())));
    copy->non_local_ = share(std::unique_ptr<matrix::Csr<V, I>>(
        static_cast<matrix::Csr<V, I>*>(non_local_->clone_to(exec).release())));
    copy->ghost_columns_ = ghost_columns_;
    copy->receive_processes_ = receive_processes_;
    copy->receive_offsets_ = receive_offsets_;
    copy->send_processes_ = send_processes_;
    copy->send_offsets_ = send_offsets_;
    copy->send_rows_ = array<I>{exec, send_rows_};
    copy->largest_halo_message_rows_ = largest_halo_message_rows_;
    return copy;
}

template <typename V, typename I>
std::string Matrix<V, I>::get_type_name() const
{
    return std::string{"distributed::Matrix<"} + type_name<V>() + "," + type_name<I>() + ">";
}

#define LARCH_INSTANTIATE_DISTRIBUTED_MATRIX(V, I) template class Matrix<V, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_DISTRIBUTED_MATRIX);

}  // namespace distributed
}  // namespace larch
