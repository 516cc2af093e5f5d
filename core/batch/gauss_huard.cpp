// batch::GaussHuard: the factory, the decomposition kernel at generation and the solve kernel at apply.
#include "larch/batch/gauss_huard.hpp"

#include "core/batch/batch_dense_kernels.hpp"
#include "core/batch/validation.hpp"

namespace larch {
namespace batch {

template <typename T>
std::unique_ptr<typename GaussHuard<T>::Factory> GaussHuard<T>::parameters_type::on(
    std::shared_ptr<const Executor> exec) const
{
    LARCH_ENSURE(exec, BadInput, "GaussHuard::build().on: the executor is null");
    return std::make_unique<Factory>(std::move(exec), *this);
}

template <typename T>
std::unique_ptr<GaussHuard<T>> GaussHuard<T>::Factory::generate(ptr_param<const Dense<T>> a) const
{
    LARCH_ENSURE(a.get(), BadInput, "GaussHuard::generate: the batch is null");
    detail::ensure_square_items(*a, "GaussHuard::generate");
    // The kernel reads A and writes the factors in one pass; an A on another executor is copied first.
    if (a->get_executor() == exec_) {
        return std::unique_ptr<GaussHuard>{new GaussHuard{*a, parameters_.storage}};
    }
    const auto local = a->clone_to(exec_);
    return std::unique_ptr<GaussHuard>{new GaussHuard{*local, parameters_.storage}};
}

template <typename T>
GaussHuard<T>::GaussHuard(const Dense<T>& a, GaussHuardStorage storage)
    : BatchLinOp<T>(a.get_executor()), factors_{Dense<T>::create_with_layout_of(a.get_executor(), a)},
      storage_{storage},
      pivots_{this->get_executor(), factors_->get_layout().get_num_rows()},
      info_{this->get_executor(), factors_->get_num_items()}
{
    if (factors_->get_num_items() > 0) {
        LARCH_RUN_KERNEL(this->get_executor(), batch_dense::gauss_huard_factorize, a, *factors_,
                         pivots_.get_data(), info_.get_data(),
                         storage_ == GaussHuardStorage::transposed);
    }
}

template <typename T>
void GaussHuard<T>::solve(const Vector<T>& b, Vector<T>& x) const
{
    if (&b != &x) {
        this->apply(b, x);
        return;
    }
    // In place: the same checks as apply() with b standing for both operands.
    const auto num_items = get_num_items();
    if (b.get_num_items() != num_items) {
        LARCH_THROW(DimensionMismatch, get_type_name() + "::solve: the decomposition has " +
                                           std::to_string(num_items) + " items but b has " +
                                           std::to_string(b.get_num_items()));
    }
    for (size_type item = 0; item < num_items; ++item) {
        if (b.get_item_size(item).rows != this->get_item_size(item).rows) {
            LARCH_THROW(DimensionMismatch, get_type_name() + "::solve: item " +
                                               std::to_string(item) + " is " +
                                               to_string(this->get_item_size(item)) + " but b has " +
                                               std::to_string(b.get_item_size(item).rows) +
                                               " rows");
        }
    }
    LARCH_ENSURE(this->get_executor()->memory_accessible(*b.get_executor()), NotSupported,
                 get_type_name() + "::solve: b lives on " + b.get_executor()->get_name() +
                     " but the decomposition on " + this->get_executor()->get_name());
    apply_impl(b, x);
}

template <typename T>
void GaussHuard<T>::apply_impl(const Vector<T>& b, Vector<T>& x) const
{
    if (get_num_items() > 0) {
        LARCH_RUN_KERNEL(this->get_executor(), batch_dense::gauss_huard_solve, *factors_,
                         pivots_.get_const_data(), storage_ == GaussHuardStorage::transposed, b,
                         x);
    }
}

template <typename T>
std::string GaussHuard<T>::get_type_name() const
{
    return std::string{"batch::GaussHuard<"} + type_name<T>() + ">";
}

template class GaussHuard<float>;
template class GaussHuard<double>;

}  // namespace batch
}  // namespace larch
