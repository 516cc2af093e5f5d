// BatchLinOp<T>: a batch of independent linear operators applied item by item to a batch::Vector.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/base/types.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace batch {
namespace detail {

/**
 * The size ids (BatchLinOp::get_item_sizes_id, ItemLayout::get_id) of an operator and of the b and x
 * layouts that last passed its per-item checks together, so that applying it again to operands of those
 * layouts skips the O(num_items) pass. One id means the same sizes, so a remembered triple stays valid
 * however the operator or its system matrix is assigned later. The b and x checks are independent of each
 * other, so concurrent applies of one operator (whose sizes cannot change meanwhile) may leave any mix of
 * ids that passed. A copy starts empty (atomics are not copied).
 */
class CheckedLayouts {
public:
    CheckedLayouts() = default;
    CheckedLayouts(const CheckedLayouts&) noexcept {}
    CheckedLayouts& operator=(const CheckedLayouts&) noexcept
    {
        remember(0, 0, 0);
        return *this;
    }

    bool contains(std::uint64_t sizes_id, std::uint64_t b_id, std::uint64_t x_id) const noexcept
    {
        return sizes_.load(std::memory_order_relaxed) == sizes_id && b_.load(std::memory_order_relaxed) == b_id &&
               x_.load(std::memory_order_relaxed) == x_id;
    }
    void remember(std::uint64_t sizes_id, std::uint64_t b_id, std::uint64_t x_id) noexcept
    {
        sizes_.store(sizes_id, std::memory_order_relaxed);
        b_.store(b_id, std::memory_order_relaxed);
        x_.store(x_id, std::memory_order_relaxed);
    }

private:
    std::atomic<std::uint64_t> sizes_{0};
    std::atomic<std::uint64_t> b_{0};
    std::atomic<std::uint64_t> x_{0};
};

}  // namespace detail

/**
 * A batch of operators A_i; apply(b, x) computes x_i = A_i b_i for every item i. Sizes and executors
 * are checked in apply() before any kernel runs: DimensionMismatch names the first offending item and
 * both sizes (the per-item pass runs once per operator and pair of operand layouts, see
 * detail::CheckedLayouts); BadInput when x is b (no batched operator computes in place); operands on
 * another executor are used in place where this operator's executor can address their memory (reference
 * and omp share host memory), otherwise NotSupported.
 */
template <typename T>
class BatchLinOp {
public:
    static_assert(is_instantiated_value_type<T>, LARCH_VALUE_TYPE_MESSAGE);
    virtual ~BatchLinOp() = default;

    /// x_i = A_i b_i for every item; b_i has cols(A_i) rows, x_i has rows(A_i) rows and as many
    /// columns as b_i. x must not be the same object as b.
    void apply(const Vector<T>& b, Vector<T>& x) const;

    virtual size_type get_num_items() const = 0;
    /// Rows x columns of every operator, item by item (host data).
    virtual const std::vector<dim2>& get_item_sizes() const = 0;
    /// An id of get_item_sizes() (the layout's, ItemLayout::get_id): whenever the sizes change, so does
    /// the id, and one id means the same sizes. apply() remembers the ids whose sizes it checked. The
    /// default draws a new id on every call, so an operator that does not override it gets its
    /// per-item size checks on every apply (correct whatever its sizes do, at one pass over the items);
    /// larch's operators return their layout's id.
    virtual std::uint64_t get_item_sizes_id() const { return detail::new_layout_id(); }
    /// Rows x columns of operator `item`.
    dim2 get_item_size(size_type item) const { return get_item_sizes().at(item); }
    /// A short name for messages ("batch::Dense<double>", ...).
    virtual std::string get_type_name() const = 0;

    const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }

protected:
    explicit BatchLinOp(std::shared_ptr<const Executor> exec) : exec_{std::move(exec)} {}
    BatchLinOp(const BatchLinOp&) = default;
    BatchLinOp& operator=(const BatchLinOp&) = default;

    /// Called after validation.
    virtual void apply_impl(const Vector<T>& b, Vector<T>& x) const = 0;

    /// The checks of apply() (item counts, columns, per-item sizes, aliasing, executors), for derived
    /// classes that offer further apply forms such as x_i = alpha A_i b_i + beta x_i.
    void validate_apply(const Vector<T>& b, const Vector<T>& x) const;

private:
    /// The per-item part of validate_apply (b and x have as many items as the operator).
    void check_item_sizes(const Vector<T>& b, const Vector<T>& x) const;
    /// "<type name>::apply", the prefix of the checks' messages (built only when one fails).
    std::string message_prefix() const;

    std::shared_ptr<const Executor> exec_;
    mutable detail::CheckedLayouts checked_;
};

}  // namespace batch
}  // namespace larch
