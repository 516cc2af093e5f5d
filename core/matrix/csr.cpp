// matrix::Csr: creation and structure validation, conversions from the other formats, transpose, SpMV.
#include "larch/matrix/csr.hpp"

#include <string>
#include <vector>

#include "core/components/instantiation.hpp"
#include "core/components/format_helpers.hpp"
#include "core/components/prefix_sum_kernels.hpp"
#include "core/matrix/coo_kernels.hpp"
#include "core/matrix/csr_kernels.hpp"
#include "core/matrix/dense_kernels.hpp"
#include "core/matrix/ell_kernels.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/ell.hpp"

namespace larch {
namespace matrix {
namespace {

template <typename V, typename I>
std::string operation_name(const char* operation)
{
    return detail::format_type_name<V, I>("Csr") + "::" + operation;
}

/// Throws BadInput naming the first array entry that breaks the CSR structure of a rows x cols matrix.
template <typename I>
void validate_structure(const std::string& context, dim2 size, const array<I>& row_ptrs_array,
                        const array<I>& col_idxs_array)
{
    const auto nnz = col_idxs_array.get_size();
    detail::host_readable<I> row_ptrs{row_ptrs_array};
    detail::host_readable<I> col_idxs{col_idxs_array};
    LARCH_ENSURE(row_ptrs[0] == 0, BadInput,
                 context + ": row_ptrs[0] is " + std::to_string(row_ptrs[0]) + " but must be 0");
    for (size_type row = 0; row < size.rows; ++row) {
        const auto begin = row_ptrs[row];
        const auto end = row_ptrs[row + 1];
        LARCH_ENSURE(begin <= end && static_cast<size_type>(end) <= nnz, BadInput,
                     context + ": row_ptrs[" + std::to_string(row + 1) + "] is " +
                         std::to_string(end) + " but must lie in [row_ptrs[" +
                         std::to_string(row) + "] = " + std::to_string(begin) + ", " +
                         std::to_string(nnz) + "] (row pointers never decrease and end at the " +
                         "number of nonzeros)");
        for (auto k = begin; k < end; ++k) {
            const auto col = col_idxs[k];
            LARCH_ENSURE(col >= 0 && static_cast<size_type>(col) < size.cols, BadInput,
                         context + ": col_idxs[" + std::to_string(k) + "] is " +
                             std::to_string(col) + " (row " + std::to_string(row) +
                             ") but must lie in [0, " + std::to_string(size.cols) + ")");
            LARCH_ENSURE(k == begin || col > col_idxs[k - 1], BadInput,
                         context + ": col_idxs[" + std::to_string(k) + "] is " +
                             std::to_string(col) + " (row " + std::to_string(row) +
                             ") but the previous column of the row is " +
                             std::to_string(col_idxs[k - 1]) +
                             "; columns must be strictly increasing within a row");
        }
    }
    const auto last = static_cast<size_type>(row_ptrs[size.rows]);
    LARCH_ENSURE(last == nnz, BadInput,
                 context + ": row_ptrs[" + std::to_string(size.rows) + "] is " +
                     std::to_string(last) + " but there are " + std::to_string(nnz) +
                     " column indices");
}

/// Row pointers of a `rows`-row matrix from the per-row counts that `count_rows(row_nnz)` writes into
/// the first `rows` slots (the last slot receives the nonzero count).
template <typename I, typename CountRows>
array<I> row_ptrs_from_counts(const std::shared_ptr<const Executor>& exec, size_type rows,
                              CountRows count_rows)
{
    array<I> row_ptrs{exec, rows + 1};
    count_rows(row_ptrs.get_data());
    LARCH_RUN_KERNEL(exec, components::prefix_sum, row_ptrs.get_data(), rows + 1);
    return row_ptrs;
}

}  // namespace

template <typename V, typename I>
Csr<V, I>::Csr(std::shared_ptr<const Executor> exec, dim2 size, array<V> values, array<I> col_idxs,
               array<I> row_ptrs)
    : LinOp(std::move(exec), size),
      values_{std::move(values)},
      col_idxs_{std::move(col_idxs)},
      row_ptrs_{std::move(row_ptrs)}
{}

template <typename V, typename I>
std::unique_ptr<Csr<V, I>> Csr<V, I>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                             size_type num_nonzeros)
{
    detail::check_fits_index_type<I>(operation_name<V, I>("create"), size, num_nonzeros);
    // Zero row pointers make the default (nnz = 0) matrix a valid zero matrix.
    const std::vector<I> zeros(size.rows + 1, I{});
    array<I> row_ptrs{exec, zeros.begin(), zeros.end()};
    array<V> values{exec, num_nonzeros};
    array<I> col_idxs{exec, num_nonzeros};
    return std::unique_ptr<Csr>{
        new Csr{std::move(exec), size, std::move(values), std::move(col_idxs), std::move(row_ptrs)}};
}

template <typename V, typename I>
std::unique_ptr<Csr<V, I>> Csr<V, I>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                             array<V> values, array<I> col_idxs, array<I> row_ptrs)
{
    const auto context = operation_name<V, I>("create");
    detail::check_fits_index_type<I>(context, size, values.get_size());
    LARCH_ENSURE(row_ptrs.get_size() == size.rows + 1, BadInput,
                 context + ": row_ptrs has " + std::to_string(row_ptrs.get_size()) +
                     " entries but a matrix of " + std::to_string(size.rows) + " rows needs " +
                     std::to_string(size.rows + 1));
    LARCH_ENSURE(col_idxs.get_size() == values.get_size(), BadInput,
                 context + ": col_idxs has " + std::to_string(col_idxs.get_size()) +
                     " entries but values has " + std::to_string(values.get_size()));
    validate_structure(context, size, row_ptrs, col_idxs);
    auto values_on_exec = detail::move_to_executor(exec, std::move(values));
    auto col_idxs_on_exec = detail::move_to_executor(exec, std::move(col_idxs));
    auto row_ptrs_on_exec = detail::move_to_executor(exec, std::move(row_ptrs));
    return std::unique_ptr<Csr>{new Csr{std::move(exec), size, std::move(values_on_exec),
                                        std::move(col_idxs_on_exec), std::move(row_ptrs_on_exec)}};
}

template <typename V, typename I>
std::unique_ptr<Csr<V, I>> Csr<V, I>::create(std::shared_ptr<const Executor> exec,
                                             const matrix_data<V, I>& data)
{
    const auto context = operation_name<V, I>("create");
    data.validate(context);
    const auto sorted = detail::copy_with_duplicates_summed(data, context);
    detail::check_fits_index_type<I>(context, data.size, sorted.entries.size());
    std::vector<I> row_ptrs(data.size.rows + 1, I{});
    std::vector<I> col_idxs;
    std::vector<V> values;
    col_idxs.reserve(sorted.entries.size());
    values.reserve(sorted.entries.size());
    for (const auto& e : sorted.entries) {
        ++row_ptrs[e.row + 1];
        col_idxs.push_back(e.col);
        values.push_back(e.value);
    }
    for (size_type row = 0; row < data.size.rows; ++row) {
        row_ptrs[row + 1] += row_ptrs[row];
    }
    return std::unique_ptr<Csr>{new Csr{exec, data.size, array<V>{exec, values.begin(), values.end()},
                                        array<I>{exec, col_idxs.begin(), col_idxs.end()},
                                        array<I>{exec, row_ptrs.begin(), row_ptrs.end()}}};
}

template <typename V, typename I>
std::unique_ptr<Csr<V, I>> Csr<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Coo<V, I>& source)
{
    std::unique_ptr<Coo<V, I>> storage;
    const auto& coo = detail::accessible_on(exec, source, storage);
    const auto size = coo.get_size();
    const auto nnz = coo.get_num_stored_elements();
    auto values = detail::copy_to_executor(exec, coo.get_executor(), nnz, coo.get_const_values());
    auto col_idxs =
        detail::copy_to_executor(exec, coo.get_executor(), nnz, coo.get_const_col_idxs());
    array<I> row_ptrs{exec, size.rows + 1};
    LARCH_RUN_KERNEL(exec, coo::convert_row_idxs_to_ptrs, coo.get_const_row_idxs(), nnz,
                     row_ptrs.get_data(), size.rows);
    return std::unique_ptr<Csr>{
        new Csr{exec, size, std::move(values), std::move(col_idxs), std::move(row_ptrs)}};
}

template <typename V, typename I>
std::unique_ptr<Csr<V, I>> Csr<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Ell<V, I>& source)
{
    std::unique_ptr<Ell<V, I>> storage;
    const auto& ell = detail::accessible_on(exec, source, storage);
    auto row_ptrs = row_ptrs_from_counts<I>(exec, ell.get_size().rows, [&](I* row_nnz) {
        LARCH_RUN_KERNEL(exec, ell::count_nonzeros_per_row, ell, row_nnz);
    });
    const auto nnz = static_cast<size_type>(
        detail::copy_element_to_host(exec, row_ptrs.get_const_data() + ell.get_size().rows));
    std::unique_ptr<Csr> result{new Csr{exec, ell.get_size(), array<V>{exec, nnz},
                                        array<I>{exec, nnz}, std::move(row_ptrs)}};
    LARCH_RUN_KERNEL(exec, ell::convert_to_csr, ell, *result);
    return result;
}

template <typename V, typename I>
std::unique_ptr<Csr<V, I>> Csr<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Dense<V>& source)
{
    std::unique_ptr<Dense<V>> storage;
    const auto& dense = detail::accessible_on(exec, source, storage);
    detail::check_fits_index_type<I>(operation_name<V, I>("create_from"), dense.get_size(), 0);
    auto row_ptrs = row_ptrs_from_counts<I>(exec, dense.get_size().rows, [&](I* row_nnz) {
        LARCH_RUN_KERNEL(exec, dense::count_nonzeros_per_row, dense, row_nnz);
    });
    const auto nnz = static_cast<size_type>(
        detail::copy_element_to_host(exec, row_ptrs.get_const_data() + dense.get_size().rows));
    std::unique_ptr<Csr> result{new Csr{exec, dense.get_size(), array<V>{exec, nnz},
                                        array<I>{exec, nnz}, std::move(row_ptrs)}};
    LARCH_RUN_KERNEL(exec, dense::convert_to_csr, dense, *result);
    return result;
}

template <typename V, typename I>
std::unique_ptr<Dense<V>> Csr<V, I>::to_dense() const
{
    auto result = Dense<V>::create(get_executor(), get_size());
    result->fill(V{});
    LARCH_RUN_KERNEL(get_executor(), csr::convert_to_dense, *this, *result);
    return result;
}

template <typename V, typename I>
matrix_data<V, I> Csr<V, I>::to_data() const
{
    detail::host_readable<I> row_ptrs{row_ptrs_};
    detail::host_readable<I> col_idxs{col_idxs_};
    detail::host_readable<V> values{values_};
    matrix_data<V, I> data{get_size()};
    data.entries.reserve(get_num_stored_elements());
    for (size_type row = 0; row < get_size().rows; ++row) {
        for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
            data.entries.push_back({static_cast<I>(row), col_idxs[k], values[k]});
        }
    }
    return data;
}

template <typename V, typename I>
std::unique_ptr<Csr<V, I>> Csr<V, I>::transpose() const
{
    const auto exec = get_executor();
    const auto nnz = get_num_stored_elements();
    std::unique_ptr<Csr> result{new Csr{exec, dim2{get_size().cols, get_size().rows},
                                        array<V>{exec, nnz}, array<I>{exec, nnz},
                                        array<I>{exec, get_size().cols + 1}}};
    result->algorithm_ = algorithm_;
    LARCH_RUN_KERNEL(exec, csr::transpose, *this, *result);
    return result;
}

template <typename V, typename I>
std::unique_ptr<LinOp> Csr<V, I>::clone_to(std::shared_ptr<const Executor> exec) const
{
    std::unique_ptr<Csr> result{new Csr{exec, get_size(), array<V>{exec, values_},
                                        array<I>{exec, col_idxs_}, array<I>{exec, row_ptrs_}}};
    result->algorithm_ = algorithm_;
    return result;
}

template <typename V, typename I>
std::string Csr<V, I>::get_type_name() const
{
    return detail::format_type_name<V, I>("Csr");
}

template <typename V, typename I>
void Csr<V, I>::apply_impl(const LinOp& b, LinOp& x) const
{
    apply_impl(1.0, b, 0.0, x);
}

template <typename V, typename I>
void Csr<V, I>::apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const
{
    const auto& dense_b = as<const Dense<V>>(b, *this, "apply");
    auto& dense_x = as<Dense<V>>(x, *this, "apply");
    LARCH_RUN_KERNEL(get_executor(), csr::spmv, static_cast<V>(alpha), *this, dense_b,
                     static_cast<V>(beta), dense_x);
}

#define LARCH_CSR(V, I) template class Csr<V, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_CSR);

}  // namespace matrix
}  // namespace larch
