// Checks shared by the batched dense operations, run in core before any kernel (kernels assume valid input).
#pragma once

#include <string>

#include "larch/base/exception.hpp"
#include "larch/batch/dense.hpp"

namespace larch {
namespace batch {
namespace detail {

/// Throws DimensionMismatch naming `operation` and the first item that is not square.
template <typename T>
void ensure_square_items(const Dense<T>& a, const std::string& operation)
{
    if (a.get_layout().is_square()) {
        return;
    }
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        const auto size = a.get_item_size(item);
        if (size.rows != size.cols) {
            LARCH_THROW(DimensionMismatch, operation + ": item " + std::to_string(item) + " is " +
                                               to_string(size) + " but must be square");
        }
    }
}

/// How the item sizes of `given` differ from those of `expected`, for a message: the item counts, or the
/// first item whose sizes differ ("item 3 is 4x4, not 5x5"); empty if they do not differ.
inline std::string size_difference(const ItemLayout& given, const ItemLayout& expected)
{
    if (given.get_num_items() != expected.get_num_items()) {
        return std::to_string(given.get_num_items()) + " items, not " + std::to_string(expected.get_num_items());
    }
    for (size_type item = 0; item < given.get_num_items(); ++item) {
        if (given.get_size(item) != expected.get_size(item)) {
            return "item " + std::to_string(item) + " is " + to_string(given.get_size(item)) + ", not " +
                   to_string(expected.get_size(item));
        }
    }
    return {};
}

/// Throws DimensionMismatch unless `b` has the item sizes of `a`, NotSupported unless `b`'s memory
/// is addressable from `a`'s executor.
template <typename T>
void ensure_same_layout(const Dense<T>& a, const Dense<T>& b, const std::string& operation,
                        const char* b_name)
{
    if (!a.get_layout().same_sizes(b.get_layout())) {
        LARCH_THROW(DimensionMismatch, operation + ": " + b_name + " must have the item sizes of the input: " +
                                           size_difference(b.get_layout(), a.get_layout()));
    }
    if (!a.get_executor()->memory_accessible(*b.get_executor())) {
        LARCH_THROW(NotSupported, operation + ": " + b_name + " lives on " +
                                      b.get_executor()->get_name() + " but the input on " +
                                      a.get_executor()->get_name() + "; copy it there first");
    }
}

/// `a` itself if it lives on `exec`'s memory, otherwise a copy there kept alive in `storage`.
template <typename T>
const Dense<T>& on_executor(const Dense<T>& a, const std::shared_ptr<const Executor>& exec,
                            std::unique_ptr<Dense<T>>& storage)
{
    if (exec->memory_accessible(*a.get_executor())) {
        return a;
    }
    storage = a.clone_to(exec);
    return *storage;
}

}  // namespace detail
}  // namespace batch
}  // namespace larch
