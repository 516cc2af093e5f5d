// batch::Vector<T>: creation, copies between executors and host access.
#include "larch/batch/vector.hpp"

#include "larch/base/exception.hpp"

namespace larch {
namespace batch {
namespace {

std::vector<dim2> vector_item_sizes(const std::vector<size_type>& item_rows, size_type num_cols)
{
    LARCH_ENSURE(num_cols > 0, BadInput, "batch::Vector: num_cols must be at least 1");
    std::vector<dim2> sizes;
    sizes.reserve(item_rows.size());
    for (const auto rows : item_rows) {
        sizes.emplace_back(rows, num_cols);
    }
    return sizes;
}

}  // namespace

template <typename T>
Vector<T>::Vector(ItemLayout layout, size_type num_cols, array<T> values)
    : layout_{std::move(layout)}, num_cols_{num_cols}, values_{std::move(values)}
{}

template <typename T>
std::unique_ptr<Vector<T>> Vector<T>::create(std::shared_ptr<const Executor> exec,
                                             const std::vector<size_type>& item_rows,
                                             size_type num_cols)
{
    ItemLayout layout{exec, vector_item_sizes(item_rows, num_cols)};
    array<T> values{exec, layout.get_num_elements()};
    return std::unique_ptr<Vector>{new Vector{std::move(layout), num_cols, std::move(values)}};
}

template <typename T>
std::unique_ptr<Vector<T>> Vector<T>::create(std::shared_ptr<const Executor> exec,
                                             const std::vector<size_type>& item_rows,
                                             size_type num_cols, const std::vector<T>& values)
{
    ItemLayout layout{exec, vector_item_sizes(item_rows, num_cols)};
    if (values.size() != layout.get_num_elements()) {
        LARCH_THROW(DimensionMismatch, "batch::Vector::create: " + std::to_string(values.size()) +
                                           " values given but the items hold " +
                                           std::to_string(layout.get_num_elements()));
    }
    array<T> data{exec, values.begin(), values.end()};
    return std::unique_ptr<Vector>{new Vector{std::move(layout), num_cols, std::move(data)}};
}

template <typename T>
std::unique_ptr<Vector<T>> Vector<T>::create_with_layout_of(std::shared_ptr<const Executor> exec,
                                                            const Vector& other)
{
    auto layout = other.layout_.clone_to(exec);
    array<T> values{exec, layout.get_num_elements()};
    return std::unique_ptr<Vector>{new Vector{std::move(layout), other.num_cols_, std::move(values)}};
}

template <typename T>
std::unique_ptr<Vector<T>> Vector<T>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return std::unique_ptr<Vector>{
        new Vector{layout_.clone_to(exec), num_cols_, array<T>{exec, values_}}};
}

template <typename T>
std::vector<T> Vector<T>::copy_item_to_host(size_type item) const
{
    LARCH_ENSURE(item < get_num_items(), BadInput,
                 "batch::Vector::copy_item_to_host: item " + std::to_string(item) +
                     " out of range (" + std::to_string(get_num_items()) + " items)");
    const auto begin = layout_.get_offset(item);
    std::vector<T> host(static_cast<size_type>(layout_.get_offset(item + 1) - begin));
    const auto& exec = get_executor();
    exec->get_host()->copy_from(*exec, host.size() * sizeof(T), values_.get_const_data() + begin,
                                host.data());
    return host;
}

template <typename T>
void Vector<T>::fill(T value)
{
    const std::vector<T> host(values_.get_size(), value);
    const auto& exec = get_executor();
    exec->copy_from(*exec->get_host(), host.size() * sizeof(T), host.data(), values_.get_data());
}

template <typename T>
std::string Vector<T>::get_type_name() const
{
    return std::string{"batch::Vector<"} + type_name<T>() + ">";
}

template class Vector<float>;
template class Vector<double>;

}  // namespace batch
}  // namespace larch
