// Core-side helpers shared by the class code of the matrix formats (single and batched): their names in
// messages, index range checks, summing duplicate entries of matrix_data, and reaching an operand's data where it
// is needed (on the host for structure validation and to_data, on the executor a conversion runs on). Kernels
// never use these.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/exception.hpp"
#include "larch/base/executor.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/base/types.hpp"

namespace larch {
namespace detail {

/// "Csr<double,int32>" for format "Csr": the name get_type_name() returns and messages start with.
template <typename V, typename I>
std::string format_type_name(const char* format)
{
    return std::string{format} + "<" + type_name<V>() + "," + type_name<I>() + ">";
}

/// Throws BadInput (naming `context`) unless every index and the nonzero count fit the index type.
template <typename I>
void check_fits_index_type(const std::string& context, dim2 size, size_type num_nonzeros)
{
    const auto max_index = static_cast<size_type>(std::numeric_limits<I>::max());
    LARCH_ENSURE(size.rows < max_index && size.cols < max_index && num_nonzeros <= max_index,
                 BadInput,
                 context + ": a " + to_string(size) + " matrix with " +
                     std::to_string(num_nonzeros) + " stored entries does not fit the index type " +
                     type_name<I>());
}

/// The BadInput message for finite duplicate entries at (row, col) whose sum is too large for V.
template <typename V, typename I>
std::string overflowing_duplicates_message(const std::string& context, I row, I col)
{
    return context + ": the duplicate entries at (" + std::to_string(row) + ", " + std::to_string(col) +
           ") add up to a value too large for " + type_name<V>();
}

/**
 * A copy of `data` sorted row-major with duplicate entries summed. Throws BadInput naming `context` and the
 * position where finite duplicates add up to Inf (the Matrix Market reader rejects such files alike); values
 * given as NaN or Inf are the caller's and pass.
 */
template <typename V, typename I>
matrix_data<V, I> copy_with_duplicates_summed(const matrix_data<V, I>& data, const std::string& context)
{
    auto summed = data;
    summed.sum_duplicates();
    const auto is_finite = [](const auto& e) { return std::isfinite(e.value); };
    const auto overflow = std::find_if_not(summed.entries.begin(), summed.entries.end(), is_finite);
    // the given values are scanned only where a sum is not finite, to tell an overflow from the caller's Inf
    LARCH_ENSURE(overflow == summed.entries.end() ||
                     !std::all_of(data.entries.begin(), data.entries.end(), is_finite),
                 BadInput, overflowing_duplicates_message<V>(context, overflow->row, overflow->col));
    return summed;
}

/**
 * Host-readable elements of memory that lives on `exec`: the memory itself when the host can address it,
 * otherwise a copy (so validating a host array costs no copy, a device array one transfer).
 */
template <typename T>
class host_readable {
public:
    host_readable(const std::shared_ptr<const Executor>& exec, size_type size, const T* data)
    {
        if (size == 0) {
            data_ = nullptr;
        } else if (exec->is_host()) {
            data_ = data;
        } else {
            copy_.resize(size);
            exec->get_host()->copy_from(*exec, size * sizeof(T), data, copy_.data());
            data_ = copy_.data();
        }
    }
    explicit host_readable(const array<T>& source)
        : host_readable(source.get_executor(), source.get_size(), source.get_const_data())
    {}

    const T& operator[](size_type i) const { return data_[i]; }
    const T* get() const { return data_; }

private:
    std::vector<T> copy_;
    const T* data_ = nullptr;
};

/// One element of memory on `exec`, read on the host (e.g. the nonzero count at the end of row pointers).
template <typename T>
T copy_element_to_host(const std::shared_ptr<const Executor>& exec, const T* element)
{
    T value{};
    exec->get_host()->copy_from(*exec, sizeof(T), element, &value);
    return value;
}

/// A copy on `exec` of `size` elements at `data` (memory of `source_exec`).
template <typename T>
array<T> copy_to_executor(std::shared_ptr<const Executor> exec,
                          const std::shared_ptr<const Executor>& source_exec, size_type size,
                          const T* data)
{
    return array<T>{std::move(exec), array<T>::view(source_exec, size, const_cast<T*>(data))};
}

/// `array` on `exec`: its own buffer if it already lives there, otherwise a copy.
template <typename T>
array<T> move_to_executor(std::shared_ptr<const Executor> exec, array<T>&& source)
{
    array<T> result{std::move(exec)};
    result = std::move(source);
    return result;
}

/**
 * `source` itself when kernels on `exec` can read its memory, otherwise a copy on `exec` that `storage`
 * keeps alive (conversions run on the executor of their result, whatever the source's executor).
 */
template <typename Matrix>
const Matrix& accessible_on(const std::shared_ptr<const Executor>& exec, const Matrix& source,
                            std::unique_ptr<Matrix>& storage)
{
    if (exec->memory_accessible(*source.get_executor())) {
        return source;
    }
    storage.reset(static_cast<Matrix*>(source.clone_to(exec).release()));
    return *storage;
}

}  // namespace detail
}  // namespace larch
