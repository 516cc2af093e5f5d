// BatchLinOp<T>: a batch of independent linear operators applied item by item to a batch::Vector.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/base/types.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace batch {

/**
 * A batch of operators A_i; apply(b, x) computes x_i = A_i b_i for every item i. Sizes and executors
 * are checked in apply() before any kernel runs: DimensionMismatch names the first offending item and
 * both sizes; BadInput when x is b (no batched operator computes in place); operands on another executor
 * are used in place where this operator's executor can address their memory (reference and omp share host
 * memory), otherwise NotSupported.
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
    std::shared_ptr<const Executor> exec_;
};

}  // namespace batch
}  // namespace larch
