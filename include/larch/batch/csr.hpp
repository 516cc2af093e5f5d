// batch::Csr<T, I>: a batch of small CSR matrices, every item with its own size, nonzeros and pattern.
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
#include "larch/matrix/csr.hpp"

namespace larch {
namespace batch {

/**
 * The SpMV kernel a batch::Csr applies with on CUDA/HIP (reference and omp run one plain loop per
 * item whatever is chosen). Every kernel runs one thread block per item (Anzt et al. 2017, flexible batched SpMV):
 */
enum class CsrSpmvKernel {
    automatic,  ///< one fixed kernel per batch, chosen at creation (get_automatic_kernel): scalar
                ///< where every item's rows hold fewer than 16 nonzeros on average, else smart where
                ///< no row is longer than twice the batch's mean, else stream
    scalar,     ///< one thread per row
    vector,     ///< one 32-lane warp per row, warp reduction
    smart,      ///< one sub-warp per row, its size the power of two >= the item's nnz / rows / 4 (each
                ///< lane loads 4 of its row's entries at once)
    balanced,   ///< equal nonzeros per warp (row splits precomputed at creation), segmented scan
    stream,     ///< coalesced chunks of nonzeros, products in shared memory, rows summed there by sub-warps
                ///< sized to the chunk's row count
};

/// "automatic", "scalar", "vector", "smart", "balanced", "stream".
std::string to_string(CsrSpmvKernel kernel);
/// The kernel of that name; BadInput listing the names otherwise.
CsrSpmvKernel csr_spmv_kernel_from_string(const std::string& name);

/**
 * A batch of CSR matrices A_0 .. A_{k-1}. Item i's values and column indices start at
 * get_layout().get_stored_offset(i); its rows_i + 1 row pointers (item-local: starting at 0) start at
 * get_row_ptrs_offset(i). Column indices are item-local, sorted and unique within a row. With a shared
 * pattern (get_layout().has_shared_pattern()) row pointers and column indices are stored once and every
 * item's offset into them is 0; only the values differ per item.
 *
 * Creation validates every item on the host (BadInput naming the item and the entry). Conversions go
 * through host coordinate data (O(nnz) copies). As a BatchLinOp it applies x_i = A_i b_i, and
 * apply(alpha, b, beta, x) computes x_i = alpha A_i b_i + beta x_i, on every backend.
 */
template <typename T, typename I = std::int32_t>
class Csr : public BatchLinOp<T> {
public:
    static_assert(is_instantiated_index_type<I>, LARCH_INDEX_TYPE_MESSAGE);
    using value_type = T;
    using index_type = I;
    /// Nonzero segments per item of the balanced kernel: one per 32-lane group of a 256-thread block;
    /// smaller blocks (small items) let each group take several segments.
    static constexpr int balanced_segments = 8;

    /// A batch of the given items (duplicates summed, explicit zeros kept). Throws BadInput naming the
    /// item and the entry for an entry outside its item, an empty item, finite duplicates whose sum
    /// overflows T, or (PatternSharing::shared) an item whose pattern differs from item 0's.
    static std::unique_ptr<Csr> create(std::shared_ptr<const Executor> exec,
                                       const std::vector<matrix_data<T, I>>& items,
                                       PatternSharing sharing = PatternSharing::detect);
    /// A batch whose items are copies of single matrices (matrix::Csr, Coo, Ell or Dense, on any
    /// executor; zeros of Dense items dropped). Throws BadInput for a null item, else as create.
    template <typename Matrix>
    static std::unique_ptr<Csr> create_from_items(std::shared_ptr<const Executor> exec,
                                                  const std::vector<const Matrix*>& items,
                                                  PatternSharing sharing = PatternSharing::detect)
    {
        return create(std::move(exec),
                      detail::items_to_data<T, I>(items, "batch::Csr::create_from_items"), sharing);
    }
    /// A conversion from another batched sparse format (batch::Coo, batch::Ell); a shared pattern stays
    /// shared. Padding of Ell is dropped.
    template <typename Batch>
    static std::unique_ptr<Csr> create_from(std::shared_ptr<const Executor> exec, const Batch& source)
    {
        return create(std::move(exec), source.to_data(),
                      source.get_layout().has_shared_pattern() ? PatternSharing::shared
                                                               : PatternSharing::per_item);
    }

    /// A deep copy on `exec` (the kernel choice is kept).
    std::unique_ptr<Csr> clone_to(std::shared_ptr<const Executor> exec) const;
    /// Every item as coordinate data on the host.
    std::vector<matrix_data<T, I>> to_data() const;
    /// The batch as batch::Dense (zeros filled in) on the same executor.
    std::unique_ptr<Dense<T>> to_dense() const;
    /// A copy of item `item` as a matrix::Csr on this batch's executor; BadInput if out of range.
    std::unique_ptr<matrix::Csr<T, I>> create_item(size_type item) const;

    using BatchLinOp<T>::apply;
    /// x_i = alpha A_i b_i + beta x_i (beta == 0: x is only written, so NaNs in x do not propagate).
    /// Checks as apply(b, x).
    void apply(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const;

    /// The kernel apply runs on CUDA/HIP.
    void set_spmv_kernel(CsrSpmvKernel kernel) noexcept { kernel_ = kernel; }
    CsrSpmvKernel get_spmv_kernel() const noexcept { return kernel_; }

    const SparseLayout& get_layout() const noexcept { return layout_; }
    size_type get_num_items() const override { return layout_.get_num_items(); }
    const std::vector<dim2>& get_item_sizes() const override { return layout_.get_sizes(); }
    std::uint64_t get_item_sizes_id() const override { return layout_.get_id(); }
    /// Offset of item `item`'s row pointers in get_const_row_ptrs() (0 with a shared pattern).
    std::int64_t get_row_ptrs_offset(size_type item) const
    {
        return layout_.has_shared_pattern()
                   ? 0
                   : layout_.get_row_offset(item) + static_cast<std::int64_t>(item);
    }
    T* get_values() noexcept { return values_.get_data(); }
    const T* get_const_values() const noexcept { return values_.get_const_data(); }
    const I* get_const_col_idxs() const noexcept { return col_idxs_.get_const_data(); }
    const I* get_const_row_ptrs() const noexcept { return row_ptrs_.get_const_data(); }
    /// Widest item for which the column indices are also kept in 16 bits.
    static constexpr size_type max_narrow_cols = 65536;
    /// The column indices narrowed to 16 bits, at the same positions as get_const_col_idxs(), or null.
    /// Kept on GPU executors (not on host ones) when no item has more than max_narrow_cols columns; the
    /// CUDA/HIP kernels then read these instead of the 32-bit indices, so a double batch moves 10 instead
    /// of 12 bytes per stored entry (float: 6 instead of 8), for 2 bytes per stored pattern entry of
    /// extra executor memory. Item-local indices make this possible where a block-diagonal join of the
    /// items, whose column indices span the whole batch, cannot.
    const std::uint16_t* get_const_narrow_col_idxs() const noexcept
    {
        return narrow_col_idxs_.get_size() > 0 ? narrow_col_idxs_.get_const_data() : nullptr;
    }
    /// Executor memory, balanced_segments + 1 item-local rows per item: segment s of item i holds
    /// its nonzeros [s * nnz_i / S, (s + 1) * nnz_i / S), which start in row entry (S + 1) i + s.
    const I* get_const_balanced_row_starts() const noexcept
    {
        return balanced_row_starts_.get_const_data();
    }
    /// The kernel automatic runs the batch with: scalar when every item's rows hold fewer than 16
    /// nonzeros on average, else smart when no row is longer than twice the batch's mean
    /// (get_max_row_nnz, get_mean_row_nnz), else stream (core/batch/csr.cpp gives the measurements).
    CsrSpmvKernel get_automatic_kernel() const noexcept { return automatic_kernel_; }
    /// Nonzeros per row over the whole batch (total nnz / total rows; host data).
    double get_mean_row_nnz() const noexcept { return mean_row_nnz_; }
    /// The longest row of any item (host data).
    size_type get_max_row_nnz() const noexcept { return max_row_nnz_; }

    std::string get_type_name() const override;

protected:
    void apply_impl(const Vector<T>& b, Vector<T>& x) const override;

private:
    Csr(SparseLayout layout, array<T> values, array<I> col_idxs, array<std::uint16_t> narrow_col_idxs,
        array<I> row_ptrs, array<I> balanced_row_starts);
    /// Items [first, last) as coordinate data, copying only their part of the arrays to the host.
    std::vector<matrix_data<T, I>> to_data(size_type first, size_type last) const;
    /// The kernel launch of both applies, after validation.
    void run_spmv(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const;

    SparseLayout layout_;
    array<T> values_;
    array<I> col_idxs_;
    array<std::uint16_t> narrow_col_idxs_;
    array<I> row_ptrs_;
    array<I> balanced_row_starts_;
    CsrSpmvKernel automatic_kernel_ = CsrSpmvKernel::scalar;
    double mean_row_nnz_ = 0.0;
    size_type max_row_nnz_ = 0;
    CsrSpmvKernel kernel_ = CsrSpmvKernel::automatic;
};

}  // namespace batch
}  // namespace larch
