// batch::ItemLayout: the sizes of the items of a batch and where each item starts in the batch's one
// contiguous value array; shared by batch::Dense and batch::Vector.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/executor.hpp"
#include "larch/base/types.hpp"

namespace larch {
namespace batch {
namespace detail {

/// A new id for a layout's item sizes (ItemLayout::get_id, SparseLayout::get_id); 0 is never drawn.
std::uint64_t new_layout_id() noexcept;

}  // namespace detail

/**
 * Per-item sizes (rows x cols, every item at least 1x1) and the prefix sums that locate the items.
 * Item i occupies values [offset(i), offset(i + 1)) of its batch, stored ROW-MAJOR without padding:
 * entry (r, c) of item i is at offset(i) + r * cols_i + c. Row offsets (prefix sums of the row counts)
 * locate per-row data such as Gauss-Huard pivots. A host copy of every size and offset is kept for
 * validation; the executor copies are what kernels read. Creation costs O(num_items) on the host plus
 * one copy of 24 bytes per item to the executor (32 for a variable layout: its size-class lists).
 */
class ItemLayout {
public:
    /// An empty layout (no items) on `exec`.
    explicit ItemLayout(std::shared_ptr<const Executor> exec);
    /// The layout of items of the given sizes on `exec`. Throws BadInput for an item with no rows or
    /// no columns (the message names the item).
    ItemLayout(std::shared_ptr<const Executor> exec, std::vector<dim2> sizes);

    /// The same layout with its executor arrays on `exec`.
    ItemLayout clone_to(std::shared_ptr<const Executor> exec) const;

    const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }
    size_type get_num_items() const noexcept { return sizes_.size(); }
    /// Size of item `item` (host data, no executor access).
    dim2 get_size(size_type item) const { return sizes_.at(item); }
    /// All item sizes (host data).
    const std::vector<dim2>& get_sizes() const noexcept { return sizes_; }
    /// Largest row count and largest column count over all items ({0, 0} for an empty batch).
    dim2 get_max_size() const noexcept { return max_size_; }
    /// True if all items have the same size (kernels may take a faster path); true for empty batches.
    bool is_uniform() const noexcept { return uniform_; }
    /// True if every item is square.
    bool is_square() const noexcept { return square_; }
    /// Total number of values of all items.
    size_type get_num_elements() const noexcept
    {
        return static_cast<size_type>(host_offsets_.back());
    }
    /// Total number of rows of all items.
    size_type get_num_rows() const noexcept
    {
        return static_cast<size_type>(host_row_offsets_.back());
    }
    /// Host copy of the value offset of `item` (item == num_items gives the total).
    std::int64_t get_offset(size_type item) const { return host_offsets_.at(item); }
    /// Host copy of the row offset of `item` (item == num_items gives the total).
    std::int64_t get_row_offset(size_type item) const { return host_row_offsets_.at(item); }

    /// Executor memory: num_items row counts.
    const std::int32_t* get_const_rows() const noexcept { return rows_.get_const_data(); }
    /// Executor memory: num_items column counts.
    const std::int32_t* get_const_cols() const noexcept { return cols_.get_const_data(); }
    /// Executor memory: num_items + 1 value offsets (prefix sums of rows_i * cols_i).
    const std::int64_t* get_const_offsets() const noexcept { return offsets_.get_const_data(); }
    /// Executor memory: num_items + 1 row offsets (prefix sums of rows_i).
    const std::int64_t* get_const_row_offsets() const noexcept
    {
        return row_offsets_.get_const_data();
    }

    /// Size classes of the register kernels: class c < 6 holds the items whose larger dimension is in
    /// (2^(c-1), 2^c] (class 0: 1 x 1), class 6 those with a dimension above 32. A kernel launched once
    /// per class runs each item on a sub-warp of the class's size instead of the largest item's.
    static constexpr int num_size_classes = 7;
    /// The class of an item whose larger dimension is `extent` (>= 1).
    static int size_class_of(size_type extent) noexcept
    {
        int size_class = 0;
        while (size_class + 1 < num_size_classes && (size_type{1} << size_class) < extent) {
            ++size_class;
        }
        return size_class;
    }
    /// Number of items of class `size_class`.
    size_type get_class_size(int size_class) const
    {
        return static_cast<size_type>(host_class_offsets_.at(size_class + 1) -
                                      host_class_offsets_.at(size_class));
    }
    /// Executor memory: the indices of the items of class `size_class`, ascending; null for a uniform
    /// layout (its one class holds every item in order, so kernels need no list).
    const std::int64_t* get_const_class_items(int size_class) const
    {
        return uniform_ ? nullptr
                        : class_items_.get_const_data() + host_class_offsets_.at(size_class);
    }

    /// An id of this layout's sizes: every construction from sizes draws a new one, copies and clone_to
    /// keep it, so two layouts with one id have the same sizes (different ids say nothing). Operators
    /// remember the ids of the operands whose sizes they checked (BatchLinOp::apply).
    std::uint64_t get_id() const noexcept { return id_; }

    /// True if both layouts describe the same item sizes: O(1) for copies of one layout (same id) and
    /// when both are uniform, O(num_items) otherwise.
    bool same_sizes(const ItemLayout& other) const
    {
        if (id_ == other.id_) {
            return true;
        }
        if (uniform_ && other.uniform_) {
            return sizes_.size() == other.sizes_.size() &&
                   (sizes_.empty() || sizes_.front() == other.sizes_.front());
        }
        return sizes_ == other.sizes_;
    }

private:
    void group_by_size_class();

    std::shared_ptr<const Executor> exec_;
    std::uint64_t id_;
    std::vector<dim2> sizes_;
    std::vector<std::int64_t> host_offsets_;
    std::vector<std::int64_t> host_row_offsets_;
    dim2 max_size_;
    bool uniform_ = true;
    bool square_ = true;
    array<std::int32_t> rows_;
    array<std::int32_t> cols_;
    array<std::int64_t> offsets_;
    array<std::int64_t> row_offsets_;
    // Items grouped by size class (stable); built for variable layouts only.
    std::vector<std::int64_t> host_class_offsets_;
    array<std::int64_t> class_items_;
};

}  // namespace batch
}  // namespace larch
