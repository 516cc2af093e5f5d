// The host tier of the batched solvers: one item solved by one thread with the per-item algorithms of
// krylov_item_algorithms.hpp, the item's SpMV from sparse_item_algorithms.hpp and a private workspace. The
// reference backend calls it item after item, the OpenMP backend for items in parallel.
#pragma once

#include <cstdint>
#include <vector>

#include "core/batch/batch_solver_kernels.hpp"
#include "core/batch/solver/krylov_item_algorithms.hpp"
#include "core/batch/sparse_item_algorithms.hpp"

namespace larch {
namespace batch {
namespace item {

/// diag[r] = A_i(r, r) (0 where the entry is not stored).
template <typename T, typename I>
void diagonal(const Csr<T, I>& a, size_type item, T* diag)
{
    const auto& layout = a.get_layout();
    const T* values = a.get_const_values() + layout.get_stored_offset(item);
    const I* col_idxs = a.get_const_col_idxs() + pattern_offset(layout, item);
    const I* row_ptrs = a.get_const_row_ptrs() + a.get_row_ptrs_offset(item);
    for (size_type row = 0; row < layout.get_size(item).rows; ++row) {
        diag[row] = T{};
        for (auto nz = row_ptrs[row]; nz < row_ptrs[row + 1]; ++nz) {
            if (static_cast<size_type>(col_idxs[nz]) == row) {
                diag[row] = values[nz];
            }
        }
    }
}

template <typename T, typename I>
void diagonal(const Coo<T, I>& a, size_type item, T* diag)
{
    const auto& layout = a.get_layout();
    const T* values = a.get_const_values() + layout.get_stored_offset(item);
    const I* row_idxs = a.get_const_row_idxs() + pattern_offset(layout, item);
    const I* col_idxs = a.get_const_col_idxs() + pattern_offset(layout, item);
    for (size_type row = 0; row < layout.get_size(item).rows; ++row) {
        diag[row] = T{};
    }
    for (size_type nz = 0; nz < layout.get_num_stored(item); ++nz) {
        if (row_idxs[nz] == col_idxs[nz]) {
            diag[row_idxs[nz]] = values[nz];
        }
    }
}

template <typename T, typename I>
void diagonal(const Ell<T, I>& a, size_type item, T* diag)
{
    const auto& layout = a.get_layout();
    const auto rows = layout.get_size(item).rows;
    const auto width = a.get_item_width(item);
    const T* values = a.get_const_values() + layout.get_stored_offset(item);
    const I* col_idxs = a.get_const_col_idxs() + pattern_offset(layout, item);
    for (size_type row = 0; row < rows; ++row) {
        diag[row] = T{};
        for (size_type slot = 0; slot < width; ++slot) {
            if (static_cast<size_type>(col_idxs[slot * rows + row]) == row) {
                diag[row] = values[slot * rows + row];
            }
        }
    }
}

template <typename T, typename I>
void spmv(const Csr<T, I>& a, size_type item, const T* in, T* out)
{
    csr_spmv(a, item, T{1}, ItemOperands<T>{in, out, 1}, T{});
}

template <typename T, typename I>
void spmv(const Coo<T, I>& a, size_type item, const T* in, T* out)
{
    coo_spmv(a, item, T{1}, ItemOperands<T>{in, out, 1}, T{});
}

template <typename T, typename I>
void spmv(const Ell<T, I>& a, size_type item, const T* in, T* out)
{
    ell_spmv(a, item, T{1}, ItemOperands<T>{in, out, 1}, T{});
}

/// The Item of krylov_item_algorithms.hpp for one host thread.
template <typename T, typename Matrix>
struct HostItem {
    const Matrix& a;
    size_type index;
    int num_rows;
    T* workspace;
    /// Inverted diagonal (scalar Jacobi) or null.
    const T* jacobi;
    /// Block-Jacobi per row of this item (first row, order, offset of its row in the column-major
    /// inverse; see item_block_jacobi.hpp) or null.
    const std::int32_t* block_first_rows;
    const std::int32_t* block_sizes;
    const std::int64_t* block_inverse_rows;
    const T* block_inverses;
    /// The item's row matching, or null (see ItemBlockJacobi::gather_rows).
    const std::int32_t* block_gather_rows;
    /// max_iterations + 1 history entries, or null.
    T* history;
    T* scalar_storage;

    int rows() const { return num_rows; }
    T* vector(int k) const { return workspace + static_cast<size_type>(k) * num_rows; }
    template <typename F>
    void for_rows(F f, ReadBy = ReadBy::any) const
    {
        for (int row = 0; row < num_rows; ++row) {
            f(row);
        }
    }
    T dot(const T* u, const T* v) const
    {
        T sum{};
        for (int row = 0; row < num_rows; ++row) {
            sum += u[row] * v[row];
        }
        return sum;
    }
    void spmv(const T* in, T* out, ReadBy = ReadBy::any) const { item::spmv(a, index, in, out); }
    void precondition(const T* in, T* out, ReadBy = ReadBy::any) const
    {
        for (int row = 0; row < num_rows; ++row) {
            out[row] = block_inverses ? apply_block_row(row, in) : jacobi ? jacobi[row] * in[row] : in[row];
        }
    }
    /// Row `row` of the block inverse times the block's part of `in`.
    T apply_block_row(int row, const T* in) const
    {
        return block_row_product(block_inverses + block_inverse_rows[row], in, block_first_rows[row],
                                 block_gather_rows, block_sizes[row]);
    }
    void record(int iteration, T norm) const
    {
        if (history) {
            history[iteration] = norm;
        }
    }
    T* scalars() const { return scalar_storage; }
    template <typename F>
    void single(F f) const
    {
        f();
    }
};

/// Solves item `index` with `Method` and writes its results to `outputs`.
template <typename Method, typename T, typename Matrix>
void solve_on_host(const Matrix& a, size_type index, const SolveSettings& settings,
                   const Vector<T>& b, Vector<T>& x, const SolveOutputs<T>& outputs)
{
    const int rows = static_cast<int>(a.get_item_size(index).rows);
    const bool jacobi = settings.preconditioner == ItemPreconditioner::jacobi;
    // [Krylov vectors | Jacobi scales | small dense scalars]
    const auto vectors = static_cast<size_type>(Method::num_vectors(settings.krylov_dim));
    const auto scales = jacobi ? static_cast<size_type>(rows) : 0;
    std::vector<T> workspace(vectors * rows + scales +
                             static_cast<size_type>(Method::num_scalars(settings.krylov_dim)));
    T* jacobi_scales = nullptr;
    if (jacobi) {
        jacobi_scales = workspace.data() + vectors * rows;
        diagonal(a, index, jacobi_scales);
        for (int row = 0; row < rows; ++row) {
            jacobi_scales[row] = jacobi_scale(jacobi_scales[row]);
        }
    }
    const auto slot = outputs.history_slots[index];
    T* history = slot < 0 ? nullptr
                          : outputs.history + static_cast<std::int64_t>(slot) *
                                                  (settings.max_iterations + 1);
    const auto row_offset = b.get_layout().get_offset(index);
    const bool blocks = outputs.block_inverses != nullptr;
    HostItem<T, Matrix> host_item{a,
                                  index,
                                  rows,
                                  workspace.data(),
                                  jacobi_scales,
                                  blocks ? outputs.block_first_rows + row_offset : nullptr,
                                  blocks ? outputs.block_sizes + row_offset : nullptr,
                                  blocks ? outputs.block_inverse_rows + row_offset : nullptr,
                                  blocks ? outputs.block_inverses : nullptr,
                                  blocks && outputs.block_gather_rows && outputs.block_item_matched[index]
                                      ? outputs.block_gather_rows + row_offset
                                      : nullptr,
                                  history,
                                  workspace.data() + vectors * rows + scales};
    const ItemCriterion<T> criterion{outputs.tolerances[index], settings.absolute_tolerance,
                                     settings.max_iterations, settings.max_residual_replacements,
                                     settings.krylov_dim, static_cast<T>(settings.kappa)};
    const auto outcome = solve_item<Method>(
        host_item, criterion, b.get_const_values() + b.get_layout().get_offset(index),
        x.get_values() + x.get_layout().get_offset(index));
    outputs.statuses[index] = static_cast<std::int32_t>(outcome.status);
    outputs.iterations[index] = outcome.iterations;
    outputs.residual_norms[index] = outcome.residual_norm;
    outputs.thresholds[index] = outcome.threshold;
}

/// Calls `body(Method{})` with the per-item method `method` names.
template <typename Body>
void with_method(KrylovMethod method, Body&& body)
{
    switch (method) {
    case KrylovMethod::cg: body(CgMethod{}); break;
    case KrylovMethod::bicgstab: body(BicgstabMethod{}); break;
    case KrylovMethod::gmres: body(GmresMethod{}); break;
    }
}

}  // namespace item
}  // namespace batch
}  // namespace larch
