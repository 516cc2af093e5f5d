// The JSON spellings of the block-Jacobi choices that the solver and the batched-solver configurations
// share.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "larch/preconditioner/block_jacobi.hpp"

namespace larch {
namespace config {
namespace detail {

/// "row_matching": "automatic" | "none" | "maximum_product".
inline const std::vector<std::pair<std::string, preconditioner::BlockJacobiRowMatching>>& row_matching_choices()
{
    using preconditioner::BlockJacobiRowMatching;
    static const std::vector<std::pair<std::string, BlockJacobiRowMatching>> choices{
        {"automatic", BlockJacobiRowMatching::automatic},
        {"none", BlockJacobiRowMatching::none},
        {"maximum_product", BlockJacobiRowMatching::maximum_product}};
    return choices;
}

}  // namespace detail
}  // namespace config
}  // namespace larch
