// matrix::Coo<V, I>: coordinate storage (row index, column index, value), sorted by row then column.
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
class Ell;

/**
 * COO matrix: row_idxs, col_idxs, values (nnz each), sorted by (row, column).
 * As a LinOp: SpMV on every backend (on GPUs a segmented reduction over the nonzeros).
 * Conversions to and from Ell and Dense, and transpose, go through Csr (cost: one extra conversion).
 */
template <typename V, typename I = std::int32_t>
class Coo : public LinOp {
public:
    static_assert(is_instantiated_value_type<V>, LARCH_VALUE_TYPE_MESSAGE);
    static_assert(is_instantiated_index_type<I>, LARCH_INDEX_TYPE_MESSAGE);
    using value_type = V;
    using index_type = I;

    static std::unique_ptr<Coo> create(std::shared_ptr<const Executor> exec, dim2 size = {},
                                       size_type num_nonzeros = 0);
    /// A matrix over existing arrays (moved if they live on `exec`, copied otherwise); validated on the
    /// host: BadInput naming the array, position and value for an index outside the matrix or entries
    /// not strictly sorted by (row, column).
    static std::unique_ptr<Coo> create(std::shared_ptr<const Executor> exec, dim2 size,
                                       array<V> values, array<I> col_idxs, array<I> row_idxs);
    /// A matrix from coordinate data, as Csr's: duplicates summed (BadInput naming the position where finite
    /// ones add up past V's range), explicit zeros kept.
    static std::unique_ptr<Coo> create(std::shared_ptr<const Executor> exec,
                                       const matrix_data<V, I>& data);
    static std::unique_ptr<Coo> create_from(std::shared_ptr<const Executor> exec, const Csr<V, I>& source);
    static std::unique_ptr<Coo> create_from(std::shared_ptr<const Executor> exec, const Ell<V, I>& source);
    static std::unique_ptr<Coo> create_from(std::shared_ptr<const Executor> exec, const Dense<V>& source);

    std::unique_ptr<Dense<V>> to_dense() const;
    matrix_data<V, I> to_data() const;
    std::unique_ptr<Coo> transpose() const;

    size_type get_num_stored_elements() const noexcept { return values_.get_size(); }
    V* get_values() noexcept { return values_.get_data(); }
    const V* get_const_values() const noexcept { return values_.get_const_data(); }
    I* get_col_idxs() noexcept { return col_idxs_.get_data(); }
    const I* get_const_col_idxs() const noexcept { return col_idxs_.get_const_data(); }
    I* get_row_idxs() noexcept { return row_idxs_.get_data(); }
    const I* get_const_row_idxs() const noexcept { return row_idxs_.get_const_data(); }

    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Coo(std::shared_ptr<const Executor> exec, dim2 size, array<V> values, array<I> col_idxs,
        array<I> row_idxs);

    void apply_impl(const LinOp& b, LinOp& x) const override;
    void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const override;

private:
    array<V> values_;
    array<I> col_idxs_;
    array<I> row_idxs_;
};

}  // namespace matrix
}  // namespace larch
