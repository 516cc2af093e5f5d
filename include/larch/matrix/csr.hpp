// matrix::Csr<V, I>: compressed sparse row storage, the main sparse format of larch.
#pragma once

#include <atomic>
#include <memory>

#include "larch/base/array.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace matrix {

template <typename V, typename I>
class Coo;
template <typename V, typename I>
class Ell;

/// Which CSR SpMV a device executor uses (host executors have one kernel each).
enum class CsrSpmvAlgorithm {
    /// the faster of the two as measured on the H100 and H200: on CUDA larch's kernel below 2^23 nonzeros,
    /// for several right-hand sides, and for rows of at most 21 entries on average with one right-hand
    /// side, cuSPARSE otherwise; larch's kernel on HIP. The choice looks at the mean row length only: a
    /// matrix of short rows with a few very long ones (an arrow's dense row) runs far faster with `vendor`.
    automatic,
    /// larch's own kernel (the only one on HIP): rows staged in shared memory, up to 32 right-hand sides per
    /// launch; for several right-hand sides, consecutive rows in nodes of 2, 3 or 4 with one pattern (FEM
    /// unknowns of one node; looked for once per matrix, a pass over the pattern) are multiplied together.
    larch,
    vendor,     ///< cuSPARSE on CUDA; NotSupported on HIP
};

/**
 * CSR matrix: row_ptrs (rows + 1), col_idxs and values (nnz), columns sorted within each row.
 * As a LinOp: SpMV x = A b (one or several right-hand sides) and x = alpha A b + beta x on every backend.
 * Creation validates the structure (BadInput for out-of-range indices or non-monotone row pointers).
 */
template <typename V, typename I = std::int32_t>
class Csr : public LinOp {
public:
    static_assert(is_instantiated_value_type<V>, LARCH_VALUE_TYPE_MESSAGE);
    static_assert(is_instantiated_index_type<I>, LARCH_INDEX_TYPE_MESSAGE);
    using value_type = V;
    using index_type = I;

    /// A structure of `num_nonzeros` uninitialized entries (to be filled by the caller) with zero row
    /// pointers, so that the default (no entries) is a valid zero matrix.
    static std::unique_ptr<Csr> create(std::shared_ptr<const Executor> exec, dim2 size = {},
                                       size_type num_nonzeros = 0);
    /// A matrix over existing arrays (moved if they live on `exec`, copied there otherwise). The
    /// structure is validated on the host first: BadInput naming the array, position and value unless
    /// row_ptrs has rows + 1 entries starting at 0, never decreasing and ending at nnz, and the columns
    /// of each row lie in [0, cols) and strictly increase.
    static std::unique_ptr<Csr> create(std::shared_ptr<const Executor> exec, dim2 size,
                                       array<V> values, array<I> col_idxs, array<I> row_ptrs);
    /// A matrix from coordinate data; duplicate entries are summed, explicit zeros are kept. BadInput for an
    /// entry outside the matrix, and naming the position where finite duplicates add up past V's range.
    static std::unique_ptr<Csr> create(std::shared_ptr<const Executor> exec,
                                       const matrix_data<V, I>& data);
    /// Conversions (run on `exec`, which may differ from the source's executor: a source that `exec`
    /// cannot address is copied there first). From Dense, zero entries are dropped.
    static std::unique_ptr<Csr> create_from(std::shared_ptr<const Executor> exec, const Coo<V, I>& source);
    static std::unique_ptr<Csr> create_from(std::shared_ptr<const Executor> exec, const Ell<V, I>& source);
    static std::unique_ptr<Csr> create_from(std::shared_ptr<const Executor> exec, const Dense<V>& source);

    std::unique_ptr<Dense<V>> to_dense() const;
    matrix_data<V, I> to_data() const;
    std::unique_ptr<Csr> transpose() const;

    size_type get_num_stored_elements() const noexcept { return values_.get_size(); }
    /// The arrays for writing. Each call drops what the SpMV keeps between applies (see get_spmv_cache), so
    /// write through a pointer obtained after the last apply.
    V* get_values() noexcept
    {
        spmv_cache_.reset();
        return values_.get_data();
    }
    const V* get_const_values() const noexcept { return values_.get_const_data(); }
    I* get_col_idxs() noexcept
    {
        spmv_cache_.reset();
        return col_idxs_.get_data();
    }
    const I* get_const_col_idxs() const noexcept { return col_idxs_.get_const_data(); }
    I* get_row_ptrs() noexcept
    {
        spmv_cache_.reset();
        return row_ptrs_.get_data();
    }
    const I* get_const_row_ptrs() const noexcept { return row_ptrs_.get_const_data(); }

    /**
     * What an executor's SpMV derives from this matrix and keeps between applies (on CUDA and HIP the
     * size of the nodes of rows larch's kernel multiplies together, and on CUDA the cuSPARSE matrix
     * descriptor and the workspace its preprocessing lives in; on omp which consecutive rows share their
     * column indices, a byte per row where enough do), made by the first apply that needs it; null before.
     * For the kernels, not for users. Safe to call from concurrent applies.
     */
    std::shared_ptr<void> get_spmv_cache() const { return std::atomic_load(&spmv_cache_); }
    void set_spmv_cache(std::shared_ptr<void> cache) const { std::atomic_store(&spmv_cache_, std::move(cache)); }

    void set_spmv_algorithm(CsrSpmvAlgorithm algorithm) noexcept { algorithm_ = algorithm; }
    CsrSpmvAlgorithm get_spmv_algorithm() const noexcept { return algorithm_; }

    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    Csr(std::shared_ptr<const Executor> exec, dim2 size, array<V> values, array<I> col_idxs,
        array<I> row_ptrs);

    void apply_impl(const LinOp& b, LinOp& x) const override;
    void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const override;

private:
    array<V> values_;
    array<I> col_idxs_;
    array<I> row_ptrs_;
    CsrSpmvAlgorithm algorithm_ = CsrSpmvAlgorithm::automatic;
    mutable std::shared_ptr<void> spmv_cache_;
};

}  // namespace matrix
}  // namespace larch
