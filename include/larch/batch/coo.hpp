// batch::Coo<T, I>: a batch of small coordinate-format matrices, every item with its own size, nonzeros
// and pattern.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/batch/batch_lin_op.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/sparse_items.hpp"
#include "larch/batch/sparse_layout.hpp"
#include "larch/batch/vector.hpp"
#include "larch/matrix/coo.hpp"

namespace larch {
namespace batch {

/**
 * A batch of COO matrices: item i's values, row and column indices (item-local, sorted by row, then
 * column, unique) start at get_layout().get_stored_offset(i), or at 0 in the index arrays when the
 * items share one pattern (stored once). On CUDA/HIP apply runs one thread block per item, each warp
 * a contiguous run of nonzeros: products summed by a segmented warp scan keyed by the row, one atomic
 * add per row run (Anzt et al. 2017, flexible batched SpMV). Creation, conversion, copies and errors as batch::Csr.
 */
template <typename T, typename I = std::int32_t>
class Coo : public BatchLinOp<T> {
public:
    static_assert(is_instantiated_index_type<I>, LARCH_INDEX_TYPE_MESSAGE);
    using value_type = T;
    using index_type = I;

    /// As batch::Csr::create.
    static std::unique_ptr<Coo> create(std::shared_ptr<const Executor> exec,
                                       const std::vector<matrix_data<T, I>>& items,
                                       PatternSharing sharing = PatternSharing::detect);
    /// As batch::Csr::create_from_items.
    template <typename Matrix>
    static std::unique_ptr<Coo> create_from_items(std::shared_ptr<const Executor> exec,
                                                  const std::vector<const Matrix*>& items,
                                                  PatternSharing sharing = PatternSharing::detect)
    {
        return create(std::move(exec),
                      detail::items_to_data<T, I>(items, "batch::Coo::create_from_items"), sharing);
    }
    /// A conversion from batch::Csr or batch::Ell (padding dropped); a shared pattern stays shared.
    template <typename Batch>
    static std::unique_ptr<Coo> create_from(std::shared_ptr<const Executor> exec, const Batch& source)
    {
        return create(std::move(exec), source.to_data(),
                      source.get_layout().has_shared_pattern() ? PatternSharing::shared
                                                               : PatternSharing::per_item);
    }

    std::unique_ptr<Coo> clone_to(std::shared_ptr<const Executor> exec) const;
    std::vector<matrix_data<T, I>> to_data() const;
    std::unique_ptr<Dense<T>> to_dense() const;
    /// A copy of item `item` as a matrix::Coo on this batch's executor; BadInput if out of range.
    std::unique_ptr<matrix::Coo<T, I>> create_item(size_type item) const;

    using BatchLinOp<T>::apply;
    /// x_i = alpha A_i b_i + beta x_i (beta == 0: x is only written). Checks as apply(b, x).
    void apply(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const;

    const SparseLayout& get_layout() const noexcept { return layout_; }
    size_type get_num_items() const override { return layout_.get_num_items(); }
    const std::vector<dim2>& get_item_sizes() const override { return layout_.get_sizes(); }
    std::uint64_t get_item_sizes_id() const override { return layout_.get_id(); }
    T* get_values() noexcept { return values_.get_data(); }
    const T* get_const_values() const noexcept { return values_.get_const_data(); }
    const I* get_const_row_idxs() const noexcept { return row_idxs_.get_const_data(); }
    const I* get_const_col_idxs() const noexcept { return col_idxs_.get_const_data(); }

    std::string get_type_name() const override;

protected:
    void apply_impl(const Vector<T>& b, Vector<T>& x) const override;

private:
    /// Items [first, last) as coordinate data, copying only their part of the arrays to the host.
    std::vector<matrix_data<T, I>> to_data(size_type first, size_type last) const;
    /// The kernel launch of both applies, after validation.
    void run_spmv(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const;

    Coo(SparseLayout layout, array<T> values, array<I> row_idxs, array<I> col_idxs);

    SparseLayout layout_;
    array<T> values_;
    array<I> row_idxs_;
    array<I> col_idxs_;
};

}  // namespace batch
}  // namespace larch
