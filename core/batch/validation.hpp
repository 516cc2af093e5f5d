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

/// Throws DimensionMismatch unless `b` has the item sizes of `a`, NotSupported unless `b`'s memory
/// is addressable from `a`'s executor.
template <typename T>
void ensure_same_layout(const Dense<T>& a, const Dense<T>& b, const std::string& operation,
                        const char* b_name)
{
    if (!a.get_layout().same_sizes(b.get_layout())) {
        LARCH_THROW(DimensionMismatch, operation + ": " + b_name + " (" +
                                           std::to_string(b.get_num_items()) +
                                           " items) must have the item sizes of the input (" +
                                           std::to_string(a.get_num_items()) + " items)");
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
