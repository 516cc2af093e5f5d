// larch::mpi::communicator: the MPI communicator a distributed solve runs on, as larch's ProcessGroup, with
// the helpers that place each process on its node and its GPU. Built only with LARCH_BUILD_MPI.
#pragma once

#include <memory>
#include <string>

#include <mpi.h>

#include "larch/base/process_group.hpp"

namespace larch {
namespace mpi {

/**
 * Wraps an MPI communicator (MPI_COMM_WORLD by default, or any communicator the caller owns and keeps alive
 * while larch objects use it; it is not freed here). MPI must be initialized before, and finalized after
 * every larch object on the communicator is gone. Every member that communicates is collective.
 * Failed MPI calls throw larch::Error with MPI's error string (where the communicator's error handler
 * returns instead of aborting).
 */
class communicator : public ProcessGroup {
public:
    /// Takes `comm` (not duplicated, not freed); reads rank, size and the node-local rank (collective).
    explicit communicator(MPI_Comm comm = MPI_COMM_WORLD);
    ~communicator() override;

    MPI_Comm get() const noexcept { return comm_; }
    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    /// This process's index among the processes of the communicator on the same node (MPI_Comm_split_type
    /// with MPI_COMM_TYPE_SHARED), and how many of them there are.
    int local_rank() const noexcept { return local_rank_; }
    int local_size() const noexcept { return local_size_; }

    int get_process() const override { return rank_; }
    int get_num_processes() const override { return size_; }
    void allgather(const double* local, size_type count, double* all) const override;
    void broadcast(std::string& text, int root) const override;

    /// A shared handle to a communicator on `comm` (what partitions, vectors and matrices keep).
    static std::shared_ptr<const communicator> create(MPI_Comm comm = MPI_COMM_WORLD);

private:
    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 1;
    int local_rank_ = 0;
    int local_size_ = 1;
};

/**
 * The executor name for this process: for "cuda" or "hip", device (local rank mod the node's device count),
 * e.g. "cuda:1" for the second process of a node with two GPUs; any other name ("omp", "reference", or a
 * name with an explicit device) is returned as it is. Throws DeviceNotFound for "cuda"/"hip" without a
 * device, BackendNotBuilt where the backend is not part of this build.
 */
std::string map_rank_to_executor(const communicator& comm, const std::string& backend);

/**
 * Whether the MPI library accepts GPU memory in its calls: MPIX_Query_cuda_support() where the MPI header
 * offers it (Open MPI's mpi-ext.h), false otherwise. Without it, the halo exchange of a device executor is
 * staged through host memory.
 */
bool is_cuda_aware();

}  // namespace mpi
}  // namespace larch
