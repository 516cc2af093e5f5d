// batch::Coo: creation from per-item data (validation, shared-pattern detection), copies back to single
// matrices, and apply.
#include "larch/batch/coo.hpp"

#include "core/batch/batch_sparse_kernels.hpp"
#include "core/batch/sparse_preparation.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace batch {

template <typename T, typename I>
Coo<T, I>::Coo(SparseLayout layout, array<T> values, array<I> row_idxs, array<I> col_idxs)
    : BatchLinOp<T>(layout.get_executor()), layout_{std::move(layout)},
      values_{std::move(values)}, row_idxs_{std::move(row_idxs)}, col_idxs_{std::move(col_idxs)}
{}

template <typename T, typename I>
std::unique_ptr<Coo<T, I>> Coo<T, I>::create(std::shared_ptr<const Executor> exec,
                                             const std::vector<matrix_data<T, I>>& items,
                                             PatternSharing sharing)
{
    const auto prepared = detail::prepare_items(items, sharing, "batch::Coo::create");
    SparseLayout layout{exec, prepared.sizes, prepared.nonzeros, prepared.shared_pattern};
    std::vector<T> values;
    std::vector<I> row_idxs;
    std::vector<I> col_idxs;
    values.reserve(layout.get_total_stored());
    for (size_type item = 0; item < items.size(); ++item) {
        for (const auto& e : prepared.items[item]->entries) {
            values.push_back(e.value);
            if (item == 0 || !prepared.shared_pattern) {
                row_idxs.push_back(e.row);
                col_idxs.push_back(e.col);
            }
        }
    }
    return std::unique_ptr<Coo>{new Coo{std::move(layout), array<T>{exec, values.begin(), values.end()},
                                        array<I>{exec, row_idxs.begin(), row_idxs.end()},
                                        array<I>{exec, col_idxs.begin(), col_idxs.end()}}};
}

template <typename T, typename I>
std::unique_ptr<Coo<T, I>> Coo<T, I>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return std::unique_ptr<Coo>{new Coo{layout_.clone_to(exec), array<T>{exec, values_},
                                        array<I>{exec, row_idxs_}, array<I>{exec, col_idxs_}}};
}

template <typename T, typename I>
std::vector<matrix_data<T, I>> Coo<T, I>::to_data(size_type first, size_type last) const
{
    if (first == last) {
        return {};
    }
    const bool shared = layout_.has_shared_pattern();
    const auto begin = layout_.get_stored_offset(first);
    const auto end = layout_.get_stored_offset(last);
    const auto values = detail::copy_range_to_host(values_, begin, end);
    const auto pattern_begin = shared ? 0 : begin;
    const auto pattern_end = shared ? static_cast<std::int64_t>(row_idxs_.get_size()) : end;
    const auto row_idxs = detail::copy_range_to_host(row_idxs_, pattern_begin, pattern_end);
    const auto col_idxs = detail::copy_range_to_host(col_idxs_, pattern_begin, pattern_end);
    std::vector<matrix_data<T, I>> items;
    for (size_type item = first; item < last; ++item) {
        matrix_data<T, I> data{layout_.get_size(item)};
        const auto value_offset = static_cast<size_type>(layout_.get_stored_offset(item) - begin);
        const auto pattern_offset = shared ? 0 : value_offset;
        for (size_type nz = 0; nz < layout_.get_num_stored(item); ++nz) {
            data.entries.push_back({row_idxs[pattern_offset + nz], col_idxs[pattern_offset + nz],
                                    values[value_offset + nz]});
        }
        items.push_back(std::move(data));
    }
    return items;
}

template <typename T, typename I>
std::vector<matrix_data<T, I>> Coo<T, I>::to_data() const
{
    return to_data(0, get_num_items());
}

template <typename T, typename I>
std::unique_ptr<Dense<T>> Coo<T, I>::to_dense() const
{
    return detail::items_to_dense(this->get_executor(), to_data());
}

template <typename T, typename I>
std::unique_ptr<matrix::Coo<T, I>> Coo<T, I>::create_item(size_type item) const
{
    detail::ensure_item_in_range("batch::Coo::create_item", item, get_num_items());
    return matrix::Coo<T, I>::create(this->get_executor(), to_data(item, item + 1).front());
}

template <typename T, typename I>
void Coo<T, I>::apply(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const
{
    this->validate_apply(b, x);
    run_spmv(alpha, b, beta, x);
}

template <typename T, typename I>
void Coo<T, I>::run_spmv(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const
{
    if (get_num_items() > 0) {
        LARCH_RUN_KERNEL(this->get_executor(), batch_sparse::coo_spmv, *this, alpha, b, beta, x);
    }
}

template <typename T, typename I>
void Coo<T, I>::apply_impl(const Vector<T>& b, Vector<T>& x) const
{
    run_spmv(T{1}, b, T{0}, x);
}

template <typename T, typename I>
std::string Coo<T, I>::get_type_name() const
{
    return std::string{"batch::Coo<"} + type_name<T>() + ", " + type_name<I>() + ">";
}

#define LARCH_INSTANTIATE_BATCH_COO(T, I) template class Coo<T, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_COO);

}  // namespace batch
}  // namespace larch
