// Host-side helpers shared by batch::Csr, batch::Coo and batch::Ell: a list of single matrices (any
// format, any executor) as per-item coordinate data, the exchange format all three are created from.
#pragma once

#include <string>
#include <vector>

#include "larch/base/exception.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace batch {
namespace detail {

/// The entries of a sparse matrix (matrix::Csr, Coo or Ell): its to_data().
template <typename V, typename I, typename Matrix>
matrix_data<V, I> item_data(const Matrix& item)
{
    return item.to_data();
}

/// The nonzero entries of a matrix::Dense (zeros dropped, as matrix::Csr::create_from does).
template <typename V, typename I>
matrix_data<V, I> item_data(const matrix::Dense<V>& item)
{
    auto data = item.template to_data<I>();
    std::vector<typename matrix_data<V, I>::entry> nonzeros;
    for (const auto& e : data.entries) {
        if (e.value != V{}) {
            nonzeros.push_back(e);
        }
    }
    data.entries = std::move(nonzeros);
    return data;
}

/// Coordinate data of every item (copied to the host); BadInput naming `context` for a null item.
template <typename V, typename I, typename Matrix>
std::vector<matrix_data<V, I>> items_to_data(const std::vector<const Matrix*>& items,
                                             const std::string& context)
{
    std::vector<matrix_data<V, I>> data;
    data.reserve(items.size());
    for (size_type item = 0; item < items.size(); ++item) {
        LARCH_ENSURE(items[item], BadInput, context + ": item " + std::to_string(item) + " is null");
        data.push_back(item_data<V, I>(*items[item]));
    }
    return data;
}

}  // namespace detail
}  // namespace batch
}  // namespace larch
