// CondEstimator: the fused kernel, or the composed sequence norm, invert, norm, product.
#include "larch/batch/cond_estimator.hpp"

#include "core/batch/batch_dense_kernels.hpp"
#include "core/batch/validation.hpp"

namespace larch {
namespace batch {

template <typename T>
std::unique_ptr<typename CondEstimator<T>::Factory> CondEstimator<T>::parameters_type::on(
    std::shared_ptr<const Executor> exec) const
{
    LARCH_ENSURE(exec, BadInput, "CondEstimator::build().on: the executor is null");
    return std::make_unique<Factory>(std::move(exec), *this);
}

template <typename T>
std::unique_ptr<CondEstimator<T>> CondEstimator<T>::Factory::generate(
    ptr_param<const Dense<T>> input) const
{
    LARCH_ENSURE(input.get(), BadInput, "CondEstimator::generate: the batch is null");
    detail::ensure_square_items(*input, "CondEstimator::generate");
    std::unique_ptr<Dense<T>> copy;
    const auto& a = detail::on_executor(*input, exec_, copy);
    const auto num_items = a.get_num_items();
    array<T> cond{exec_, num_items};
    array<std::int32_t> info{exec_, num_items};
    std::shared_ptr<Dense<T>> inverse;
    if (parameters_.keep_inverse || parameters_.algorithm == CondAlgorithm::composed) {
        inverse = Dense<T>::create_with_layout_of(exec_, a);
    }
    if (num_items > 0) {
        if (parameters_.algorithm == CondAlgorithm::fused) {
            LARCH_RUN_KERNEL(exec_, batch_dense::compute_condition_numbers, a, inverse.get(),
                             cond.get_data(), info.get_data());
        } else {
            array<T> norms{exec_, num_items};
            array<T> inverse_norms{exec_, num_items};
            LARCH_RUN_KERNEL(exec_, batch_dense::compute_infinity_norms, a, norms.get_data());
            LARCH_RUN_KERNEL(exec_, batch_dense::invert, a, *inverse, info.get_data());
            LARCH_RUN_KERNEL(exec_, batch_dense::compute_infinity_norms, *inverse,
                             inverse_norms.get_data());
            LARCH_RUN_KERNEL(exec_, batch_dense::combine_condition_numbers, num_items,
                             norms.get_const_data(), inverse_norms.get_const_data(),
                             info.get_const_data(), cond.get_data());
        }
    }
    if (!parameters_.keep_inverse) {
        inverse.reset();
    }
    return std::unique_ptr<CondEstimator>{
        new CondEstimator{std::move(cond), std::move(info), std::move(inverse)}};
}

template class CondEstimator<float>;
template class CondEstimator<double>;

}  // namespace batch
}  // namespace larch
