// batch::Dense::create_item_view, in its own file so that only programs using item views link
// matrix::Dense.
#include "larch/batch/dense.hpp"

namespace larch {
namespace batch {

template <typename T>
std::unique_ptr<matrix::Dense<T>> Dense<T>::create_item_view(size_type item)
{
    LARCH_ENSURE(item < get_num_items(), BadInput,
                 "batch::Dense::create_item_view: item " + std::to_string(item) +
                     " out of range (" + std::to_string(get_num_items()) + " items)");
    const auto size = layout_.get_size(item);
    const auto& exec = this->get_executor();
    auto view = array<T>::view(exec, size.rows * size.cols,
                               values_.get_data() + layout_.get_offset(item));
    return matrix::Dense<T>::create(exec, size, std::move(view), size.cols);
}

template std::unique_ptr<matrix::Dense<float>> Dense<float>::create_item_view(size_type);
template std::unique_ptr<matrix::Dense<double>> Dense<double>::create_item_view(size_type);

}  // namespace batch
}  // namespace larch
