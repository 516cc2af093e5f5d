// OpenMP kernels of the batched dense operations: the serial per-item algorithms of
// core/batch/dense_item_algorithms.hpp, in parallel over the items. Dynamic scheduling because the
// work per item grows with n^3 and variable-size batches mix 1x1 and 64x64 items.
#include "core/batch/batch_dense_kernels.hpp"

#include <algorithm>
#include <omp.h>

#include "core/batch/dense_item_algorithms.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace batch_dense {

namespace {

/// Runs body(item, work) for every item in parallel; `work` is one scratch buffer per thread.
template <typename T, typename Body>
void for_each_item(size_type num_items, Body body)
{
#pragma omp parallel
    {
        std::vector<T> work;
#pragma omp for schedule(dynamic, 16)
        for (std::int64_t item = 0; item < static_cast<std::int64_t>(num_items); ++item) {
            body(static_cast<size_type>(item), work);
        }
    }
}

}  // namespace

template <typename T>
void apply(const DefaultExecutor&, const batch::Dense<T>& a, const batch::Vector<T>& b,
           batch::Vector<T>& x)
{
    const auto& layout = a.get_layout();
    for_each_item<T>(a.get_num_items(), [&](size_type item, std::vector<T>&) {
        const auto size = layout.get_size(item);
        batch::item::apply(size.rows, size.cols, a.get_const_values() + layout.get_offset(item),
                           b.get_num_cols(),
                           b.get_const_values() + b.get_layout().get_offset(item),
                           x.get_values() + x.get_layout().get_offset(item));
    });
}

template <typename T>
void invert(const DefaultExecutor&, const batch::Dense<T>& a, batch::Dense<T>& inverse,
            std::int32_t* info)
{
    const auto& layout = a.get_layout();
    for_each_item<T>(a.get_num_items(), [&](size_type item, std::vector<T>& work) {
        const auto offset = layout.get_offset(item);
        info[item] = batch::item::invert(layout.get_size(item).rows, a.get_const_values() + offset,
                                         inverse.get_values() + offset, work);
    });
}

template <typename T>
void gauss_huard_factorize(const DefaultExecutor&, const batch::Dense<T>& a, batch::Dense<T>& factors,
                           std::int32_t* pivots, std::int32_t* info, bool transposed_storage)
{
    const auto& layout = factors.get_layout();
    for_each_item<T>(factors.get_num_items(), [&](size_type item, std::vector<T>& work) {
        const auto n = layout.get_size(item).rows;
        if (&a != &factors) {
            std::copy_n(a.get_const_values() + layout.get_offset(item), n * n,
                        factors.get_values() + layout.get_offset(item));
        }
        info[item] = batch::item::gauss_huard_factorize(
            layout.get_size(item).rows, factors.get_values() + layout.get_offset(item),
            pivots + layout.get_row_offset(item), transposed_storage, work);
    });
}

template <typename T>
void gauss_huard_solve(const DefaultExecutor&, const batch::Dense<T>& factors,
                       const std::int32_t* pivots, bool transposed_storage,
                       const batch::Vector<T>& b, batch::Vector<T>& x)
{
    const auto& layout = factors.get_layout();
    for_each_item<T>(factors.get_num_items(), [&](size_type item, std::vector<T>& work) {
        const auto vector_offset = b.get_layout().get_offset(item);
        batch::item::gauss_huard_solve(
            layout.get_size(item).rows, factors.get_const_values() + layout.get_offset(item),
            pivots + layout.get_row_offset(item), transposed_storage, b.get_num_cols(),
            b.get_const_values() + vector_offset, x.get_values() + vector_offset, work);
    });
}

template <typename T>
void compute_infinity_norms(const DefaultExecutor&, const batch::Dense<T>& a, T* norms)
{
    const auto& layout = a.get_layout();
    for_each_item<T>(a.get_num_items(), [&](size_type item, std::vector<T>&) {
        const auto size = layout.get_size(item);
        norms[item] = batch::item::infinity_norm(size.rows, size.cols,
                                                 a.get_const_values() + layout.get_offset(item));
    });
}

template <typename T>
void compute_condition_numbers(const DefaultExecutor&, const batch::Dense<T>& a,
                               batch::Dense<T>* inverse, T* cond, std::int32_t* info)
{
    const auto& layout = a.get_layout();
#pragma omp parallel
    {
        std::vector<T> work;
        std::vector<T> item_inverse;
#pragma omp for schedule(dynamic, 16)
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(a.get_num_items()); ++i) {
            const auto item = static_cast<size_type>(i);
            const auto n = layout.get_size(item).rows;
            const auto offset = layout.get_offset(item);
            const T* values = a.get_const_values() + offset;
            // without a requested inverse it goes to a per-thread buffer and is never written out
            T* result = inverse ? inverse->get_values() + offset
                                : (item_inverse.resize(n * n), item_inverse.data());
            const T norm = batch::item::infinity_norm(n, n, values);
            info[item] = batch::item::invert(n, values, result, work);
            const T inverse_norm = batch::item::infinity_norm(n, n, result);
            cond[item] = batch::item::condition_number(norm, inverse_norm, info[item]);
        }
    }
}

template <typename T>
void combine_condition_numbers(const DefaultExecutor&, size_type num_items, const T* norms,
                               const T* inverse_norms, const std::int32_t* info, T* cond)
{
#pragma omp parallel for
    for (std::int64_t item = 0; item < static_cast<std::int64_t>(num_items); ++item) {
        cond[item] = batch::item::condition_number(norms[item], inverse_norms[item], info[item]);
    }
}

LARCH_INSTANTIATE_BATCH_DENSE_KERNELS(float);
LARCH_INSTANTIATE_BATCH_DENSE_KERNELS(double);

}  // namespace batch_dense
}  // namespace omp
}  // namespace kernels
}  // namespace larch
