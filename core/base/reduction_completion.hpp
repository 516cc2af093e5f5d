// Completion of a reduction's per-process partial results over the calling thread's reduction group
// (larch/base/process_group.hpp): what Dense's reductions and the solvers' fused reduction kernels call
// after computing over this process's rows. Without a current group they do nothing.
#pragma once

#include "core/components/instantiation.hpp"
#include "larch/base/executor.hpp"
#include "larch/base/process_group.hpp"

namespace larch {
namespace detail {

/// values[0 .. count) (partial sums, in memory of `exec`) become the sums over the group.
template <typename T>
void complete_sums(const Executor& exec, T* values, size_type count);

/// values[0 .. count) (2-norms of this process's rows, in memory of `exec`) become the group's 2-norms.
template <typename T>
void complete_norms(const Executor& exec, T* values, size_type count);

}  // namespace detail
}  // namespace larch
