// Batched Gauss-Jordan inversion: validation in core, then one kernel.
#include "larch/batch/gauss_jordan.hpp"

#include "core/batch/batch_dense_kernels.hpp"
#include "core/batch/validation.hpp"

namespace larch {
namespace batch {

template <typename T>
void invert(const Dense<T>& a, Dense<T>& inverse, array<std::int32_t>& info)
{
    detail::ensure_square_items(a, "batch::invert");
    detail::ensure_same_layout(a, inverse, "batch::invert", "the inverse");
    const auto& exec = a.get_executor();
    if (info.get_executor() != exec || info.get_size() != a.get_num_items()) {
        info = array<std::int32_t>{exec, a.get_num_items()};
    }
    if (a.get_num_items() > 0) {
        LARCH_RUN_KERNEL(exec, batch_dense::invert, a, inverse, info.get_data());
    }
}

template <typename T>
array<std::int32_t> invert(const Dense<T>& a, Dense<T>& inverse)
{
    array<std::int32_t> info{a.get_executor()};
    invert(a, inverse, info);
    return info;
}

template <typename T>
array<std::int32_t> invert(Dense<T>& a)
{
    return invert(static_cast<const Dense<T>&>(a), a);
}

template void invert<float>(const Dense<float>&, Dense<float>&, array<std::int32_t>&);
template array<std::int32_t> invert<float>(const Dense<float>&, Dense<float>&);
template array<std::int32_t> invert<float>(Dense<float>&);
template void invert<double>(const Dense<double>&, Dense<double>&, array<std::int32_t>&);
template array<std::int32_t> invert<double>(const Dense<double>&, Dense<double>&);
template array<std::int32_t> invert<double>(Dense<double>&);

}  // namespace batch
}  // namespace larch
