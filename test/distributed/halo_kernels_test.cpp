// The halo exchange's row gather on every executor (no MPI needed): exact values, repeated rows, a strided
// source and an empty row list.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/base/kernel_dispatch.hpp"
#include "core/distributed/halo_kernels.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/executors.hpp"

namespace {

using larch::dim2;
using larch::size_type;
using Dense = larch::matrix::Dense<double>;

class HaloKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(HaloKernels, GatherRowsCopiesTheListedRowsInOrder)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // 6 x 2 with a stride of 3: entry (i, j) = 10 i + j, the padding 99.
    std::vector<double> values(6 * 3, 99.0);
    for (size_type i = 0; i < 6; ++i) {
        for (size_type j = 0; j < 2; ++j) {
            values[i * 3 + j] = 10.0 * i + j;
        }
    }
    const auto source = Dense::create(exec, dim2{6, 2}, larch::array<double>{exec, values.begin(), values.end()}, 3);
    const larch::array<std::int32_t> rows{exec, {3, 0, 3, 5}};
    auto result = Dense::create(exec, dim2{4, 2});
    LARCH_RUN_KERNEL(exec, halo::gather_rows, *source, rows, *result);
    EXPECT_EQ(result->copy_to_host(), (std::vector<double>{30, 31, 0, 1, 30, 31, 50, 51}));
    const larch::array<std::int32_t> none{exec};
    auto empty = Dense::create(exec, dim2{0, 2});
    LARCH_RUN_KERNEL(exec, halo::gather_rows, *source, none, *empty);
    EXPECT_EQ(empty->get_size(), (dim2{0, 2}));
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, HaloKernels, ::testing::ValuesIn(larch::test::executor_names()));

}  // namespace
