// batch::Csr: creation from per-item data (validation, shared-pattern detection, the balanced kernel's
// row splits and the kernel automatic runs), copies back to single matrices, and apply.
#include "larch/batch/csr.hpp"

#include <algorithm>

#include "core/batch/batch_sparse_kernels.hpp"
#include "core/batch/sparse_preparation.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace batch {

std::string to_string(CsrSpmvKernel kernel)
{
    switch (kernel) {
    case CsrSpmvKernel::automatic: return "automatic";
    case CsrSpmvKernel::scalar: return "scalar";
    case CsrSpmvKernel::vector: return "vector";
    case CsrSpmvKernel::smart: return "smart";
    case CsrSpmvKernel::balanced: return "balanced";
    case CsrSpmvKernel::stream: return "stream";
    }
    return "unknown";
}

CsrSpmvKernel csr_spmv_kernel_from_string(const std::string& name)
{
    for (const auto kernel : {CsrSpmvKernel::automatic, CsrSpmvKernel::scalar,
                              CsrSpmvKernel::vector, CsrSpmvKernel::smart,
                              CsrSpmvKernel::balanced, CsrSpmvKernel::stream}) {
        if (to_string(kernel) == name) {
            return kernel;
        }
    }
    LARCH_THROW(BadInput, "batch::Csr: unknown SpMV kernel '" + name +
                              "' (expected automatic, scalar, vector, smart, balanced or stream)");
}

namespace {

/// The kernel automatic runs a batch with, from the H100 runs of the batch_spmv benchmark (medians):
/// - every item's rows hold fewer than 16 nonzeros on average: scalar. One thread per row needs no
///   reduction and no shuffles; it was the fastest CSR kernel on every batch with short rows (cd7e965:
///   sherman1 x10000, 3.75/row, double: scalar 0.221 ms, smart 0.325, balanced 0.436; density 8/row
///   unbalanced: scalar 0.097, balanced 0.124, smart 0.161; float alike; stream since then: sherman1
///   alike, density 8/row even 0.054 against scalar's 0.051 ms in double, 0.040-0.050 against 0.031 in
///   float, stream_issue_ab_h100.log).
/// - otherwise, where the rows are even (no row longer than twice the batch's mean): smart. Its
///   sub-warps sized so that each lane's four loads in flight cover a typical row, it beat stream on
///   the density batch of exactly 32 nonzeros per row in double (H200: 0.133 against 0.149 ms) and
///   came within 3% in float (0.112 against 0.109), batch_spmv_smart_ab_h200.log.
/// - otherwise stream, for the whole batch. On long-row batches it beat balanced (density 32/row,
///   double: 0.185 / 0.200 ms with even / unbalanced rows, balanced 0.216 / 0.225), and smart where a
///   few rows are long (32/row unbalanced, the longest 4x the mean, H200: 0.164 against 0.197 ms in
///   double, 0.121 against 0.173 in float, the same log). On a batch mixing
///   short-row and long-row items (the heterogeneous batch of the shared matrices) a per-item kernel,
///   scalar or balanced per item, was kept until stream read b_i as shared memory: then stream took
///   0.359-0.361 ms against the per-item kernel's 0.407-0.411 in double and 0.239-0.244 against
///   0.285-0.286 in float (stream_issue_ab_h100.log), so the per-item kernel was removed.
CsrSpmvKernel automatic_batch_kernel(bool every_item_has_short_rows, size_type max_row_nnz,
                                    double mean_row_nnz)
{
    if (every_item_has_short_rows) {
        return CsrSpmvKernel::scalar;
    }
    return static_cast<double>(max_row_nnz) <= 2.0 * mean_row_nnz ? CsrSpmvKernel::smart
                                                                  : CsrSpmvKernel::stream;
}

/// Whether automatic counts an item of `rows` rows and `nonzeros` entries as one of short rows.
bool has_short_rows(size_type rows, size_type nonzeros)
{
    return static_cast<double>(nonzeros) < 16.0 * static_cast<double>(rows);
}

/// The 16-bit copy of the column indices `col_idxs` (host data) that a batch keeps on `exec`
/// (Csr::get_const_narrow_col_idxs): on GPU executors when every item of `layout` fits, empty elsewhere.
template <typename I>
array<std::uint16_t> narrow_col_idxs(const std::shared_ptr<const Executor>& exec,
                                     const SparseLayout& layout, const std::vector<I>& col_idxs)
{
    if (exec->is_host() || layout.get_max_size().cols > Csr<double, I>::max_narrow_cols) {
        return array<std::uint16_t>{exec};
    }
    std::vector<std::uint16_t> narrow(col_idxs.size());
    std::transform(col_idxs.begin(), col_idxs.end(), narrow.begin(),
                   [](I col) { return static_cast<std::uint16_t>(col); });
    return array<std::uint16_t>{exec, narrow.begin(), narrow.end()};
}

}  // namespace

template <typename T, typename I>
Csr<T, I>::Csr(SparseLayout layout, array<T> values, array<I> col_idxs,
               array<std::uint16_t> narrow_col_idxs, array<I> row_ptrs,
               array<I> balanced_row_starts)
    : BatchLinOp<T>(layout.get_executor()), layout_{std::move(layout)},
      values_{std::move(values)}, col_idxs_{std::move(col_idxs)},
      narrow_col_idxs_{std::move(narrow_col_idxs)}, row_ptrs_{std::move(row_ptrs)},
      balanced_row_starts_{std::move(balanced_row_starts)}
{
    const auto rows = layout_.get_total_rows();
    mean_row_nnz_ = rows == 0 ? 0.0
                              : static_cast<double>(layout_.get_total_stored()) /
                                    static_cast<double>(rows);
}

template <typename T, typename I>
std::unique_ptr<Csr<T, I>> Csr<T, I>::create(std::shared_ptr<const Executor> exec,
                                             const std::vector<matrix_data<T, I>>& items,
                                             PatternSharing sharing)
{
    const auto prepared = detail::prepare_items(items, sharing, "batch::Csr::create");
    SparseLayout layout{exec, prepared.sizes, prepared.nonzeros, prepared.shared_pattern};
    std::vector<T> values;
    std::vector<I> col_idxs;
    std::vector<I> row_ptrs;
    std::vector<I> row_starts;
    values.reserve(layout.get_total_stored());
    size_type max_row_nnz = 0;
    bool every_item_has_short_rows = true;
    for (size_type item = 0; item < items.size(); ++item) {
        const auto& data = *prepared.items[item];
        const auto rows = data.size.rows;
        std::vector<I> item_row_ptrs(rows + 1, 0);
        for (const auto& e : data.entries) {
            values.push_back(e.value);
            ++item_row_ptrs[static_cast<size_type>(e.row) + 1];
        }
        size_type item_max_row_nnz = 0;
        for (size_type row = 0; row < rows; ++row) {
            item_max_row_nnz =
                std::max(item_max_row_nnz, static_cast<size_type>(item_row_ptrs[row + 1]));
            item_row_ptrs[row + 1] += item_row_ptrs[row];
        }
        max_row_nnz = std::max(max_row_nnz, item_max_row_nnz);
        every_item_has_short_rows = every_item_has_short_rows && has_short_rows(rows, data.entries.size());
        // Segment s starts in the row that holds nonzero s * nnz / S (the first row whose end lies
        // beyond it); a segment past the last nonzero starts at `rows`.
        const auto nnz = static_cast<std::int64_t>(data.entries.size());
        for (int s = 0; s <= balanced_segments; ++s) {
            const auto first = static_cast<I>(s * nnz / balanced_segments);
            const auto end = std::upper_bound(item_row_ptrs.begin() + 1, item_row_ptrs.end(), first);
            row_starts.push_back(static_cast<I>(end - (item_row_ptrs.begin() + 1)));
        }
        if (item == 0 || !prepared.shared_pattern) {
            for (const auto& e : data.entries) {
                col_idxs.push_back(e.col);
            }
            row_ptrs.insert(row_ptrs.end(), item_row_ptrs.begin(), item_row_ptrs.end());
        }
    }
    auto narrow = narrow_col_idxs(exec, layout, col_idxs);
    auto result = std::unique_ptr<Csr>{new Csr{
        std::move(layout), array<T>{exec, values.begin(), values.end()},
        array<I>{exec, col_idxs.begin(), col_idxs.end()}, std::move(narrow),
        array<I>{exec, row_ptrs.begin(), row_ptrs.end()},
        array<I>{exec, row_starts.begin(), row_starts.end()}}};
    result->max_row_nnz_ = max_row_nnz;
    result->automatic_kernel_ =
        automatic_batch_kernel(every_item_has_short_rows, max_row_nnz, result->get_mean_row_nnz());
    return result;
}

template <typename T, typename I>
std::unique_ptr<Csr<T, I>> Csr<T, I>::clone_to(std::shared_ptr<const Executor> exec) const
{
    auto narrow = narrow_col_idxs(
        exec, layout_, detail::copy_range_to_host(col_idxs_, 0, col_idxs_.get_size()));
    auto result = std::unique_ptr<Csr>{new Csr{
        layout_.clone_to(exec), array<T>{exec, values_}, array<I>{exec, col_idxs_}, std::move(narrow),
        array<I>{exec, row_ptrs_}, array<I>{exec, balanced_row_starts_}}};
    result->max_row_nnz_ = max_row_nnz_;
    result->automatic_kernel_ = automatic_kernel_;
    result->kernel_ = kernel_;
    return result;
}

template <typename T, typename I>
std::vector<matrix_data<T, I>> Csr<T, I>::to_data(size_type first, size_type last) const
{
    if (first == last) {
        return {};
    }
    const bool shared = layout_.has_shared_pattern();
    const auto value_begin = layout_.get_stored_offset(first);
    const auto values = detail::copy_range_to_host(values_, value_begin,
                                                   layout_.get_stored_offset(last));
    const auto pattern_begin = shared ? 0 : value_begin;
    const auto col_idxs = detail::copy_range_to_host(
        col_idxs_, pattern_begin, shared ? col_idxs_.get_size() : layout_.get_stored_offset(last));
    const auto row_ptr_begin = get_row_ptrs_offset(first);
    const auto row_ptrs = detail::copy_range_to_host(
        row_ptrs_, row_ptr_begin,
        shared ? row_ptrs_.get_size()
               : get_row_ptrs_offset(last - 1) + layout_.get_size(last - 1).rows + 1);
    std::vector<matrix_data<T, I>> items;
    for (size_type item = first; item < last; ++item) {
        matrix_data<T, I> data{layout_.get_size(item)};
        const auto value_offset = layout_.get_stored_offset(item) - value_begin;
        const auto col_offset = shared ? 0 : value_offset;
        const auto row_ptr_offset = get_row_ptrs_offset(item) - row_ptr_begin;
        for (size_type row = 0; row < data.size.rows; ++row) {
            for (auto nz = row_ptrs[row_ptr_offset + row]; nz < row_ptrs[row_ptr_offset + row + 1];
                 ++nz) {
                data.entries.push_back(
                    {static_cast<I>(row), col_idxs[col_offset + nz], values[value_offset + nz]});
            }
        }
        items.push_back(std::move(data));
    }
    return items;
}

template <typename T, typename I>
std::vector<matrix_data<T, I>> Csr<T, I>::to_data() const
{
    return to_data(0, get_num_items());
}

template <typename T, typename I>
std::unique_ptr<Dense<T>> Csr<T, I>::to_dense() const
{
    return detail::items_to_dense(this->get_executor(), to_data());
}

template <typename T, typename I>
std::unique_ptr<matrix::Csr<T, I>> Csr<T, I>::create_item(size_type item) const
{
    detail::ensure_item_in_range("batch::Csr::create_item", item, get_num_items());
    return matrix::Csr<T, I>::create(this->get_executor(), to_data(item, item + 1).front());
}

template <typename T, typename I>
void Csr<T, I>::apply(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const
{
    this->validate_apply(b, x);
    run_spmv(alpha, b, beta, x);
}

template <typename T, typename I>
void Csr<T, I>::run_spmv(T alpha, const Vector<T>& b, T beta, Vector<T>& x) const
{
    if (get_num_items() > 0) {
        LARCH_RUN_KERNEL(this->get_executor(), batch_sparse::csr_spmv, *this, kernel_, alpha, b,
                         beta, x);
    }
}

template <typename T, typename I>
void Csr<T, I>::apply_impl(const Vector<T>& b, Vector<T>& x) const
{
    run_spmv(T{1}, b, T{0}, x);
}

template <typename T, typename I>
std::string Csr<T, I>::get_type_name() const
{
    return std::string{"batch::Csr<"} + type_name<T>() + ", " + type_name<I>() + ">";
}

#define LARCH_INSTANTIATE_BATCH_CSR(T, I) template class Csr<T, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BATCH_CSR);

}  // namespace batch
}  // namespace larch
