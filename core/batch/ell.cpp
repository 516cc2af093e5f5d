// batch::Ell: creation from per-item data (validation, shared-pattern detection, per-item width and
// column-major padding), copies back to single matrices, and apply.
#include "larch/batch/ell.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/batch/batch_sparse_kernels.hpp"
#include "core/batch/sparse_preparation.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace batch {

template <typename T, typename I>
Ell<T, I>::Ell(SparseLayout layout, array<T> values, array<I> col_idxs, size_type num_nonzeros)
    : BatchLinOp<T>(layout.get_executor()), layout_{std::move(layout)},
      values_{std::move(values)}, col_idxs_{std::move(col_idxs)}, num_nonzeros_{num_nonzeros}
{}

template <typename T, typename I>
std::unique_ptr<Ell<T, I>> Ell<T, I>::create(std::shared_ptr<const Executor> exec,
                                             const std::vector<matrix_data<T, I>>& items,
                                             PatternSharing sharing)
{
    const auto prepared = detail::prepare_items(items, sharing, "batch::Ell::create");
    std::vector<size_type> num_slots;
    std::vector<size_type> widths;
    size_type num_nonzeros = 0;
    for (size_type item = 0; item < prepared.items.size(); ++item) {
        const auto& data = *prepared.items[item];
        std::vector<size_type> row_nnz(data.size.rows, 0);
        for (const auto& e : data.entries) {
            ++row_nnz[static_cast<size_type>(e.row)];
        }
        const auto longest_row = std::max_element(row_nnz.begin(), row_nnz.end());
        widths.push_back(*longest_row);
        num_slots.push_back(widths.back() * data.size.rows);
        num_nonzeros += data.entries.size();
        // Every row gets as many slots as the longest one, so one long row alone can exceed the 2^31 - 1 stored
        // entries an item may have; the layout's own message would count slots the caller never gave.
        LARCH_ENSURE(num_slots.back() <= static_cast<size_type>(std::numeric_limits<std::int32_t>::max()), BadInput,
                     "batch::Ell::create: item " + std::to_string(item) + " (" + to_string(data.size) + ", " +
                         std::to_string(data.entries.size()) + " nonzeros) would need " +
                         std::to_string(num_slots.back()) + " ELL slots, more than 2^31-1: its row " +
                         std::to_string(longest_row - row_nnz.begin()) + " holds " + std::to_string(widths.back()) +
                         " entries, which every one of its " + std::to_string(data.size.rows) +
                         " rows is padded to; store it as batch::Csr or batch::Coo");
    }
    SparseLayout layout{exec, prepared.sizes, num_slots, prepared.shared_pattern};
    std::vector<T> values(layout.get_total_stored(), T{});
    std::vector<I> col_idxs(prepared.shared_pattern ? num_slots.front() : layout.get_total_stored(),
                            invalid_index);
    for (size_type item = 0; item < items.size(); ++item) {
        const auto& data = *prepared.items[item];
        const auto rows = data.size.rows;
        const auto offset = static_cast<size_type>(layout.get_stored_offset(item));
        const auto pattern_offset = prepared.shared_pattern ? 0 : offset;
        std::vector<size_type> next_slot(rows, 0);
        for (const auto& e : data.entries) {
            const auto row = static_cast<size_type>(e.row);
            const auto position = next_slot[row]++ * rows + row;
            values[offset + position] = e.value;
            col_idxs[pattern_offset + position] = e.col;
        }
    }
    return std::unique_ptr<Ell>{new Ell{std::move(layout), array<T>{exec, values.begin(), values.end()},
                                        array<I>{exec, col_idxs.begin(), col_idxs.end()},
                                        num_nonzeros}};
}

template <typename T, typename I>
std::unique_ptr<Ell<T, I>> Ell<T, I>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return std::unique_ptr<Ell>{new Ell{layout_.clone_to(exec), array<T>{exec, values_},
                                        array<I>{exec, col_idxs_}, num_nonzeros_}};
}

template <typename T, typename I>
std::vector<matrix_data<T, I>> Ell<T, I>::to_data(size_type first, size_type last) const
{
    if (first == last) {
        return {};
    }
    const bool shared = layout_.has_shared_pattern();
    const auto begin = layout_.get_stored_offset(first);
    const auto end = layout_.get_stored_offset(last);
    const auto values = detail::copy_range_to_host(values_, begin, end);
    const auto col_idxs = detail::copy_range_to_host(
        col_idxs_, shared ? 0 : begin, shared ? static_cast<std::int64_t>(col_idxs_.get_size()) : end);
    std::vector<matrix_data<T, I>> items;
    for (size_type item = first; item < last; ++item) {
        matrix_data<T, I> data{layout_.get_size(item)};
        const auto rows = data.size.rows;
        const auto value_offset = static_cast<size_type>(layout_.get_stored_offset(item) - begin);
        const auto pattern_offset = shared ? 0 : value_offset;
        for (size_type row = 0; row < rows; ++row) {
            for (size_type slot = 0; slot < get_item_width(item); ++slot) {
                const auto col = col_idxs[pattern_offset + slot * rows + row];
                if (col != invalid_index) {
                    data.entries.push_back(
                        {static_cast<I>(row), col, values[value_offset + slot * rows + row]});
                }
            }
        }
        items.push_back(std::move(data));
    }
    return items;
}

template <typename T, typename I>
std::vector<matrix_data<T, I>> Ell<T, I>::to_data() const
{
    return to_data(0, get_num_items());
}

template <typename T, typename I>
std::unique_ptr<Dense<T>> Ell<T, I>::to_dense() const
{
    return detail::items_to_dense(this->get_executor(), to_data());
}

template <typename T, typename I>
std::unique_ptr<matrix::Ell<T, I>> Ell<T, I>::create_item(size_type item) const
{
    detail::ensure_item_in_range("batch::Ell::create_item", item, get_num_items());
    return matrix::Ell<T, I>::create(this->get_executor(), to_data(item, item + 1).front());
}

template <typename T, typename I>
void Ell<T, I>::apply(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const
{
    this->validate_apply(b, x);
    run_spmv(alpha, b, beta, x);
}

template <typename T, typename I>
void Ell<T, I>::run_spmv(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const
{
    if (get_num_items() > 0) {
        LARCH_RUN_KERNEL(this->get_executor(), batch_sparse::ell_spmv, *this, alpha, b, beta, x);
    }
}

template <typename T, typename I>
void Ell<T, I>::apply_impl(const Vector<T>& b, Vector<T>& x) const
{
    run_spmv(T{1}, b, T{0}, x);
}

template <typename T, typename I>
std::string Ell<T, I>::get_type_name() const
{
    return std::string{"batch::Ell<"} + type_name<T>() + ", " + type_name<I>() + ">";
}

#define LARCH_INSTANTIATE_BATCH_ELL(T, I) template class Ell<T, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_ELL);

}  // namespace batch
}  // namespace larch
