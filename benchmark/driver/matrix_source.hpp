// Where a benchmark case's matrix comes from: a Matrix Market file (relative to the matrix directory) or
// one of larch's generators, described by a JSON object such as {"file": "bcsstk16.mtx"} or
// {"generator": "laplace3d", "n": 200}.
#pragma once

#include <cstdint>
#include <string>

#include "benchmark/driver/config.hpp"
#include "larch/base/matrix_data.hpp"

namespace larch {
namespace benchmark {

/// Checks a matrix description without loading anything; throws ConfigError naming the bad field.
void validate_matrix_source(const Fields& source);

/// A short name of the matrix for tables: the file name, or "laplace3d(n=200)".
std::string matrix_source_name(const Fields& source);

/// The matrix with duplicates summed and entries sorted by row. Relative file paths are read from
/// `matrix_dir`; throws BadInput (file) or ConfigError (generator parameters).
template <typename V, typename I = std::int32_t>
matrix_data<V, I> load_matrix(const Fields& source, const std::string& matrix_dir);

}  // namespace benchmark
}  // namespace larch
