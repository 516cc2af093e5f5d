// batch::Dense<T>: a batch of small dense matrices whose sizes may all differ, in one contiguous array.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/batch/batch_lin_op.hpp"
#include "larch/batch/item_layout.hpp"
#include "larch/batch/vector.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace batch {

/**
 * A batch of dense matrices A_0 .. A_{k-1}, item i of size rows_i x cols_i (square for inversion,
 * Gauss-Huard and condition numbers; rectangular allowed for storage, norms and apply). Items are
 * stored ROW-MAJOR, one after the other, in one array: entry (r, c) of item i is at
 * get_layout().get_offset(i) + r * cols_i + c. A uniform batch is simply one whose sizes are all
 * equal (get_layout().is_uniform()). As a BatchLinOp it applies every item to its vector (batched
 * GEMV/GEMM) on every backend.
 */
template <typename T>
class Dense : public BatchLinOp<T> {
public:
    using value_type = T;

    /// Uninitialized items of the given sizes on `exec`. Throws BadInput for an empty item.
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec,
                                         std::vector<dim2> sizes);
    /// Items filled from host values (items concatenated, each row-major). Throws DimensionMismatch
    /// if `values` does not hold exactly the number of entries of the items.
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec,
                                         std::vector<dim2> sizes, const std::vector<T>& values);
    /// Items over existing values (moved in, copied to `exec` if they live elsewhere). Throws
    /// DimensionMismatch if the array size differs from the number of entries of the items.
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec,
                                         std::vector<dim2> sizes, array<T> values);
    /// A batch whose items are copies of `items` (matrices on any executor). Throws BadInput for a
    /// null or empty item.
    static std::unique_ptr<Dense> create_from_items(
        std::shared_ptr<const Executor> exec, const std::vector<const matrix::Dense<T>*>& items);
    /// Uninitialized items of the same sizes as `other` on `exec`.
    static std::unique_ptr<Dense> create_with_layout_of(std::shared_ptr<const Executor> exec,
                                                        const Dense& other);

    /// A deep copy on `exec`.
    std::unique_ptr<Dense> clone_to(std::shared_ptr<const Executor> exec) const;
    /// this = other; the item sizes must match (DimensionMismatch otherwise); other on any executor.
    void copy_from(const Dense& other);

    /// A matrix::Dense viewing item `item` (writes through the view change this batch); on any
    /// executor. The view must not outlive this batch. Throws BadInput for an item index out of range.
    std::unique_ptr<matrix::Dense<T>> create_item_view(size_type item);
    /// Entries of one item, row-major, copied to the host.
    std::vector<T> copy_item_to_host(size_type item) const;
    /// All entries (items concatenated, row-major) copied to the host.
    std::vector<T> copy_to_host() const { return values_.copy_to_host(); }

    const ItemLayout& get_layout() const noexcept { return layout_; }
    size_type get_num_items() const override { return layout_.get_num_items(); }
    const std::vector<dim2>& get_item_sizes() const override { return layout_.get_sizes(); }
    std::uint64_t get_item_sizes_id() const override { return layout_.get_id(); }
    /// Largest row count and largest column count over all items (for the sub-warp choice of kernels).
    dim2 get_max_item_size() const noexcept { return layout_.get_max_size(); }
    T* get_values() noexcept { return values_.get_data(); }
    const T* get_const_values() const noexcept { return values_.get_const_data(); }

    std::string get_type_name() const override;

protected:
    void apply_impl(const Vector<T>& b, Vector<T>& x) const override;

private:
    Dense(ItemLayout layout, array<T> values);

    ItemLayout layout_;
    array<T> values_;
};

}  // namespace batch
}  // namespace larch
