// Helpers of the batched dense tests: random variable-size batches with a fixed seed, and host-side
// products and norms used as oracles.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "larch/batch/dense.hpp"

namespace larch {
namespace test {

/// Square sizes 1..32 in random order, then items larger than a warp: 33, 40, 64 and 65, 100, 128 (the
/// two orders of the thread-block inversion) and 129 (one thread per item).
inline std::vector<dim2> mixed_square_sizes(std::mt19937& rng, size_type num_small)
{
    std::uniform_int_distribution<size_type> size_dist(1, 32);
    std::vector<dim2> sizes;
    for (size_type i = 0; i < num_small; ++i) {
        sizes.emplace_back(size_dist(rng));
    }
    for (size_type n : {32, 33, 40, 64, 65, 100, 128, 129, 1}) {
        sizes.emplace_back(n);
    }
    return sizes;
}

/// Uniform [-1, 1] values for every item of `sizes`.
template <typename T>
std::vector<T> random_values(std::mt19937& rng, const std::vector<dim2>& sizes)
{
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> values;
    for (const auto& size : sizes) {
        for (size_type i = 0; i < size.rows * size.cols; ++i) {
            values.push_back(static_cast<T>(dist(rng)));
        }
    }
    return values;
}

/// max_ij |(A X)(i, j) - I(i, j)| of two n x n row-major items, accumulated in double.
template <typename T>
double identity_defect(size_type n, const T* a, const T* x)
{
    double defect = 0;
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            double sum = 0;
            for (size_type k = 0; k < n; ++k) {
                sum += double(a[i * n + k]) * double(x[k * n + j]);
            }
            defect = std::max(defect, std::abs(sum - (i == j ? 1.0 : 0.0)));
        }
    }
    return defect;
}

/// max_ij |a_ij - b_ij| / max_ij |b_ij| over `count` values.
template <typename T>
double relative_max_difference(size_type count, const T* a, const T* b)
{
    double diff = 0;
    double scale = 0;
    for (size_type i = 0; i < count; ++i) {
        diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::abs(double(b[i])));
    }
    return scale > 0 ? diff / scale : diff;
}

}  // namespace test
}  // namespace larch
