// Kernels of distributed::Matrix's halo exchange: gathering the rows a process sends to its neighbours into one
// contiguous block on the executor, so that only those rows leave the device (not the whole vector).
#pragma once

#include "core/base/kernel_dispatch.hpp"
#include "core/components/instantiation.hpp"
#include "larch/base/array.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace kernels {

LARCH_DECLARE_KERNEL(namespace halo {
    /// result(k, j) = source(rows[k], j) for every k < rows.get_size() and column j (result is
    /// rows.get_size() x source's columns; the rows lie in source).
    template <typename T, typename I>
    void gather_rows(const DefaultExecutor& exec, const matrix::Dense<T>& source, const array<I>& rows,
                     matrix::Dense<T>& result);
})

#define LARCH_INSTANTIATE_HALO_KERNELS() \
    LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_HALO_KERNELS_FOR)
#define LARCH_INSTANTIATE_HALO_KERNELS_FOR(T, I)                                                   \
    template void gather_rows<T, I>(const DefaultExecutor&, const matrix::Dense<T>&, const array<I>&, \
                                    matrix::Dense<T>&)

}  // namespace kernels
}  // namespace larch
