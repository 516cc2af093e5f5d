// larch::mpi::communicator: rank, size, node-local rank, and the ProcessGroup collectives over MPI.
#include "larch/distributed/communicator.hpp"

#include <vector>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "core/distributed/mpi_check.hpp"
#include "larch/base/executor.hpp"

namespace larch {
namespace mpi {

communicator::communicator(MPI_Comm comm) : comm_{comm}
{
    int initialized = 0;
    LARCH_MPI_CHECK(MPI_Initialized(&initialized));
    LARCH_ENSURE(initialized, BadInput, "mpi::communicator: MPI is not initialized (call MPI_Init first)");
    LARCH_ENSURE(comm != MPI_COMM_NULL, BadInput, "mpi::communicator: the communicator is MPI_COMM_NULL");
    LARCH_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    LARCH_MPI_CHECK(MPI_Comm_size(comm_, &size_));
    MPI_Comm node{};
    LARCH_MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
    LARCH_MPI_CHECK(MPI_Comm_rank(node, &local_rank_));
    LARCH_MPI_CHECK(MPI_Comm_size(node, &local_size_));
    LARCH_MPI_CHECK(MPI_Comm_free(&node));
}

communicator::~communicator() = default;

std::shared_ptr<const communicator> communicator::create(MPI_Comm comm)
{
    return std::make_shared<const communicator>(comm);
}

void communicator::allgather(const double* local, size_type count, double* all) const
{
    LARCH_MPI_CHECK(MPI_Allgather(local, static_cast<int>(count), MPI_DOUBLE, all, static_cast<int>(count),
                                  MPI_DOUBLE, comm_));
}

void communicator::broadcast(std::string& text, int root) const
{
    auto length = static_cast<unsigned long long>(text.size());
    LARCH_MPI_CHECK(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm_));
    text.resize(length);
    LARCH_MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root, comm_));
}

std::string map_rank_to_executor(const communicator& comm, const std::string& backend)
{
    if (backend != "cuda" && backend != "hip") {
        return backend;
    }
    if (!is_backend_built(backend)) {
        // make_executor names what is missing.
        make_executor(backend);
    }
    const auto devices = backend == "cuda" ? CudaExecutor::get_num_devices() : HipExecutor::get_num_devices();
    LARCH_ENSURE(devices > 0, DeviceNotFound,
                 "mpi::map_rank_to_executor: no " + backend + " device on this node (process " +
                     std::to_string(comm.rank()) + ")");
    return backend + ":" + std::to_string(comm.local_rank() % devices);
}

bool is_cuda_aware()
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

}  // namespace mpi
}  // namespace larch
