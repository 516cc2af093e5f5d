// batch::SparseLayout: item sizes, stored-entry counts and the prefix sums that place the items of a
// batched sparse matrix (batch::Csr, batch::Coo, batch::Ell) in concatenated arrays; and PatternSharing.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/executor.hpp"
#include "larch/base/types.hpp"

namespace larch {
namespace batch {

/// How a batched sparse matrix decides whether its items share one sparsity pattern.
enum class PatternSharing {
    detect,    ///< compare the patterns (O(nnz) on the host) and share when all are equal
    shared,    ///< the caller declares one pattern; creation verifies it and throws BadInput otherwise
    per_item,  ///< every item keeps its own pattern, even when the patterns happen to be equal
};

/**
 * Where the items of a batched sparse matrix live. Item i has size rows_i x cols_i (at least 1 x 1),
 * num_stored_i stored entries (nonzeros for Csr/Coo, rows_i * width_i slots for Ell) at
 * [stored_offset(i), stored_offset(i + 1)) of the value array, and rows_i rows starting at row
 * offset(i) of the batch (b_i and x_i of an apply start there too, times the number of columns).
 * With a shared pattern the index arrays hold item 0's pattern once and every item reads it
 * (every item then has the same size and count). Host copies of all sizes and offsets serve
 * validation; the executor copies are what kernels read. Throws BadInput for an empty item.
 */
class SparseLayout {
public:
    /// An empty layout (no items) on `exec`.
    explicit SparseLayout(std::shared_ptr<const Executor> exec);
    /// The layout of items of the given sizes and stored-entry counts on `exec`.
    SparseLayout(std::shared_ptr<const Executor> exec, std::vector<dim2> sizes,
                 const std::vector<size_type>& num_stored, bool shared_pattern);

    /// The same layout with its executor arrays on `exec`.
    SparseLayout clone_to(std::shared_ptr<const Executor> exec) const;

    const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }
    /// An id of the item sizes, as ItemLayout::get_id: new per construction from sizes, kept by copies and
    /// clone_to, so one id means the same sizes.
    std::uint64_t get_id() const noexcept { return id_; }
    size_type get_num_items() const noexcept { return sizes_.size(); }
    dim2 get_size(size_type item) const { return sizes_.at(item); }
    const std::vector<dim2>& get_sizes() const noexcept { return sizes_; }
    /// Largest row count and largest column count over all items.
    dim2 get_max_size() const noexcept { return max_size_; }
    /// Smallest row count over all items (0 for an empty batch).
    size_type get_min_rows() const noexcept { return min_rows_; }
    /// True if all items share one pattern (stored once).
    bool has_shared_pattern() const noexcept { return shared_pattern_; }
    /// Host copy of the stored-entry offset of `item` (item == num_items gives the total).
    std::int64_t get_stored_offset(size_type item) const { return host_stored_offsets_.at(item); }
    size_type get_num_stored(size_type item) const
    {
        return static_cast<size_type>(host_stored_offsets_.at(item + 1) -
                                      host_stored_offsets_.at(item));
    }
    size_type get_total_stored() const noexcept
    {
        return static_cast<size_type>(host_stored_offsets_.back());
    }
    /// Largest stored-entry count of one item.
    size_type get_max_stored() const noexcept { return max_stored_; }
    /// Host copy of the row offset of `item` (item == num_items gives the total row count).
    std::int64_t get_row_offset(size_type item) const { return host_row_offsets_.at(item); }
    size_type get_total_rows() const noexcept
    {
        return static_cast<size_type>(host_row_offsets_.back());
    }
    size_type get_total_cols() const noexcept { return total_cols_; }

    /// Executor memory: num_items row counts.
    const std::int32_t* get_const_rows() const noexcept { return rows_.get_const_data(); }
    /// Executor memory: num_items column counts.
    const std::int32_t* get_const_cols() const noexcept { return cols_.get_const_data(); }
    /// Executor memory: num_items + 1 stored-entry offsets.
    const std::int64_t* get_const_stored_offsets() const noexcept
    {
        return stored_offsets_.get_const_data();
    }
    /// Executor memory: num_items + 1 row offsets.
    const std::int64_t* get_const_row_offsets() const noexcept
    {
        return row_offsets_.get_const_data();
    }
    /**
     * Executor memory: the item indices by decreasing stored-entry count (ties in item order), or null
     * when every item stores as many entries (the identity order). The GPU kernels that run one thread
     * block per item take their items in this order, so the largest items start first and a launch does
     * not end waiting on one long item (longest-processing-time-first scheduling, Graham 1969).
     */
    const std::int64_t* get_const_work_order() const noexcept
    {
        return work_order_.get_const_data();
    }

private:
    std::shared_ptr<const Executor> exec_;
    std::uint64_t id_;
    std::vector<dim2> sizes_;
    std::vector<std::int64_t> host_stored_offsets_;
    std::vector<std::int64_t> host_row_offsets_;
    dim2 max_size_;
    size_type min_rows_ = 0;
    size_type max_stored_ = 0;
    size_type total_cols_ = 0;
    bool shared_pattern_ = false;
    array<std::int32_t> rows_;
    array<std::int32_t> cols_;
    array<std::int64_t> stored_offsets_;
    array<std::int64_t> row_offsets_;
    array<std::int64_t> work_order_;
};

}  // namespace batch
}  // namespace larch
