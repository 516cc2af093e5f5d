// matrix::Dense: creation, views, validation of BLAS-1 operands and dispatch of its kernels.
#include "larch/matrix/dense.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/base/reduction_completion.hpp"
#include "core/components/instantiation.hpp"
#include "core/components/format_helpers.hpp"
#include "core/matrix/dense_kernels.hpp"

namespace larch {
namespace matrix {
namespace {

/// Elements a rows x cols matrix with this stride spans (the last row needs only cols of them).
size_type spanned_elements(dim2 size, size_type stride)
{
    return size.rows == 0 ? 0 : (size.rows - 1) * stride + size.cols;
}

/// rows * stride, the elements of a new matrix; AllocationError where the product does not fit a size_type
/// (it would wrap around to a small allocation).
size_type allocated_elements(dim2 size, size_type stride)
{
    LARCH_ENSURE(stride == 0 || size.rows <= std::numeric_limits<size_type>::max() / stride, AllocationError,
                 "Dense::create: a " + to_string(size) + " matrix with stride " + std::to_string(stride) +
                     " has more elements than a size_type counts");
    return size.rows * stride;
}

}  // namespace

template <typename T>
Dense<T>::Dense(std::shared_ptr<const Executor> exec, dim2 size, array<T> values, size_type stride)
    : LinOp(std::move(exec), size), values_{std::move(values)}, stride_{stride}
{}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                           size_type stride)
{
    if (stride == 0) {
        stride = size.cols;
    }
    LARCH_ENSURE(stride >= size.cols, BadInput,
                 "Dense::create: stride " + std::to_string(stride) + " is smaller than the " +
                     std::to_string(size.cols) + " columns of the " + to_string(size) + " matrix");
    array<T> values{exec, allocated_elements(size, stride)};
    return std::unique_ptr<Dense>{new Dense{std::move(exec), size, std::move(values), stride}};
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                           array<T> values, size_type stride)
{
    LARCH_ENSURE(stride >= size.cols, BadInput,
                 "Dense::create: stride " + std::to_string(stride) + " is smaller than the " +
                     std::to_string(size.cols) + " columns of the " + to_string(size) + " matrix");
    const auto needed = spanned_elements(size, stride);
    LARCH_ENSURE(values.get_size() >= needed, BadInput,
                 "Dense::create: values has " + std::to_string(values.get_size()) +
                     " elements but a " + to_string(size) + " matrix with stride " +
                     std::to_string(stride) + " needs " + std::to_string(needed));
    auto on_exec = detail::move_to_executor(exec, std::move(values));
    return std::unique_ptr<Dense>{new Dense{std::move(exec), size, std::move(on_exec), stride}};
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec,
                                           std::initializer_list<std::initializer_list<T>> rows)
{
    const size_type num_rows = rows.size();
    const size_type num_cols = num_rows == 0 ? 0 : rows.begin()->size();
    std::vector<T> host;
    host.reserve(num_rows * num_cols);
    size_type row_index = 0;
    for (const auto& row : rows) {
        LARCH_ENSURE(row.size() == num_cols, BadInput,
                     "Dense::create: row " + std::to_string(row_index) + " has " +
                         std::to_string(row.size()) + " entries but row 0 has " +
                         std::to_string(num_cols));
        host.insert(host.end(), row.begin(), row.end());
        ++row_index;
    }
    array<T> values{exec, host.begin(), host.end()};
    return std::unique_ptr<Dense>{
        new Dense{std::move(exec), dim2{num_rows, num_cols}, std::move(values), num_cols}};
}

template <typename T>
template <typename IndexType>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec,
                                           const matrix_data<T, IndexType>& data)
{
    data.validate("Dense::create");
    // Built in host memory through an array, whose allocation names the size when it fails.
    array<T> host{exec->get_host(), allocated_elements(data.size, data.size.cols)};
    std::fill_n(host.get_data(), host.get_size(), T{});
    for (const auto& e : data.entries) {
        auto& value = host.get_data()[static_cast<size_type>(e.row) * data.size.cols + static_cast<size_type>(e.col)];
        const T sum = value + e.value;
        // finite duplicates may not add up to Inf (the sparse formats reject them alike); given Inf or NaN pass
        LARCH_ENSURE(std::isfinite(sum) || !std::isfinite(value) || !std::isfinite(e.value), BadInput,
                     detail::overflowing_duplicates_message<T>("Dense::create", e.row, e.col));
        value = sum;
    }
    auto values = detail::move_to_executor(exec, std::move(host));
    return std::unique_ptr<Dense>{
        new Dense{std::move(exec), data.size, std::move(values), data.size.cols}};
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec, const std::vector<T>& values)
{
    return create(std::move(exec), dim2{values.size(), 1}, values);
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec, dim2 size,
                                           const std::vector<T>& row_major_values)
{
    LARCH_ENSURE(row_major_values.size() == size.rows * size.cols, BadInput,
                 "Dense::create: " + std::to_string(row_major_values.size()) + " values for a " +
                     to_string(size) + " matrix, which needs " + std::to_string(size.rows * size.cols));
    array<T> values{exec, row_major_values.begin(), row_major_values.end()};
    return std::unique_ptr<Dense>{new Dense{std::move(exec), size, std::move(values), size.cols}};
}

template <typename T>
LinOp::memory_span Dense<T>::get_memory_span() const noexcept
{
    return {reinterpret_cast<const char*>(get_const_values()), get_size().rows, get_size().cols * sizeof(T),
            stride_ * sizeof(T)};
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create_columns_view(size_type first, size_type count)
{
    const auto cols = get_size().cols;
    LARCH_ENSURE(first <= cols && count <= cols - first, BadInput,
                 "Dense::create_columns_view: " + std::to_string(count) + " columns from column " +
                     std::to_string(first) + " do not lie inside the " + std::to_string(cols) +
                     " columns of the " + to_string(get_size()) + " matrix");
    const dim2 size{get_size().rows, count};
    const auto spanned = spanned_elements(size, stride_);
    auto view = array<T>::view(get_executor(), spanned, spanned == 0 ? nullptr : get_values() + first);
    return std::unique_ptr<Dense>{new Dense{get_executor(), size, std::move(view), stride_}};
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create_column_view(size_type col)
{
    LARCH_ENSURE(col < get_size().cols, BadInput,
                 "Dense::create_column_view: column " + std::to_string(col) +
                     " does not exist in the " + to_string(get_size()) + " matrix");
    return create_columns_view(col, 1);
}

template <typename T>
std::unique_ptr<const Dense<T>> Dense<T>::create_const_column_view(size_type col) const
{
    // The view is handed out as const, so lending it this matrix's mutable pointer is safe.
    return const_cast<Dense*>(this)->create_column_view(col);
}

template <typename T>
std::unique_ptr<const Dense<T>> Dense<T>::create_const_columns_view(size_type first, size_type count) const
{
    return const_cast<Dense*>(this)->create_columns_view(first, count);
}

template <typename T>
T Dense<T>::at(size_type row, size_type col) const
{
    LARCH_ENSURE(get_executor()->is_host(), NotSupported,
                 "Dense::at: the matrix lives on " + get_executor()->get_name() +
                     "; use copy_to_host() for device data");
    LARCH_ENSURE(row < get_size().rows && col < get_size().cols, BadInput,
                 "Dense::at: entry (" + std::to_string(row) + ", " + std::to_string(col) +
                     ") lies outside the " + to_string(get_size()) + " matrix");
    return get_const_values()[row * stride_ + col];
}

template <typename T>
std::vector<T> Dense<T>::copy_to_host() const
{
    const auto size = get_size();
    detail::host_readable<T> values{get_executor(), spanned_elements(size, stride_),
                                    get_const_values()};
    std::vector<T> result(size.rows * size.cols);
    for (size_type row = 0; row < size.rows; ++row) {
        for (size_type col = 0; col < size.cols; ++col) {
            result[row * size.cols + col] = values[row * stride_ + col];
        }
    }
    return result;
}

template <typename T>
template <typename IndexType>
matrix_data<T, IndexType> Dense<T>::to_data() const
{
    const auto size = get_size();
    const auto host = copy_to_host();
    matrix_data<T, IndexType> data{size};
    data.entries.reserve(host.size());
    for (size_type row = 0; row < size.rows; ++row) {
        for (size_type col = 0; col < size.cols; ++col) {
            data.entries.push_back({static_cast<IndexType>(row), static_cast<IndexType>(col),
                                    host[row * size.cols + col]});
        }
    }
    return data;
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::clone_dense(std::shared_ptr<const Executor> exec) const
{
    auto result = create(std::move(exec), get_size());
    result->copy_from(*this);
    return result;
}

template <typename T>
std::unique_ptr<LinOp> Dense<T>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return clone_dense(std::move(exec));
}

template <typename T>
std::string Dense<T>::get_type_name() const
{
    return std::string{"Dense<"} + type_name<T>() + ">";
}

template <typename T>
void Dense<T>::check_same_size(const char* operation, const Dense& other) const
{
    LARCH_ENSURE(other.get_size() == get_size(), DimensionMismatch,
                 get_type_name() + "::" + operation + ": b is " +
                     to_string(other.get_size()) + " but this matrix is " + to_string(get_size()));
    LARCH_ENSURE(get_executor()->memory_accessible(*other.get_executor()), NotSupported,
                 get_type_name() + "::" + operation + ": the operand lives on " +
                     other.get_executor()->get_name() + " but this matrix lives on " +
                     get_executor()->get_name() + "; copy it there first (clone_to)");
}

template <typename T>
void Dense<T>::copy_from(const Dense& other)
{
    LARCH_ENSURE(other.get_size() == get_size(), DimensionMismatch,
                 get_type_name() + "::copy_from: the source is " + to_string(other.get_size()) +
                     " but this matrix is " + to_string(get_size()));
    const auto exec = get_executor();
    if (exec->memory_accessible(*other.get_executor())) {
        LARCH_RUN_KERNEL(exec, dense::copy, other, *this);
        return;
    }
    // Another memory space: one transfer of the source's span, then the strided copy on this executor.
    array<T> staged{exec, other.values_};
    const Dense staged_source{exec, other.get_size(), std::move(staged), other.stride_};
    LARCH_RUN_KERNEL(exec, dense::copy, staged_source, *this);
}

template <typename T>
void Dense<T>::fill(T value)
{
    LARCH_RUN_KERNEL(get_executor(), dense::fill, *this, value);
}

template <typename T>
void Dense<T>::scale(T alpha)
{
    LARCH_RUN_KERNEL(get_executor(), dense::scale, alpha, *this);
}

template <typename T>
void Dense<T>::add_scaled(T alpha, const Dense& b)
{
    check_same_size("add_scaled", b);
    LARCH_RUN_KERNEL(get_executor(), dense::add_scaled, alpha, b, *this);
}

template <typename T>
void Dense<T>::scale(const array<T>& alphas)
{
    check_per_column("scale", "alphas", alphas);
    LARCH_RUN_KERNEL(get_executor(), dense::scale_columns, alphas, *this);
}

template <typename T>
void Dense<T>::add_scaled(const array<T>& alphas, const Dense& b)
{
    check_same_size("add_scaled", b);
    check_per_column("add_scaled", "alphas", alphas);
    LARCH_RUN_KERNEL(get_executor(), dense::add_scaled_columns, alphas, b, *this);
}

template <typename T>
void Dense<T>::scale_add(T alpha, const Dense& b)
{
    check_same_size("scale_add", b);
    LARCH_RUN_KERNEL(get_executor(), dense::scale_add, alpha, b, *this);
}

template <typename T>
void Dense<T>::combine(T alpha, const Dense& a, T beta, const Dense& b, T gamma)
{
    check_same_size("combine", a);
    check_same_size("combine", b);
    LARCH_RUN_KERNEL(get_executor(), dense::combine, alpha, a, beta, b, gamma, *this);
}

template <typename T>
std::vector<T> Dense<T>::compute_dot(const Dense& b) const
{
    array<T> result{get_executor(), get_size().cols};
    compute_dot(b, result);
    return result.copy_to_host();
}

template <typename T>
void Dense<T>::compute_dot(const Dense& b, array<T>& result) const
{
    array<T> workspace{get_executor()};
    compute_dot(b, result, workspace);
}

template <typename T>
void Dense<T>::compute_dot(const Dense& b, array<T>& result, array<T>& workspace) const
{
    check_same_size("compute_dot", b);
    check_per_column("compute_dot", "result", result);
    check_workspace("compute_dot", workspace);
    LARCH_RUN_KERNEL(get_executor(), dense::compute_dot, *this, b, result, workspace);
    detail::complete_sums(*get_executor(), result.get_data(), get_size().cols);
}

template <typename T>
std::vector<T> Dense<T>::compute_norm2() const
{
    array<T> result{get_executor(), get_size().cols};
    compute_norm2(result);
    return result.copy_to_host();
}

template <typename T>
void Dense<T>::compute_norm2(array<T>& result) const
{
    array<T> workspace{get_executor()};
    compute_norm2(result, workspace);
}

template <typename T>
void Dense<T>::compute_norm2(array<T>& result, array<T>& workspace) const
{
    check_per_column("compute_norm2", "result", result);
    check_workspace("compute_norm2", workspace);
    LARCH_RUN_KERNEL(get_executor(), dense::compute_norm2, *this, result, workspace);
    detail::complete_norms(*get_executor(), result.get_data(), get_size().cols);
}

template <typename T>
void Dense<T>::check_workspace(const char* operation, const array<T>& workspace) const
{
    LARCH_ENSURE(workspace.get_executor() && get_executor()->memory_accessible(*workspace.get_executor()),
                 NotSupported,
                 get_type_name() + "::" + operation + ": the workspace does not live on " +
                     get_executor()->get_name());
    LARCH_ENSURE(!workspace.is_view(), NotSupported,
                 get_type_name() + "::" + operation + ": the workspace is a view, which cannot be enlarged");
}

template <typename T>
void Dense<T>::check_per_column(const char* operation, const char* name, const array<T>& values) const
{
    LARCH_ENSURE(values.get_size() == get_size().cols, DimensionMismatch,
                 get_type_name() + "::" + operation + ": the " + name + " array has " +
                     std::to_string(values.get_size()) + " entries but this matrix has " +
                     std::to_string(get_size().cols) + " columns");
    LARCH_ENSURE(values.get_executor() && get_executor()->memory_accessible(*values.get_executor()), NotSupported,
                 get_type_name() + "::" + operation + ": the " + name + " array does not live on " +
                     get_executor()->get_name());
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::transpose() const
{
    auto result = create(get_executor(), dim2{get_size().cols, get_size().rows});
    LARCH_RUN_KERNEL(get_executor(), dense::transpose, *this, *result);
    return result;
}

template <typename T>
void Dense<T>::apply_impl(const LinOp& b, LinOp& x) const
{
    apply_impl(1.0, b, 0.0, x);
}

template <typename T>
void Dense<T>::apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const
{
    const auto& dense_b = as<const Dense>(b, *this, "apply");
    auto& dense_x = as<Dense>(x, *this, "apply");
    LARCH_RUN_KERNEL(get_executor(), dense::gemm, static_cast<T>(alpha), *this, dense_b,
                     static_cast<T>(beta), dense_x);
}

#define LARCH_DENSE(T) template class Dense<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_DENSE);

// The host-only members that take an index type exist for 64-bit indices too: they run no kernel.
#define LARCH_DENSE_DATA(T, I)                                                                    \
    template std::unique_ptr<Dense<T>> Dense<T>::create<I>(std::shared_ptr<const Executor>,       \
                                                           const matrix_data<T, I>&);             \
    template matrix_data<T, I> Dense<T>::to_data<I>() const
#define LARCH_DENSE_DATA_ALL_INDICES(T) \
    LARCH_DENSE_DATA(T, std::int32_t);  \
    LARCH_DENSE_DATA(T, std::int64_t)
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_DENSE_DATA_ALL_INDICES);

}  // namespace matrix
}  // namespace larch
