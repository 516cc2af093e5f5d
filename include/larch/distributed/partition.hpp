// distributed::Partition: which contiguous block of global rows each process of a communicator owns.
#pragma once

#include <memory>
#include <vector>

#include "larch/base/types.hpp"
#include "larch/distributed/communicator.hpp"

namespace larch {
namespace distributed {

/**
 * A row partition: process p owns the global rows [offsets[p], offsets[p + 1]). Blocks may be empty (a
 * process that owns no row) and of any size. Creation is collective and validated on every process
 * together: bad or differing input throws BadInput on every process (ProcessGroup::check_on_every_process).
 */
class Partition {
public:
    /// `global_rows` rows in blocks that differ by at most one row (the first global_rows % size get one
    /// more). Throws BadInput on every process when the processes pass different sizes.
    static std::shared_ptr<const Partition> create_uniform(std::shared_ptr<const mpi::communicator> comm,
                                                           size_type global_rows);
    /// From the block boundaries: size + 1 offsets, starting at 0, never decreasing, the same on every
    /// process. Throws BadInput on every process otherwise.
    static std::shared_ptr<const Partition> create_from_ranges(std::shared_ptr<const mpi::communicator> comm,
                                                               const std::vector<size_type>& offsets);
    /// From each process's number of rows (gathered, in rank order).
    static std::shared_ptr<const Partition> create_from_local_rows(
        std::shared_ptr<const mpi::communicator> comm, size_type local_rows);

    const std::shared_ptr<const mpi::communicator>& get_communicator() const noexcept { return comm_; }
    size_type get_global_rows() const noexcept { return offsets_.back(); }
    /// The first global row of process `process`, and its number of rows.
    size_type get_begin(int process) const { return offsets_.at(static_cast<size_type>(process)); }
    size_type get_local_rows(int process) const { return get_begin(process + 1) - get_begin(process); }
    /// This process's first row and number of rows.
    size_type get_local_begin() const { return get_begin(comm_->rank()); }
    size_type get_local_rows() const { return get_local_rows(comm_->rank()); }
    /// The process owning global row `row` (< get_global_rows()): a binary search, O(log size).
    int get_owner(size_type row) const;
    const std::vector<size_type>& get_offsets() const noexcept { return offsets_; }
    /// Whether both describe the same blocks on the same communicator.
    bool operator==(const Partition& other) const;
    bool operator!=(const Partition& other) const { return !(*this == other); }

private:
    Partition(std::shared_ptr<const mpi::communicator> comm, std::vector<size_type> offsets);

    std::shared_ptr<const mpi::communicator> comm_;
    std::vector<size_type> offsets_;
};

}  // namespace distributed
}  // namespace larch
