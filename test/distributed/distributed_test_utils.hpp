// Shared by the distributed tests: the world communicator, the partitions every test runs on (uniform,
// uneven with a process that owns no row), the real matrices, and "did it throw on every process".
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/distributed/communicator.hpp"
#include "larch/distributed/partition.hpp"

namespace larch {
namespace test {

/// MPI_COMM_WORLD, created once (creating a communicator is collective; using this one afterwards is not).
inline std::shared_ptr<const mpi::communicator> world()
{
    static const auto comm = mpi::communicator::create(MPI_COMM_WORLD);
    return comm;
}

/// The partitions the tests use.
enum class PartitionKind {
    uniform,     ///< blocks that differ by at most one row
    uneven,      ///< process p gets a share proportional to p + 1, except the middle process, which gets none
    first_empty  ///< as uneven, but process 0 (the root of scatters) owns no row
};

inline std::string to_string(PartitionKind kind)
{
    switch (kind) {
    case PartitionKind::uniform:
        return "uniform";
    case PartitionKind::uneven:
        return "uneven";
    case PartitionKind::first_empty:
        return "first_empty";
    }
    return "?";
}

inline std::shared_ptr<const distributed::Partition> make_partition(PartitionKind kind, size_type rows)
{
    const auto comm = world();
    if (kind == PartitionKind::uniform) {
        return distributed::Partition::create_uniform(comm, rows);
    }
    const auto size = comm->size();
    const int empty = size == 1 ? -1 : (kind == PartitionKind::uneven ? size / 2 : 0);
    std::vector<size_type> weights(static_cast<size_type>(size));
    size_type total = 0;
    for (int p = 0; p < size; ++p) {
        weights[p] = p == empty ? 0 : static_cast<size_type>(p + 1);
        total += weights[p];
    }
    std::vector<size_type> offsets{0};
    for (int p = 0; p < size; ++p) {
        offsets.push_back(p + 1 == size ? rows : offsets.back() + rows * weights[p] / total);
    }
    return distributed::Partition::create_from_ranges(comm, offsets);
}

inline const std::vector<PartitionKind>& partition_kinds()
{
    static const std::vector<PartitionKind> kinds{PartitionKind::uniform, PartitionKind::uneven,
                                                  PartitionKind::first_empty};
    return kinds;
}

/// The path of a real matrix, or "" when it is missing (the test then says SKIPPED with the reason).
inline std::string matrix_path(const std::string& name)
{
    const auto path = std::string{LARCH_MATRICES_DIR} + "/" + name + ".mtx";
    return std::ifstream{path}.good() ? path : std::string{};
}

/// The executors a test runs on: reference and omp, and each GPU backend that is built on this process's device
/// (mpi::map_rank_to_executor, so that the device staging of the halo runs there too); a GPU backend without a
/// device is left out with a note from process 0 (all processes see the same machine kind).
inline std::vector<std::shared_ptr<const Executor>> test_executors()
{
    std::vector<std::shared_ptr<const Executor>> result{make_executor("reference"), make_executor("omp")};
    for (const std::string backend : {"cuda", "hip"}) {
        if (!is_backend_built(backend)) {
            continue;
        }
        try {
            result.push_back(make_executor(mpi::map_rank_to_executor(*world(), backend)));
        } catch (const DeviceNotFound& e) {
            if (world()->rank() == 0) {
                std::cout << "note: " << backend << " built but no device, not tested here: " << e.what() << "\n";
            }
        }
    }
    return result;
}

/// Whether `operation` threw an exception of type E on every process (collective).
template <typename E>
bool throws_everywhere(const std::function<void()>& operation, std::string* message = nullptr)
{
    int threw = 0;
    try {
        operation();
    } catch (const E& e) {
        threw = 1;
        if (message) {
            *message = e.what();
        }
    }
    int everywhere = 0;
    MPI_Allreduce(&threw, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return everywhere == 1;
}

}  // namespace test
}  // namespace larch
