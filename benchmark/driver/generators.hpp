// The generated matrices a benchmark case can ask for ({"generator": "laplace3d", "n": 200}): each name
// maps to one of larch's generators (include/larch/generate/) and its parameters.
#pragma once

#include <cstdint>
#include <string>

#include "benchmark/driver/config.hpp"
#include "larch/base/matrix_data.hpp"

namespace larch {
namespace benchmark {

/// Checks the generator's name and parameters; throws ConfigError naming the bad field.
void validate_generator(const Fields& source);

/// "laplace3d(n=200)": the generator and its parameters, for tables.
std::string generator_name(const Fields& source);

/// The generated matrix (host-side coordinate data).
template <typename V, typename I>
matrix_data<V, I> generate_matrix(const Fields& source);

}  // namespace benchmark
}  // namespace larch
