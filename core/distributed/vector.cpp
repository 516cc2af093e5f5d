// distributed::Vector: creation from global values, gathering, and the reductions over the partition.
#include "larch/distributed/vector.hpp"

#include <string>
#include <vector>

#include "core/components/instantiation.hpp"
#include "core/distributed/mpi_check.hpp"

namespace larch {
namespace distributed {
namespace {

/**
 * Throws DimensionMismatch on every process unless every process has `cols` columns: the reductions and
 * the gather would otherwise carry different counts on different processes, which MPI reports as a
 * truncated message (an abort) rather than an error. One allgather of one number; every process then
 * sees the same counts and decides alike, so no second collective is needed to agree on the outcome.
 */
void check_same_columns(const mpi::communicator& comm, size_type cols, const char* operation)
{
    const auto columns = static_cast<double>(cols);
    std::vector<double> all_columns(static_cast<size_type>(comm.size()));
    comm.allgather(&columns, 1, all_columns.data());
    for (size_type p = 1; p < all_columns.size(); ++p) {
        LARCH_ENSURE(all_columns[p] == all_columns.front(), DimensionMismatch,
                     std::string{operation} + ": the vector has " +
                         std::to_string(static_cast<size_type>(all_columns[p])) + " columns on process " +
                         std::to_string(p) + " but " + std::to_string(static_cast<size_type>(all_columns.front())) +
                         " on process 0 (every process passes the same number of columns)");
    }
}

/// Whether the calling thread runs inside a solve over `comm` (its ReductionScope), whose apply already
/// checked the column count of its vectors on every process: the reductions of its iteration then skip
/// the check and its collective.
bool inside_solve_over(const mpi::communicator& comm) { return current_reduction_group() == &comm; }

}  // namespace

template <typename T>
Vector<T>::Vector(std::shared_ptr<const Executor> exec, std::shared_ptr<const Partition> partition, size_type cols)
    : matrix::Dense<T>(exec, dim2{partition->get_local_rows(), cols},
                       array<T>{exec, partition->get_local_rows() * cols}, cols),
      partition_{std::move(partition)}
{}

template <typename T>
std::unique_ptr<Vector<T>> Vector<T>::create(std::shared_ptr<const Executor> exec,
                                             std::shared_ptr<const Partition> partition, size_type cols)
{
    LARCH_ENSURE(exec, BadInput, "distributed::Vector::create: the executor is null");
    LARCH_ENSURE(partition, BadInput, "distributed::Vector::create: the partition is null");
    return std::unique_ptr<Vector>(new Vector(std::move(exec), std::move(partition), cols));
}

template <typename T>
std::unique_ptr<Vector<T>> Vector<T>::create_from_global(std::shared_ptr<const Executor> exec,
                                                         std::shared_ptr<const Partition> partition,
                                                         const matrix::Dense<T>& global)
{
    LARCH_ENSURE(partition, BadInput, "distributed::Vector::create_from_global: the partition is null");
    partition->get_communicator()->check_on_every_process([&] {
        LARCH_ENSURE(global.get_size().rows == partition->get_global_rows(), DimensionMismatch,
                     "distributed::Vector::create_from_global: the global vector has " +
                         std::to_string(global.get_size().rows) + " rows but the partition " +
                         std::to_string(partition->get_global_rows()));
    });
    const auto cols = global.get_size().cols;
    // Each process passes its own copy of the global vector: one with another column count on some process
    // would build vectors whose first reduction or apply carries different counts on different processes.
    check_same_columns(*partition->get_communicator(), cols, "distributed::Vector::create_from_global");
    auto result = create(exec, partition, cols);
    const auto begin = partition->get_local_begin();
    const auto rows = partition->get_local_rows();
    const auto stride = global.get_stride();
    auto block = matrix::Dense<T>::create(global.get_executor(), dim2{rows, cols},
                                          array<T>::view(global.get_executor(), rows == 0 ? 0 : (rows - 1) * stride + cols,
                                                         const_cast<T*>(global.get_const_values()) +
                                                             begin * stride),
                                          stride);
    result->copy_from(*block);
    return result;
}

template <typename T>
std::unique_ptr<matrix::Dense<T>> Vector<T>::gather_global(std::shared_ptr<const Executor> exec) const
{
    const auto& comm = *partition_->get_communicator();
    const auto cols = this->get_size().cols;
    check_same_columns(comm, cols, "distributed::Vector::gather_global");
    const auto local = this->copy_to_host();
    // The partition and the column count are the same on every process, so every process reaches the same
    // verdict; the total bounds every process's count and displacement.
    detail::to_mpi_count(partition_->get_global_rows() * cols * sizeof(T),
                         "distributed::Vector::gather_global: the size in bytes of the whole vector");
    std::vector<int> counts(static_cast<size_type>(comm.size()));
    std::vector<int> displacements(counts.size());
    for (int p = 0; p < comm.size(); ++p) {
        counts[p] = static_cast<int>(partition_->get_local_rows(p) * cols * sizeof(T));
        displacements[p] = static_cast<int>(partition_->get_begin(p) * cols * sizeof(T));
    }
    std::vector<T> values(partition_->get_global_rows() * cols);
    LARCH_MPI_CHECK(MPI_Allgatherv(local.data(), static_cast<int>(local.size() * sizeof(T)), MPI_BYTE,
                                   values.data(), counts.data(), displacements.data(), MPI_BYTE, comm.get()));
    return matrix::Dense<T>::create(std::move(exec), dim2{partition_->get_global_rows(), cols}, values);
}

template <typename T>
std::vector<T> Vector<T>::compute_dot(const matrix::Dense<T>& b) const
{
    const auto& comm = *partition_->get_communicator();
    comm.check_on_every_process([&] {
        const auto other = dynamic_cast<const Vector*>(&b);
        LARCH_ENSURE(!other || *other->get_partition() == *partition_, BadInput,
                     "distributed::Vector::compute_dot: b is a vector of another partition");
        LARCH_ENSURE(b.get_size() == this->get_size(), DimensionMismatch,
                     "distributed::Vector::compute_dot: b is " + to_string(b.get_size()) + " but this vector " +
                         to_string(this->get_size()) + " on this process");
    });
    if (!inside_solve_over(comm)) {
        check_same_columns(comm, this->get_size().cols, "distributed::Vector::compute_dot");
    }
    ReductionScope reductions{&comm};
    return matrix::Dense<T>::compute_dot(b);
}

template <typename T>
std::vector<T> Vector<T>::compute_norm2() const
{
    const auto& comm = *partition_->get_communicator();
    if (!inside_solve_over(comm)) {
        check_same_columns(comm, this->get_size().cols, "distributed::Vector::compute_norm2");
    }
    ReductionScope reductions{&comm};
    return matrix::Dense<T>::compute_norm2();
}

template <typename T>
std::unique_ptr<LinOp> Vector<T>::clone_to(std::shared_ptr<const Executor> exec) const
{
    auto copy = create(std::move(exec), partition_, this->get_size().cols);
    copy->copy_from(*this);
    return copy;
}

template <typename T>
std::string Vector<T>::get_type_name() const
{
    return std::string{"distributed::Vector<"} + type_name<T>() + ">";
}

#define LARCH_INSTANTIATE_DISTRIBUTED_VECTOR(T) template class Vector<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_DISTRIBUTED_VECTOR);

}  // namespace distributed
}  // namespace larch
