// Median, minimum and maximum of repetition times.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace larch {
namespace benchmark {

struct Summary {
    double median = 0.0;
    double min = 0.0;
    double max = 0.0;
};

/// Summary of at least one sample (the median of an even count is the mean of the middle two).
inline Summary summarize(std::vector<double> samples)
{
    if (samples.empty()) {
        throw std::invalid_argument("summarize: no samples");
    }
    std::sort(samples.begin(), samples.end());
    const auto middle = samples.size() / 2;
    const double median = samples.size() % 2 == 1
                              ? samples[middle]
                              : 0.5 * (samples[middle - 1] + samples[middle]);
    return Summary{median, samples.front(), samples.back()};
}

}  // namespace benchmark
}  // namespace larch
