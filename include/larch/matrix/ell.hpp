// matrix::Ell<V, I>: ELLPACK storage, every row padded to the same number of entries, column-major so
// that consecutive threads (rows) read consecutive addresses.
#pragma once

#include <memory>

#include "larch/base/array.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace matrix {

template <typename V, typename I>
class Csr;
template <typename V, typename I>
class Coo;

/**
 * ELL matrix: entry k of row i is at [k * stride + i] (stride >= rows) in values and col_idxs; a padding
 * slot has column index -1 (invalid_index) and value 0. num_stored_per_row is the longest row.
 * As a LinOp: SpMV on every backend. Conversions to and from Coo and Dense, and transpose, go through
 * Csr (cost: one extra conversion).
 */
template <typename V, typename I = std::int32_t>
class Ell : public LinOp {
public:
    static_assert(is_instantiated_value_type<V>, LARCH_VALUE_TYPE_MESSAGE);
    static_assert(is_instantiated_index_type<I>, LARCH_INDEX_TYPE_MESSAGE);
    using value_type = V;
    using index_type = I;
    static constexpr I invalid_index = -1;

    static std::unique_ptr<Ell> create(std::shared_ptr<const Executor> exec, dim2 size = {},
                                       size_type num_stored_per_row = 0, size_type stride = 0);
    /// A matrix over existing arrays (stride * num_stored_per_row entries each, moved if they live on
    /// `exec`, copied otherwise); validated on the host: BadInput naming the array, position and value
    /// unless each row holds its entries first, with strictly increasing columns in [0, cols), then only
    /// padding (invalid_index). Slots of rows [rows, stride) are never read.
    static std::unique_ptr<Ell> create(std::shared_ptr<const Executor> exec, dim2 size,
                                       array<V> values, array<I> col_idxs,
                                       size_type num_stored_per_row, size_type stride);
    /// A matrix from coordinate data, as Csr's: duplicates summed (BadInput naming the position where finite
    /// ones add up past V's range), explicit zeros kept.
    static std::unique_ptr<Ell> create(std::shared_ptr<const Executor> exec,
                                       const matrix_data<V, I>& data);
    static std::unique_ptr<Ell> create_from(std::shared_ptr<const Executor> exec, const Csr<V, I>& source);
    static std::unique_ptr<Ell> create_from(std::shared_ptr<const Executor> exec, const Coo<V, I>& source);
    static std::unique_ptr<Ell> create_from(std::shared_ptr<const Executor> exec, const Dense<V>& source);

    std::unique_ptr<Dense<V>> to_dense() const;
    matrix_data<V, I> to_data() const;
    std::unique_ptr<Ell> transpose() const;

    size_type get_num_stored_per_row() const noexcept { return num_stored_per_row_; }
    size_type get_stride() const noexcept { return stride_; }
    size_type get_num_stored_elements() const noexcept { return values_.get_size(); }
    V* get_values() noexcept { return values_.get_data(); }
    const V* get_const_values() const noexcept { return values_.get_const_data(); }
    I* get_col_idxs() noexcept { return col_idxs_.get_data(); }
    const I* get_const_col_idxs() const noexcept { return col_idxs_.get_const_data(); }

    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Ell(std::shared_ptr<const Executor> exec, dim2 size, array<V> values, array<I> col_idxs,
        size_type num_stored_per_row, size_type stride);

    void apply_impl(const LinOp& b, LinOp& x) const override;
    void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const override;

private:
    array<V> values_;
    array<I> col_idxs_;
    size_type num_stored_per_row_;
    size_type stride_;
};

}  // namespace matrix
}  // namespace larch
