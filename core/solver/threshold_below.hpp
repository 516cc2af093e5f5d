// The residual thresholds that solvers iterating on executor-resident scalars (Cg, Bicgstab) hand to their
// step kernels, which compare norms of type T where the host's monitor compares doubles.
#pragma once

#include <cmath>
#include <limits>

namespace larch {
namespace solver {

/// The largest T not above `threshold`, so that a norm of type T meets it on the executor exactly when
/// its double value meets it on the host.
template <typename T>
T threshold_below(double threshold)
{
    auto value = static_cast<T>(threshold);
    while (static_cast<double>(value) > threshold) {
        value = std::nextafter(value, -std::numeric_limits<T>::infinity());
    }
    return value;
}

}  // namespace solver
}  // namespace larch
