// matrix::Ell: creation and structure validation, conversions (Coo, Dense and transpose go through Csr), SpMV.
#include "larch/matrix/ell.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/components/format_helpers.hpp"
#include "core/components/instantiation.hpp"
#include "core/matrix/csr_kernels.hpp"
#include "core/matrix/ell_kernels.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/csr.hpp"

namespace larch {
namespace matrix {
namespace {

template <typename V, typename I>
std::string operation_name(const char* operation)
{
    return detail::format_type_name<V, I>("Ell") + "::" + operation;
}

/// Throws BadInput naming the first slot that breaks the ELL structure: in each row the stored entries
/// come first with strictly increasing columns inside the matrix, then only padding (invalid_index).
template <typename I>
void validate_structure(const std::string& context, dim2 size, const array<I>& col_idxs_array,
                        size_type num_stored_per_row, size_type stride, I invalid_index)
{
    detail::host_readable<I> col_idxs{col_idxs_array};
    for (size_type row = 0; row < size.rows; ++row) {
        bool padding_seen = false;
        for (size_type slot = 0; slot < num_stored_per_row; ++slot) {
            const auto position = slot * stride + row;
            const auto col = col_idxs[position];
            const auto where = context + ": col_idxs[" + std::to_string(position) + "] (row " +
                               std::to_string(row) + ", slot " + std::to_string(slot) + ") is " +
                               std::to_string(col);
            if (col == invalid_index) {
                padding_seen = true;
                continue;
            }
            LARCH_ENSURE(!padding_seen, BadInput,
                         where + " after a padding slot; a row's entries must come before its "
                                 "padding (" + std::to_string(invalid_index) + ")");
            LARCH_ENSURE(col >= 0 && static_cast<size_type>(col) < size.cols, BadInput,
                         where + " but must lie in [0, " + std::to_string(size.cols) +
                             ") or be the padding index " + std::to_string(invalid_index));
            LARCH_ENSURE(slot == 0 || col > col_idxs[position - stride], BadInput,
                         where + " but the previous column of the row is " +
                             std::to_string(col_idxs[position - stride]) +
                             "; columns must be strictly increasing within a row");
        }
    }
}

}  // namespace

template <typename V, typename I>
Ell<V, I>::Ell(std::shared_ptr<const Executor> exec, dim2 size, array<V> values, array<I> col_idxs,
               size_type num_stored_per_row, size_type stride)
    : LinOp(std::move(exec), size),
      values_{std::move(values)},
      col_idxs_{std::move(col_idxs)},
      num_stored_per_row_{num_stored_per_row},
      stride_{stride}
{}

template <typename V, typename I>
std::unique_ptr<Ell<V, I>> Ell<V, I>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                             size_type num_stored_per_row, size_type stride)
{
    const auto context = operation_name<V, I>("create");
    if (stride == 0) {
        stride = size.rows;
    }
    LARCH_ENSURE(stride >= size.rows, BadInput,
                 context + ": stride " + std::to_string(stride) + " is smaller than the " +
                     std::to_string(size.rows) + " rows of the matrix");
    detail::check_fits_index_type<I>(context, size, stride * num_stored_per_row);
    const auto num_slots = stride * num_stored_per_row;
    return std::unique_ptr<Ell>{new Ell{exec, size, array<V>{exec, num_slots},
                                        array<I>{exec, num_slots}, num_stored_per_row, stride}};
}

template <typename V, typename I>
std::unique_ptr<Ell<V, I>> Ell<V, I>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                             array<V> values, array<I> col_idxs,
                                             size_type num_stored_per_row, size_type stride)
{
    const auto context = operation_name<V, I>("create");
    LARCH_ENSURE(stride >= size.rows, BadInput,
                 context + ": stride " + std::to_string(stride) + " is smaller than the " +
                     std::to_string(size.rows) + " rows of the matrix");
    const auto num_slots = stride * num_stored_per_row;
    detail::check_fits_index_type<I>(context, size, num_slots);
    LARCH_ENSURE(values.get_size() == num_slots && col_idxs.get_size() == num_slots, BadInput,
                 context + ": values and col_idxs have " + std::to_string(values.get_size()) +
                     " and " + std::to_string(col_idxs.get_size()) + " entries but stride " +
                     std::to_string(stride) + " x " + std::to_string(num_stored_per_row) +
                     " stored per row needs " + std::to_string(num_slots));
    validate_structure(context, size, col_idxs, num_stored_per_row, stride, invalid_index);
    auto values_on_exec = detail::move_to_executor(exec, std::move(values));
    auto col_idxs_on_exec = detail::move_to_executor(exec, std::move(col_idxs));
    return std::unique_ptr<Ell>{new Ell{std::move(exec), size, std::move(values_on_exec),
                                        std::move(col_idxs_on_exec), num_stored_per_row, stride}};
}

template <typename V, typename I>
std::unique_ptr<Ell<V, I>> Ell<V, I>::create(std::shared_ptr<const Executor> exec,
                                             const matrix_data<V, I>& data)
{
    const auto context = operation_name<V, I>("create");
    data.validate(context);
    const auto sorted = detail::copy_with_duplicates_summed(data, context);
    const auto rows = data.size.rows;
    std::vector<size_type> row_nnz(rows, 0);
    for (const auto& e : sorted.entries) {
        ++row_nnz[e.row];
    }
    const size_type num_stored_per_row =
        rows == 0 ? 0 : *std::max_element(row_nnz.begin(), row_nnz.end());
    detail::check_fits_index_type<I>(context, data.size, rows * num_stored_per_row);
    std::vector<V> values(rows * num_stored_per_row, V{});
    std::vector<I> col_idxs(rows * num_stored_per_row, invalid_index);
    std::fill(row_nnz.begin(), row_nnz.end(), 0);
    for (const auto& e : sorted.entries) {
        const auto position = row_nnz[e.row]++ * rows + e.row;
        values[position] = e.value;
        col_idxs[position] = e.col;
    }
    return std::unique_ptr<Ell>{new Ell{exec, data.size, array<V>{exec, values.begin(), values.end()},
                                        array<I>{exec, col_idxs.begin(), col_idxs.end()},
                                        num_stored_per_row, rows}};
}

template <typename V, typename I>
std::unique_ptr<Ell<V, I>> Ell<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Csr<V, I>& source)
{
    std::unique_ptr<Csr<V, I>> storage;
    const auto& csr = detail::accessible_on(exec, source, storage);
    size_type num_stored_per_row = 0;
    LARCH_RUN_KERNEL(exec, csr::compute_max_row_nnz, csr, num_stored_per_row);
    auto result = create(exec, csr.get_size(), num_stored_per_row, csr.get_size().rows);
    LARCH_RUN_KERNEL(exec, csr::convert_to_ell, csr, *result);
    return result;
}

template <typename V, typename I>
std::unique_ptr<Ell<V, I>> Ell<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Coo<V, I>& source)
{
    return create_from(exec, *Csr<V, I>::create_from(exec, source));
}

template <typename V, typename I>
std::unique_ptr<Ell<V, I>> Ell<V, I>::create_from(std::shared_ptr<const Executor> exec,
                                                  const Dense<V>& source)
{
    return create_from(exec, *Csr<V, I>::create_from(exec, source));
}

template <typename V, typename I>
std::unique_ptr<Dense<V>> Ell<V, I>::to_dense() const
{
    return Csr<V, I>::create_from(get_executor(), *this)->to_dense();
}

template <typename V, typename I>
matrix_data<V, I> Ell<V, I>::to_data() const
{
    detail::host_readable<I> col_idxs{col_idxs_};
    detail::host_readable<V> values{values_};
    matrix_data<V, I> data{get_size()};
    for (size_type row = 0; row < get_size().rows; ++row) {
        for (size_type slot = 0; slot < num_stored_per_row_; ++slot) {
            const auto position = slot * stride_ + row;
            if (col_idxs[position] != invalid_index) {
                data.entries.push_back({static_cast<I>(row), col_idxs[position], values[position]});
            }
        }
    }
    return data;
}

template <typename V, typename I>
std::unique_ptr<Ell<V, I>> Ell<V, I>::transpose() const
{
    // The transpose's rows are this matrix's columns, whose lengths ELL does not store; Csr counts them.
    return create_from(get_executor(), *Csr<V, I>::create_from(get_executor(), *this)->transpose());
}

template <typename V, typename I>
std::unique_ptr<LinOp> Ell<V, I>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return std::unique_ptr<Ell>{new Ell{exec, get_size(), array<V>{exec, values_},
                                        array<I>{exec, col_idxs_}, num_stored_per_row_, stride_}};
}

template <typename V, typename I>
std::string Ell<V, I>::get_type_name() const
{
    return detail::format_type_name<V, I>("Ell");
}

template <typename V, typename I>
void Ell<V, I>::apply_impl(const LinOp& b, LinOp& x) const
{
    apply_impl(1.0, b, 0.0, x);
}

template <typename V, typename I>
void Ell<V, I>::apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const
{
    const auto& dense_b = as<const Dense<V>>(b, *this, "apply");
    auto& dense_x = as<Dense<V>>(x, *this, "apply");
    LARCH_RUN_KERNEL(get_executor(), ell::spmv, static_cast<V>(alpha), *this, dense_b,
                     static_cast<V>(beta), dense_x);
}

#define LARCH_ELL(V, I) template class Ell<V, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_ELL);

}  // namespace matrix
}  // namespace larch
