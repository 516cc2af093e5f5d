// What the benchmark prints: one progress line per case and a table at the end.
#pragma once

#include <string>

#include "benchmark/driver/config.hpp"

namespace larch {
namespace benchmark {

/// `value` with `significant` significant digits ("1.23e-05", "456.7").
std::string format_number(double value, int significant);

/// "[3/12] spmv omp double csr laplace3d(n=50): 1.23 ms, ..." for one case record.
void print_progress(size_t index, size_t count, const json& record);

/// The table of all case records (time, GFLOP/s, GB/s, fraction of copy bandwidth, vendor ratio, error).
void print_table(const json& records);

}  // namespace benchmark
}  // namespace larch
