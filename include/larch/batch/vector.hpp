// batch::Vector<T>: one small multi-vector (rows_i x num_cols) per batch item, the operand of a BatchLinOp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/types.hpp"
#include "larch/batch/item_layout.hpp"

namespace larch {
namespace batch {

/**
 * A batch of multi-vectors: item i has rows_i rows and num_cols columns (the same for every item),
 * stored row-major in one contiguous array (entry (r, c) of item i at layout offset(i) + r * num_cols + c).
 * Lives on one executor; copies to another are explicit (clone_to). Throws BadInput for an item with
 * no rows or a zero num_cols.
 */
template <typename T>
class Vector {
public:
    static_assert(is_instantiated_value_type<T>, LARCH_VALUE_TYPE_MESSAGE);
    using value_type = T;

    /// Uninitialized items of `item_rows[i]` rows and `num_cols` columns on `exec`.
    static std::unique_ptr<Vector> create(std::shared_ptr<const Executor> exec,
                                          const std::vector<size_type>& item_rows,
                                          size_type num_cols = 1);
    /// Items filled from host values (all items concatenated, each row-major). Throws
    /// DimensionMismatch if `values` does not hold exactly the number of entries of the items.
    static std::unique_ptr<Vector> create(std::shared_ptr<const Executor> exec,
                                          const std::vector<size_type>& item_rows,
                                          size_type num_cols, const std::vector<T>& values);
    /// Items of the same sizes as `other`, uninitialized, on `exec`.
    static std::unique_ptr<Vector> create_with_layout_of(std::shared_ptr<const Executor> exec,
                                                         const Vector& other);

    /// A deep copy on `exec`.
    std::unique_ptr<Vector> clone_to(std::shared_ptr<const Executor> exec) const;

    const std::shared_ptr<const Executor>& get_executor() const noexcept
    {
        return values_.get_executor();
    }
    const ItemLayout& get_layout() const noexcept { return layout_; }
    size_type get_num_items() const noexcept { return layout_.get_num_items(); }
    size_type get_num_cols() const noexcept { return num_cols_; }
    /// Rows x num_cols of item `item`.
    dim2 get_item_size(size_type item) const { return layout_.get_size(item); }

    T* get_values() noexcept { return values_.get_data(); }
    const T* get_const_values() const noexcept { return values_.get_const_data(); }
    /// All entries (items concatenated, row-major) copied to the host.
    std::vector<T> copy_to_host() const { return values_.copy_to_host(); }
    /// Entries of one item, row-major, copied to the host.
    std::vector<T> copy_item_to_host(size_type item) const;
    /// Every entry set to `value` (through a host buffer copied to the executor).
    void fill(T value);

    std::string get_type_name() const;

private:
    Vector(ItemLayout layout, size_type num_cols, array<T> values);

    ItemLayout layout_;
    size_type num_cols_;
    array<T> values_;
};

}  // namespace batch
}  // namespace larch
