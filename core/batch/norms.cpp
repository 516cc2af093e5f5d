// Batched infinity norms: one memory-bound kernel.
#include "larch/batch/norms.hpp"

#include "core/batch/batch_dense_kernels.hpp"

namespace larch {
namespace batch {

template <typename T>
array<T> compute_infinity_norms(const Dense<T>& a)
{
    const auto& exec = a.get_executor();
    array<T> norms{exec, a.get_num_items()};
    if (a.get_num_items() > 0) {
        LARCH_RUN_KERNEL(exec, batch_dense::compute_infinity_norms, a, norms.get_data());
    }
    return norms;
}

template array<float> compute_infinity_norms<float>(const Dense<float>&);
template array<double> compute_infinity_norms<double>(const Dense<double>&);

}  // namespace batch
}  // namespace larch
