// batch::Dense<T>: creation from sizes, host data or a list of matrices, copies, and batched apply.
#include "larch/batch/dense.hpp"

#include "core/batch/batch_dense_kernels.hpp"
#include "core/batch/validation.hpp"

namespace larch {
namespace batch {
namespace {

std::string item_range_message(const char* operation, size_type item, size_type num_items)
{
    return std::string{"batch::Dense::"} + operation + ": item " + std::to_string(item) +
           " out of range (" + std::to_string(num_items) + " items)";
}

}  // namespace

template <typename T>
Dense<T>::Dense(ItemLayout layout, array<T> values)
    : BatchLinOp<T>(layout.get_executor()), layout_{std::move(layout)}, values_{std::move(values)}
{}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec,
                                           std::vector<dim2> sizes)
{
    ItemLayout layout{exec, std::move(sizes)};
    array<T> values{exec, layout.get_num_elements()};
    return std::unique_ptr<Dense>{new Dense{std::move(layout), std::move(values)}};
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec,
                                           std::vector<dim2> sizes, const std::vector<T>& values)
{
    return create(exec, std::move(sizes), array<T>{exec, values.begin(), values.end()});
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create(std::shared_ptr<const Executor> exec,
                                           std::vector<dim2> sizes, array<T> values)
{
    ItemLayout layout{exec, std::move(sizes)};
    if (values.get_size() != layout.get_num_elements()) {
        LARCH_THROW(DimensionMismatch, "batch::Dense::create: " +
                                           std::to_string(values.get_size()) +
                                           " values given but the items hold " +
                                           std::to_string(layout.get_num_elements()));
    }
    array<T> on_exec{exec};
    on_exec = std::move(values);
    return std::unique_ptr<Dense>{new Dense{std::move(layout), std::move(on_exec)}};
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create_from_items(
    std::shared_ptr<const Executor> exec, const std::vector<const matrix::Dense<T>*>& items)
{
    std::vector<dim2> sizes;
    sizes.reserve(items.size());
    for (size_type item = 0; item < items.size(); ++item) {
        LARCH_ENSURE(items[item], BadInput,
                     "batch::Dense::create_from_items: item " + std::to_string(item) + " is null");
        sizes.push_back(items[item]->get_size());
    }
    auto result = create(exec, std::move(sizes));
    for (size_type item = 0; item < items.size(); ++item) {
        const auto& source = *items[item];
        const auto cols = source.get_size().cols;
        auto dest = result->get_values() + result->layout_.get_offset(item);
        // Rows one by one: the source may have a stride larger than its column count.
        for (size_type row = 0; row < source.get_size().rows; ++row) {
            exec->copy_from(*source.get_executor(), cols * sizeof(T),
                            source.get_const_values() + row * source.get_stride(),
                            dest + row * cols);
        }
    }
    return result;
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::create_with_layout_of(std::shared_ptr<const Executor> exec,
                                                          const Dense& other)
{
    auto layout = other.layout_.clone_to(exec);
    array<T> values{exec, layout.get_num_elements()};
    return std::unique_ptr<Dense>{new Dense{std::move(layout), std::move(values)}};
}

template <typename T>
std::unique_ptr<Dense<T>> Dense<T>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return std::unique_ptr<Dense>{new Dense{layout_.clone_to(exec), array<T>{exec, values_}}};
}

template <typename T>
void Dense<T>::copy_from(const Dense& other)
{
    if (!layout_.same_sizes(other.layout_)) {
        LARCH_THROW(DimensionMismatch, "batch::Dense::copy_from: the source must have this batch's item sizes: " +
                                           detail::size_difference(other.layout_, layout_));
    }
    values_.copy_from(other.values_);
}

template <typename T>
std::vector<T> Dense<T>::copy_item_to_host(size_type item) const
{
    LARCH_ENSURE(item < get_num_items(), BadInput,
                 item_range_message("copy_item_to_host", item, get_num_items()));
    const auto begin = layout_.get_offset(item);
    std::vector<T> host(static_cast<size_type>(layout_.get_offset(item + 1) - begin));
    const auto& exec = this->get_executor();
    exec->get_host()->copy_from(*exec, host.size() * sizeof(T), values_.get_const_data() + begin,
                                host.data());
    return host;
}

template <typename T>
std::string Dense<T>::get_type_name() const
{
    return std::string{"batch::Dense<"} + type_name<T>() + ">";
}

template <typename T>
void Dense<T>::apply_impl(const Vector<T>& b, Vector<T>& x) const
{
    if (get_num_items() > 0) {
        LARCH_RUN_KERNEL(this->get_executor(), batch_dense::apply, *this, b, x);
    }
}

template class Dense<float>;
template class Dense<double>;

}  // namespace batch
}  // namespace larch
