// matrix::Coo: creation and structure validation, conversions (Ell, Dense and transpose go through Csr), SpMV.
#include "larch/matrix/coo.hpp"

#include <string>
#include <vector>

#include "core/components/format_helpers.hpp"
#include "core/components/instantiation.hpp"
#include "core/matrix/coo_kernels.hpp"
#include "core/matrix/csr_kernels.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/ell.hpp"

namespace larch {
namespace matrix {
namespace {

template <typename V, typename I>
std::string operation_name(const char* operation)
{
    return detail::format_type_name<V, I>("Coo") + "::" + operation;
}

/// Throws BadInput naming the first entry that lies outside the matrix or breaks the (row, column) order.
template <typename I>
void validate_structure(const std::string& context, dim2 size, const array<I>& row_idxs_array,
                        const array<I>& col_idxs_array)
{
    const auto nnz = row_idxs_array.get_size();
    detail::host_readable<I> row_idxs{row_idxs_array};
    detail::host_readable<I> col_idxs{col_idxs_array};
    for (size_type k = 0; k < nnz; ++k) {
        const auto row = row_idxs[k];
        const auto col = col_idxs[k];
        LARCH_ENSURE(row >= 0 && static_cast<size_type>(row) < size.rows, BadInput,
                     context + ": row_idxs[" + std::to_string(k) + "] is " + std::to_string(row) +
                         " but must lie in [0, " + std::to_string(size.rows) + ")");
        LARCH_ENSURE(col >= 0 && static_cast<size_type>(col) < size.cols, BadInput,
                     context + ": col_idxs[" + std::to_string(k) + "] is " + std::to_string(col) +
                         " but must lie in [0, " + std::to_string(size.cols) + ")");
        if (k > 0) {
            const auto previous_row = row_idxs[k - 1];
            const auto previous_col = col_idxs[k - 1];
            LARCH_ENSURE(row > previous_row || (row == previous_row && col > previous_col), BadInput,
                         context + ": entry " + std::to_string(k) + " at (" + std::to_string(row) +
                             ", " + std::to_string(col) + ") does not come after entry " +
                             std::to_string(k - 1) + " at (" + std::to_string(previous_row) +
                             ", " + std::to_string(previous_col) +
                             "); entries must be sorted by row, then column, without duplicates");
        }
    }
}

}  // namespace

template <typename V, typename I>
Coo<V, I>::Coo(std::shared_ptr<const Executor> exec, dim2 size, array<V> values, array<I> col_idxs,
               array<I> row_idxs)
    : LinOp(std::move(exec), size),
      values_{std::move(values)},
      col_idxs_{std::move(col_idxs)},
      row_idxs_{std::move(row_idxs)}
{}

template <typename V, typename I>
std::unique_ptr<Coo<V, I>> Coo<V, I>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                             size_type num_nonzeros)
{
    detail::check_fits_index_type<I>(operation_name<V, I>("create"), size, num_nonzeros);
    return std::unique_ptr<Coo>{new Coo{exec, size, array<V>{exec, num_nonzeros},
                                        array<I>{exec, num_nonzeros}, array<I>{exec, num_nonzeros}}};
}

template <typename V, typename I>
std::unique_ptr<Coo<V, I>> Coo<V, I>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                             array<V> values, array<I> col_idxs, array<I> row_idxs)
{
    const auto context = operation_name<V, I>("create");
    detail::check_fits_index_type<I>(context, size, values.get_size());
    LARCH_ENSURE(col_idxs.get_size() == values.get_size() &&
                     row_idxs.get_size() == values.get_size(),
                 BadInput,
                 context + ": values, col_idxs and row_idxs must have the same length but have " +
                     std::to_string(values.get_size()) + ", " + std::to_string(col_idxs.get_size()) +
                     " and " + std::to_string(row_idxs.get_size()) + " entries");
    validate_structure(context, size, row_idxs, col_idxs);
    auto values_on_exec = detail::move_to_executor(exec, std::move(values));
    auto col_idxs_on_exec = detail::move_to_executor(exec, std::move(col_idxs));
    auto row_idxs_on_exec = detail::move_to_executor(exec, std::move(row_idxs));
    return std::unique_ptr<Coo>{new Coo{std::move(exec), size, std::move(values_on_exec),
                                        std::move(col_idxs_on_exec), std::move(row_idxs_on_exec)}};
}

template <typename V, typename I>
std::unique_ptr<Coo<V, I>> Coo<V, I>::create(std::shared_ptr<const Executor> exec,
                                             const matrix_data<V, I>& data)
{
    const auto context = operation_name<V, I>("create");
    data.validate(context);
    const auto sorted = detail::copy_with_duplicates_summed(data, context);
    detail::check_fits_index_type<I>(context, data.size, sorted.entries.size());
    std::vector<V> values;
    std::vector<I> col_idxs;
    std::vector<I> row_idxs;
    values.reserve(sorted.entries.size());
    col_idxs.reserve(sorted.entries.size());
    row_idxs.reserve(sorted.entries.size());
    for (const auto& e : sorted.entries) {
        values.push_back(e.value);
        col_idxs.push_back(e.col);
        row_idxs.push_back(e.row);
    }
    return std::unique_ptr<Coo>{new Coo{exec, data.size, array<V>{exec, values.begin(), values.end()},
                                        array<I>{exec, col_idxs.begin(), col_idxs.end()},
                                        array<I>{exec, row_idxs.begin(), row_idxs.end()}}};
}

template <typename V, typename I>
std::unique_ptr<Coo<V, I>> Coo<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Csr<V, I>& source)
{
    std::unique_ptr<Csr<V, I>> storage;
    const auto& csr = detail::accessible_on(exec, source, storage);
    const auto nnz = csr.get_num_stored_elements();
    std::unique_ptr<Coo> result{new Coo{
        exec, csr.get_size(),
        detail::copy_to_executor(exec, csr.get_executor(), nnz, csr.get_const_values()),
        detail::copy_to_executor(exec, csr.get_executor(), nnz, csr.get_const_col_idxs()),
        array<I>{exec, nnz}}};
    LARCH_RUN_KERNEL(exec, csr::convert_to_coo, csr, *result);
    return result;
}

template <typename V, typename I>
std::unique_ptr<Coo<V, I>> Coo<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Ell<V, I>& source)
{
    return create_from(exec, *Csr<V, I>::create_from(exec, source));
}

template <typename V, typename I>
std::unique_ptr<Coo<V, I>> Coo<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Dense<V>& source)
{
    return create_from(exec, *Csr<V, I>::create_from(exec, source));
}

template <typename V, typename I>
std::unique_ptr<Dense<V>> Coo<V, I>::to_dense() const
{
    return Csr<V, I>::create_from(get_executor(), *this)->to_dense();
}

template <typename V, typename I>
matrix_data<V, I> Coo<V, I>::to_data() const
{
    detail::host_readable<I> row_idxs{row_idxs_};
    detail::host_readable<I> col_idxs{col_idxs_};
    detail::host_readable<V> values{values_};
    matrix_data<V, I> data{get_size()};
    data.entries.reserve(get_num_stored_elements());
    for (size_type k = 0; k < get_num_stored_elements(); ++k) {
        data.entries.push_back({row_idxs[k], col_idxs[k], values[k]});
    }
    return data;
}

template <typename V, typename I>
std::unique_ptr<Coo<V, I>> Coo<V, I>::transpose() const
{
    // Swapping the index arrays would break the (row, column) order; Csr's transpose restores it.
    return create_from(get_executor(), *Csr<V, I>::create_from(get_executor(), *this)->transpose());
}

template <typename V, typename I>
std::unique_ptr<LinOp> Coo<V, I>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return std::unique_ptr<Coo>{new Coo{exec, get_size(), array<V>{exec, values_},
                                        array<I>{exec, col_idxs_}, array<I>{exec, row_idxs_}}};
}

template <typename V, typename I>
std::string Coo<V, I>::get_type_name() const
{
    return detail::format_type_name<V, I>("Coo");
}

template <typename V, typename I>
void Coo<V, I>::apply_impl(const LinOp& b, LinOp& x) const
{
    apply_impl(1.0, b, 0.0, x);
}

template <typename V, typename I>
void Coo<V, I>::apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const
{
    const auto& dense_b = as<const Dense<V>>(b, *this, "apply");
    auto& dense_x = as<Dense<V>>(x, *this, "apply");
    LARCH_RUN_KERNEL(get_executor(), coo::spmv, static_cast<V>(alpha), *this, dense_b,
                     static_cast<V>(beta), dense_x);
}

#define LARCH_COO(V, I) template class Coo<V, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_COO);

}  // namespace matrix
}  // namespace larch
