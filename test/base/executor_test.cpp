// Executors: creation by name, every error make_executor can raise, and copies between executors.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/executor.hpp"
#include "larch/base/host_staging_buffer.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/executors.hpp"

namespace {

TEST(MakeExecutor, CreatesHostExecutorsByName)
{
    EXPECT_EQ(larch::make_executor("reference")->get_name(), "reference");
    EXPECT_EQ(larch::make_executor("omp")->get_name(), "omp");
    EXPECT_TRUE(larch::make_executor("omp")->is_host());
}

TEST(MakeExecutor, RejectsUnknownNameWithUnknownExecutor)
{
    EXPECT_THROW(larch::make_executor("gpu"), larch::UnknownExecutor);
    EXPECT_THROW(larch::make_executor(""), larch::UnknownExecutor);
    EXPECT_THROW(larch::make_executor("cuda:x"), larch::UnknownExecutor);
    EXPECT_THROW(larch::make_executor("cuda:"), larch::UnknownExecutor);
    EXPECT_THROW(larch::make_executor("hip:-1"), larch::UnknownExecutor);
}

TEST(MakeExecutor, TellsItsNamesWithoutCreatingAnExecutor)
{
    for (const std::string name : {"reference", "omp", "cuda", "cuda:0", "cuda:123456", "hip", "hip:7"}) {
        EXPECT_TRUE(larch::is_executor_name(name)) << name;
    }
    // each of these makes make_executor throw UnknownExecutor
    for (const std::string name : {"gpu", "", "cuda:x", "cuda:", "hip:-1", "cuda:1234567", "cudax", "omp:1"}) {
        EXPECT_FALSE(larch::is_executor_name(name)) << name;
        EXPECT_THROW(larch::make_executor(name), larch::UnknownExecutor) << name;
    }
}

TEST(MakeExecutor, UnknownNameMessageListsValidNames)
{
    try {
        larch::make_executor("cdua");
        FAIL() << "no exception";
    } catch (const larch::UnknownExecutor& e) {
        EXPECT_NE(std::string{e.what()}.find("reference, omp, cuda"), std::string::npos);
    }
}

TEST(MakeExecutor, MissingOrUnbuiltGpuBackendThrowsDistinctException)
{
    for (const std::string backend : {"cuda", "hip"}) {
        if (!larch::is_backend_built(backend)) {
            EXPECT_THROW(larch::make_executor(backend), larch::BackendNotBuilt) << backend;
        } else {
            // Device 4096 exists nowhere.
            EXPECT_THROW(larch::make_executor(backend + ":4096"), larch::DeviceNotFound) << backend;
        }
    }
}

class ExecutorCopy : public ::testing::TestWithParam<std::string> {};

TEST_P(ExecutorCopy, RoundTripsDataThroughEveryExecutor)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    auto host = larch::make_executor("reference");
    std::vector<double> values(1000);
    std::iota(values.begin(), values.end(), 0.5);
    larch::array<double> on_host{host, values.begin(), values.end()};
    larch::array<double> on_exec{exec, on_host};
    larch::array<double> again{exec, on_exec};
    larch::array<double> back{host, again};
    EXPECT_EQ(back.copy_to_host(), values);
    EXPECT_EQ(on_exec.get_executor(), exec);
}

TEST_P(ExecutorCopy, MoveKeepsBufferAndEmptiesSource)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::array<int> a{exec, {1, 2, 3}};
    const int* data = a.get_const_data();
    larch::array<int> b{std::move(a)};
    EXPECT_EQ(b.get_const_data(), data);
    EXPECT_EQ(a.get_size(), 0u);
    EXPECT_EQ(b.copy_to_host(), (std::vector<int>{1, 2, 3}));
}

TEST_P(ExecutorCopy, StagesThroughKeptHostBuffer)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    larch::HostStagingBuffer staging{exec};
    auto* small = static_cast<double*>(staging.get(8 * sizeof(double)));
    ASSERT_NE(small, nullptr);
    // A request that fits reuses the memory; a larger one grows it.
    EXPECT_EQ(staging.get(4 * sizeof(double)), small);
    auto* large = static_cast<double*>(staging.get(3000 * sizeof(double)));
    std::iota(large, large + 3000, 1.0);
    larch::array<double> on_exec{exec, 3000};
    exec->copy_from(*exec->get_host(), 3000 * sizeof(double), large, on_exec.get_data());
    auto* back = static_cast<double*>(staging.get(3000 * sizeof(double)));
    std::fill(back, back + 3000, 0.0);
    exec->get_host()->copy_from(*exec, 3000 * sizeof(double), on_exec.get_const_data(), back);
    EXPECT_EQ(back[0], 1.0);
    EXPECT_EQ(back[2999], 3000.0);
    EXPECT_EQ(exec->alloc_pinned_host(0), nullptr);
}

TEST_P(ExecutorCopy, AnArrayTooLargeToCountInBytesThrowsAllocationError)
{
    // 2^62 doubles are 2^65 bytes: the byte count wrapped around to 0, so the array got no memory but
    // claimed 2^62 elements, and the first write crashed.
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const larch::size_type elements = larch::size_type{1} << 62;
    EXPECT_THROW(larch::array<double>(exec, elements), larch::AllocationError);
    EXPECT_THROW(larch::matrix::Dense<double>::create(exec, larch::dim2{elements, 4}), larch::AllocationError);
    // declared by a Matrix Market header: 2^31 - 1 squared doubles, about 2^65 bytes
    const larch::size_type order = (larch::size_type{1} << 31) - 1;
    const larch::matrix_data<double> huge{larch::dim2{order, order}, {{0, 0, 1.0}}};
    EXPECT_THROW(larch::matrix::Dense<double>::create(exec, huge), larch::AllocationError);
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, ExecutorCopy,
                         ::testing::ValuesIn(larch::test::executor_names()));

TEST(ArrayView, DoesNotOwnAndCannotBeResized)
{
    auto exec = larch::make_executor("reference");
    std::vector<double> storage{1, 2, 3};
    auto view = larch::array<double>::view(exec, 3, storage.data());
    EXPECT_TRUE(view.is_view());
    larch::array<double> longer{exec, {1, 2, 3, 4}};
    EXPECT_THROW(view.copy_from(longer), larch::DimensionMismatch);
    larch::array<double> other{exec, {7, 8, 9}};
    view.copy_from(other);
    EXPECT_EQ(storage, (std::vector<double>{7, 8, 9}));
}

}  // namespace
