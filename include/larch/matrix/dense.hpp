// matrix::Dense<T>: a dense row-major matrix with a row stride; also the vector type of every solver
// (one column per right-hand side).
#pragma once

#include <initializer_list>
#include <memory>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/base/types.hpp"

namespace larch {
namespace matrix {

/**
 * Dense row-major matrix: entry (i, j) is at values[i * stride + j], stride >= cols.
 * As a LinOp it computes x = A b (GEMM). BLAS-1 operations work column by column with host scalars, or
 * with one scalar per column in an array on the executor (scale, add_scaled); reductions (dot, norm2)
 * return one value per column, to the host or into an executor array. All operations run on reference, omp, cuda
 * and hip. Throws DimensionMismatch for operands whose sizes differ.
 * Inside a ReductionScope (larch/base/process_group.hpp: a solve on a distributed operator) the rows are
 * this process's block of a vector spread over a process group, and dot and norm2 return the whole vector's
 * values, identical on every process (collective then: every process of the group must call them).
 */
template <typename T>
class Dense : public LinOp {
public:
    static_assert(is_instantiated_value_type<T>, LARCH_VALUE_TYPE_MESSAGE);
    using value_type = T;

    /// An uninitialized rows x cols matrix on `exec` (stride 0 means stride = cols).
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec, dim2 size = {},
                                         size_type stride = 0);
    /// A matrix over existing values: (rows - 1) * stride + cols elements at least, moved if they live
    /// on `exec`, copied there otherwise. Throws BadInput for a stride below cols or too few values.
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec, dim2 size,
                                         array<T> values, size_type stride);
    /// A matrix from host rows, e.g. create(exec, {{1, 2}, {3, 4}}); a single row list {{1}, {2}}
    /// makes a column vector. Throws BadInput for ragged rows.
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec,
                                         std::initializer_list<std::initializer_list<T>> rows);
    /// A column vector from host values, e.g. create(exec, std::vector<double>(n, 1.0)).
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec, const std::vector<T>& values);
    /// A rows x cols matrix from host values in row-major order (rows * cols of them, else BadInput).
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec, dim2 size,
                                         const std::vector<T>& row_major_values);
    /// A matrix from coordinate data (entries not listed are zero; duplicates are summed). BadInput where
    /// finite duplicates add up to a value too large for T.
    template <typename IndexType>
    static std::unique_ptr<Dense> create(std::shared_ptr<const Executor> exec,
                                         const matrix_data<T, IndexType>& data);

    /// A view of column `col` (size rows x 1, same stride): writes to it change this matrix, which must
    /// outlive the view. Throws BadInput for a column that does not exist.
    std::unique_ptr<Dense> create_column_view(size_type col);
    std::unique_ptr<const Dense> create_const_column_view(size_type col) const;
    /// A view of columns [first, first + count).
    std::unique_ptr<Dense> create_columns_view(size_type first, size_type count);
    std::unique_ptr<const Dense> create_const_columns_view(size_type first, size_type count) const;

    T* get_values() noexcept { return values_.get_data(); }
    const T* get_const_values() const noexcept { return values_.get_const_data(); }
    size_type get_stride() const noexcept { return stride_; }
    /// Entry (row, col); only for matrices on a host executor (throws NotSupported otherwise).
    T at(size_type row, size_type col) const;
    /// All entries, row-major without padding, copied to the host.
    std::vector<T> copy_to_host() const;

    /// The entries as coordinate data (zeros included; Csr::create_from drops them instead).
    template <typename IndexType = std::int32_t>
    matrix_data<T, IndexType> to_data() const;

    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::unique_ptr<Dense> clone_dense(std::shared_ptr<const Executor> exec) const;
    std::string get_type_name() const override;

    /// this = other (sizes must match; other may live on any executor).
    void copy_from(const Dense& other);
    /// Every entry set to `value`.
    void fill(T value);
    /// this = alpha * this.
    void scale(T alpha);
    /// this = this + alpha * b.
    void add_scaled(T alpha, const Dense& b);
    /// Column j of this times alphas[j]: a scalar per column (alphas on this executor, one per column; the
    /// per-column scalars of Krylov methods that iterate several right-hand sides together).
    void scale(const array<T>& alphas);
    /// Column j of this plus alphas[j] times column j of b (alphas as in scale).
    void add_scaled(const array<T>& alphas, const Dense& b);
    /// this = alpha * this + b (the update x = b + beta x of Krylov methods).
    void scale_add(T alpha, const Dense& b);
    /**
     * this = (alpha * a + beta * b) + gamma * this, evaluated in this order in one pass (3 reads and 1 write
     * per entry where add_scaled then scale_add take two passes of 2 reads and 1 write): the fused update of
     * a Krylov step, e.g. BiCGSTAB's p = (r - omega beta v) + beta p. gamma == 0 only writes this (NaN in it
     * does not propagate). Throws DimensionMismatch when a or b differs in size from this.
     */
    void combine(T alpha, const Dense& a, T beta, const Dense& b, T gamma);
    /// Per column j: sum_i this(i, j) * b(i, j).
    std::vector<T> compute_dot(const Dense& b) const;
    /// As above, written into `result` (one entry per column, on this executor) without synchronizing.
    /// Throws DimensionMismatch for a result of another size, NotSupported for one on another executor.
    void compute_dot(const Dense& b, array<T>& result) const;
    /// As above with the scratch space of the reduction (a GPU's partial sums) taken from `workspace`, an
    /// array on this executor of any size that is enlarged only when too small: a reused result and
    /// workspace keep a solver's reductions free of allocations.
    void compute_dot(const Dense& b, array<T>& result, array<T>& workspace) const;
    /// Per column j: the Euclidean norm of column j (scaled to avoid overflow).
    std::vector<T> compute_norm2() const;
    /// As above, written into `result` (one entry per column, on this executor); throws as compute_dot.
    void compute_norm2(array<T>& result) const;
    /// As above with a reused workspace (see compute_dot).
    void compute_norm2(array<T>& result, array<T>& workspace) const;
    /// The transpose as a new matrix.
    std::unique_ptr<Dense> transpose() const;

protected:
    Dense(std::shared_ptr<const Executor> exec, dim2 size, array<T> values, size_type stride);

    void apply_impl(const LinOp& b, LinOp& x) const override;
    void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const override;
    memory_span get_memory_span() const noexcept override;

private:
    void check_same_size(const char* operation, const Dense& other) const;
    /// Checks an array of one entry per column on this executor (`name`: "result", "alphas").
    void check_per_column(const char* operation, const char* name, const array<T>& values) const;
    void check_workspace(const char* operation, const array<T>& workspace) const;

    array<T> values_;
    size_type stride_;
};

}  // namespace matrix
}  // namespace larch
