// Reference kernels of the batched dense operations: a plain loop over the items calling the serial
// per-item algorithms of core/batch/dense_item_algorithms.hpp (the papers' listings, step for step).
#include "core/batch/batch_dense_kernels.hpp"

#include <algorithm>

#include "core/batch/dense_item_algorithms.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace batch_dense {

namespace {

/// Where an item lies, from the layout's host copies.
struct item_shape {
    size_type rows;
    size_type cols;
    std::int64_t offset;
    std::int64_t row_offset;
};

item_shape shape_of(const batch::ItemLayout& layout, size_type item)
{
    const auto size = layout.get_size(item);
    return {size.rows, size.cols, layout.get_offset(item), layout.get_row_offset(item)};
}

}  // namespace

template <typename T>
void apply(const DefaultExecutor&, const batch::Dense<T>& a, const batch::Vector<T>& b,
           batch::Vector<T>& x)
{
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        const auto shape = shape_of(a.get_layout(), item);
        batch::item::apply(shape.rows, shape.cols, a.get_const_values() + shape.offset,
                           b.get_num_cols(),
                           b.get_const_values() + b.get_layout().get_offset(item),
                           x.get_values() + x.get_layout().get_offset(item));
    }
}

template <typename T>
void invert(const DefaultExecutor&, const batch::Dense<T>& a, batch::Dense<T>& inverse,
            std::int32_t* info)
{
    std::vector<T> work;
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        const auto shape = shape_of(a.get_layout(), item);
        info[item] = batch::item::invert(shape.rows, a.get_const_values() + shape.offset,
                                         inverse.get_values() + shape.offset, work);
    }
}

template <typename T>
void gauss_huard_factorize(const DefaultExecutor&, const batch::Dense<T>& a, batch::Dense<T>& factors,
                           std::int32_t* pivots, std::int32_t* info, bool transposed_storage)
{
    std::vector<T> work;
    for (size_type item = 0; item < factors.get_num_items(); ++item) {
        const auto shape = shape_of(factors.get_layout(), item);
        if (&a != &factors) {
            std::copy_n(a.get_const_values() + shape.offset, shape.rows * shape.rows,
                        factors.get_values() + shape.offset);
        }
        info[item] = batch::item::gauss_huard_factorize(
            shape.rows, factors.get_values() + shape.offset, pivots + shape.row_offset,
            transposed_storage, work);
    }
}

template <typename T>
void gauss_huard_solve(const DefaultExecutor&, const batch::Dense<T>& factors,
                       const std::int32_t* pivots, bool transposed_storage,
                       const batch::Vector<T>& b, batch::Vector<T>& x)
{
    std::vector<T> work;
    for (size_type item = 0; item < factors.get_num_items(); ++item) {
        const auto shape = shape_of(factors.get_layout(), item);
        const auto vector_offset = b.get_layout().get_offset(item);
        batch::item::gauss_huard_solve(shape.rows, factors.get_const_values() + shape.offset,
                                       pivots + shape.row_offset, transposed_storage,
                                       b.get_num_cols(), b.get_const_values() + vector_offset,
                                       x.get_values() + vector_offset, work);
    }
}

template <typename T>
void compute_infinity_norms(const DefaultExecutor&, const batch::Dense<T>& a, T* norms)
{
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        const auto shape = shape_of(a.get_layout(), item);
        norms[item] =
            batch::item::infinity_norm(shape.rows, shape.cols, a.get_const_values() + shape.offset);
    }
}

template <typename T>
void compute_condition_numbers(const DefaultExecutor&, const batch::Dense<T>& a,
                               batch::Dense<T>* inverse, T* cond, std::int32_t* info)
{
    std::vector<T> work;
    std::vector<T> item_inverse;
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        const auto shape = shape_of(a.get_layout(), item);
        const auto n = shape.rows;
        const T* values = a.get_const_values() + shape.offset;
        const T norm = batch::item::infinity_norm(n, n, values);
        item_inverse.resize(n * n);
        info[item] = batch::item::invert(n, values, item_inverse.data(), work);
        const T inverse_norm = batch::item::infinity_norm(n, n, item_inverse.data());
        cond[item] = batch::item::condition_number(norm, inverse_norm, info[item]);
        if (inverse) {
            std::copy(item_inverse.begin(), item_inverse.end(),
                      inverse->get_values() + shape.offset);
        }
    }
}

template <typename T>
void combine_condition_numbers(const DefaultExecutor&, size_type num_items, const T* norms,
                               const T* inverse_norms, const std::int32_t* info, T* cond)
{
    for (size_type item = 0; item < num_items; ++item) {
        cond[item] = batch::item::condition_number(norms[item], inverse_norms[item], info[item]);
    }
}

LARCH_INSTANTIATE_BATCH_DENSE_KERNELS(float);
LARCH_INSTANTIATE_BATCH_DENSE_KERNELS(double);

}  // namespace batch_dense
}  // namespace reference
}  // namespace kernels
}  // namespace larch
