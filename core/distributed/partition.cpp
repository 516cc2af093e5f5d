// distributed::Partition: creation (validated on every process together) and owner lookup.
#include "larch/distributed/partition.hpp"

#include <algorithm>
#include <string>

#include "core/distributed/mpi_check.hpp"

namespace larch {
namespace distributed {
namespace {

/// Throws BadInput unless every process passed `value` (compared with process 0's).
void check_same_everywhere(const mpi::communicator& comm, const char* context, const std::vector<size_type>& values)
{
    auto count = static_cast<unsigned long long>(values.size());
    auto root_count = count;
    LARCH_MPI_CHECK(MPI_Bcast(&root_count, 1, MPI_UNSIGNED_LONG_LONG, 0, comm.get()));
    std::vector<unsigned long long> root_values(values.begin(), values.end());
    root_values.resize(root_count);
    LARCH_MPI_CHECK(MPI_Bcast(root_values.data(), static_cast<int>(root_count), MPI_UNSIGNED_LONG_LONG, 0, comm.get()));
    comm.check_on_every_process([&] {
        const auto prefix = std::string{context} + ": process " + std::to_string(comm.rank()) + " passed ";
        LARCH_ENSURE(root_count == count, BadInput,
                     prefix + std::to_string(count) + " values but process 0 " + std::to_string(root_count) +
                         " (every process must pass the same)");
        const auto differs = std::mismatch(values.begin(), values.end(), root_values.begin());
        const auto k = static_cast<size_type>(differs.first - values.begin());
        LARCH_ENSURE(differs.first == values.end(), BadInput,
                     prefix + (count > 1 ? "value " + std::to_string(k) + " = " : std::string{}) +
                         std::to_string(values[k]) + " but process 0 " + std::to_string(root_values[k]) +
                         " (every process must pass the same)");
    });
}

}  // namespace

Partition::Partition(std::shared_ptr<const mpi::communicator> comm, std::vector<size_type> offsets)
    : comm_{std::move(comm)}, offsets_{std::move(offsets)}
{}

std::shared_ptr<const Partition> Partition::create_uniform(std::shared_ptr<const mpi::communicator> comm,
                                                           size_type global_rows)
{
    LARCH_ENSURE(comm, BadInput, "Partition::create_uniform: the communicator is null");
    check_same_everywhere(*comm, "Partition::create_uniform (global rows)", {global_rows});
    const auto processes = static_cast<size_type>(comm->size());
    std::vector<size_type> offsets(processes + 1, 0);
    for (size_type p = 0; p < processes; ++p) {
        offsets[p + 1] = offsets[p] + global_rows / processes + (p < global_rows % processes ? 1 : 0);
    }
    return std::shared_ptr<const Partition>(new Partition(std::move(comm), std::move(offsets)));
}

std::shared_ptr<const Partition> Partition::create_from_ranges(std::shared_ptr<const mpi::communicator> comm,
                                                               const std::vector<size_type>& offsets)
{
    LARCH_ENSURE(comm, BadInput, "Partition::create_from_ranges: the communicator is null");
    comm->check_on_every_process([&] {
        const auto expected = static_cast<size_type>(comm->size()) + 1;
        LARCH_ENSURE(offsets.size() == expected, BadInput,
                     "Partition::create_from_ranges: " + std::to_string(offsets.size()) + " offsets for " +
                         std::to_string(comm->size()) + " processes, expected " + std::to_string(expected));
        LARCH_ENSURE(offsets.front() == 0, BadInput,
                     "Partition::create_from_ranges: the first offset is " + std::to_string(offsets.front()) +
                         ", expected 0");
        for (size_type p = 0; p + 1 < offsets.size(); ++p) {
            LARCH_ENSURE(offsets[p] <= offsets[p + 1], BadInput,
                         "Partition::create_from_ranges: offset " + std::to_string(p + 1) + " (" +
                             std::to_string(offsets[p + 1]) + ") is below offset " + std::to_string(p) + " (" +
                             std::to_string(offsets[p]) + ")");
        }
    });
    check_same_everywhere(*comm, "Partition::create_from_ranges", offsets);
    return std::shared_ptr<const Partition>(new Partition(std::move(comm), offsets));
}

std::shared_ptr<const Partition> Partition::create_from_local_rows(std::shared_ptr<const mpi::communicator> comm,
                                                                   size_type local_rows)
{
    LARCH_ENSURE(comm, BadInput, "Partition::create_from_local_rows: the communicator is null");
    auto rows = static_cast<unsigned long long>(local_rows);
    std::vector<unsigned long long> all(static_cast<size_type>(comm->size()));
    LARCH_MPI_CHECK(MPI_Allgather(&rows, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, comm->get()));
    std::vector<size_type> offsets(all.size() + 1, 0);
    for (size_type p = 0; p < all.size(); ++p) {
        offsets[p + 1] = offsets[p] + all[p];
    }
    return std::shared_ptr<const Partition>(new Partition(std::move(comm), std::move(offsets)));
}

int Partition::get_owner(size_type row) const
{
    // The last process whose block starts at or before `row` and is not empty.
    const auto after = std::upper_bound(offsets_.begin(), offsets_.end(), row);
    return static_cast<int>(after - offsets_.begin()) - 1;
}

bool Partition::operator==(const Partition& other) const
{
    return offsets_ == other.offsets_ && comm_->get() == other.comm_->get();
}

}  // namespace distributed
}  // namespace larch
