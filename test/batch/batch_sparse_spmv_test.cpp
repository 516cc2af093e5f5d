// Batched sparse SpMV on every built executor and with every CUDA/HIP kernel, against the reference
// executor: random heterogeneous batches (rectangular items, empty rows, one dense row in every tenth
// item, shared patterns), a batch of every real matrix with at most 1,024 rows, and a batch mixing in
// larger ones whose b_i does not fit in shared memory (the kernels' global-memory path).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/io/batch_matrix_market.hpp"
#include "test/batch/batch_sparse_test_helpers.hpp"
#include "test/utils/executors.hpp"

namespace {

using larch::matrix_data;
using larch::size_type;
using larch::batch::CsrSpmvKernel;
using larch::batch::PatternSharing;
using larch::batch::Vector;

constexpr unsigned seed = 20261123;

/// The formats and kernels under test: "csr_<kernel>" (every CsrSpmvKernel), "coo", "ell".
std::vector<std::string> variant_names()
{
    return {"csr_automatic", "csr_scalar", "csr_vector", "csr_smart", "csr_balanced", "csr_stream",
            "coo",           "ell"};
}

/// Parameter: (executor, variant).
class BatchSparseSpmv
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
protected:
    std::shared_ptr<const larch::Executor> ref = larch::make_executor("reference");

    /**
     * Builds the batch of `items` in the variant's format on the executor under test and on the
     * reference, applies both (plain, and scaled with alpha = 1.5, beta = -0.5 on a random x), and
     * compares entry by entry: each result is a sum of at most row_nnz + 1 rounded products, so both
     * lie within (row_nnz + 2) eps sum |alpha a_ij b_j| + |beta x| of the exact value.
     */
    template <typename T>
    void check(const std::vector<matrix_data<T>>& items, size_type num_cols,
               PatternSharing sharing = PatternSharing::detect)
    {
        const auto& [exec_name, variant] = GetParam();
        LARCH_EXECUTOR_OR_SKIP(exec, exec_name);
        if (variant.rfind("csr_", 0) == 0) {
            auto a = larch::batch::Csr<T>::create(exec, items, sharing);
            a->set_spmv_kernel(larch::batch::csr_spmv_kernel_from_string(variant.substr(4)));
            compare(*a, *larch::batch::Csr<T>::create(ref, items, sharing), items, num_cols);
        } else if (variant == "coo") {
            compare(*larch::batch::Coo<T>::create(exec, items, sharing),
                    *larch::batch::Coo<T>::create(ref, items, sharing), items, num_cols);
        } else {
            compare(*larch::batch::Ell<T>::create(exec, items, sharing),
                    *larch::batch::Ell<T>::create(ref, items, sharing), items, num_cols);
        }
    }

    template <typename Batch, typename T>
    void compare(const Batch& a, const Batch& a_ref, const std::vector<matrix_data<T>>& items,
                 size_type num_cols)
    {
        const auto exec = a.get_executor();
        const auto b = larch::test::random_vector<T>(ref, a_ref, num_cols, false, seed);
        const auto x_start = larch::test::random_vector<T>(ref, a_ref, num_cols, true, seed + 1);
        const auto bound = error_bounds(items, b->copy_to_host(), x_start->copy_to_host(), num_cols);
        for (const bool scaled : {false, true}) {
            auto x_ref = x_start->clone_to(ref);
            auto x = x_start->clone_to(exec);
            if (scaled) {
                a_ref.apply(T{1.5}, *b, T{-0.5}, *x_ref);
                a.apply(T{1.5}, *b->clone_to(exec), T{-0.5}, *x);
            } else {
                a_ref.apply(*b, *x_ref);
                a.apply(*b->clone_to(exec), *x);
            }
            const auto expected = x_ref->copy_to_host();
            const auto result = x->copy_to_host();
            ASSERT_EQ(result.size(), expected.size());
            size_type failures = 0;
            for (size_type e = 0; e < result.size() && failures < 5; ++e) {
                const double tolerance = scaled ? bound.scaled[e] : bound.plain[e];
                if (!(std::abs(double(result[e]) - double(expected[e])) <= tolerance)) {
                    ++failures;
                    ADD_FAILURE() << "entry " << e << (scaled ? " (scaled)" : "") << ": "
                                  << result[e] << " vs reference " << expected[e]
                                  << ", tolerance " << tolerance << ", seed " << seed;
                }
            }
        }
    }

    struct Bounds {
        std::vector<double> plain;
        std::vector<double> scaled;
    };

    template <typename T>
    static Bounds error_bounds(const std::vector<matrix_data<T>>& items, const std::vector<T>& b,
                               const std::vector<T>& x, size_type num_cols)
    {
        const double eps = std::numeric_limits<T>::epsilon();
        Bounds bounds;
        size_type b_offset = 0;
        for (const auto& data : items) {
            std::vector<double> abs_sum(data.size.rows * num_cols, 0.0);
            std::vector<size_type> row_nnz(data.size.rows, 0);
            for (const auto& e : data.entries) {
                ++row_nnz[e.row];
                for (size_type c = 0; c < num_cols; ++c) {
                    abs_sum[e.row * num_cols + c] += std::abs(
                        double(e.value) * double(b[b_offset + e.col * num_cols + c]));
                }
            }
            for (size_type r = 0; r < data.size.rows; ++r) {
                for (size_type c = 0; c < num_cols; ++c) {
                    const double factor = 2.0 * double(row_nnz[r] + 2) * eps;
                    const auto old = std::abs(double(x[bounds.plain.size()]));
                    bounds.scaled.push_back(factor * (1.5 * abs_sum[r * num_cols + c] + 0.5 * old));
                    bounds.plain.push_back(factor * abs_sum[r * num_cols + c]);
                }
            }
            b_offset += data.size.cols * num_cols;
        }
        return bounds;
    }
};

TEST_P(BatchSparseSpmv, MatchesReferenceOnRandomHeterogeneousBatchInDouble)
{
    std::mt19937 rng{seed};
    check(larch::test::random_sparse_items<double>(rng, 300, 200, 6), 1);
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnRandomHeterogeneousBatchInFloatWithThreeColumns)
{
    std::mt19937 rng{seed + 2};
    check(larch::test::random_sparse_items<float>(rng, 200, 100, 3), 3);
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnLongRowsAndOneRowItems)
{
    std::mt19937 rng{seed + 3};
    auto items = larch::test::random_sparse_items<double>(rng, 50, 64, 40);
    const auto one_row = larch::test::random_sparse_items<double>(rng, 50, 1, 1);
    items.insert(items.end(), one_row.begin(), one_row.end());
    check(items, 2);
}

/**
 * Two items whose rows cross the stream kernel's chunks of `chunk` entries (256 threads x 32 bytes of
 * values: 1,024 doubles, 2,048 floats). Item 0: empty rows first and last, one row longer than two chunks
 * between rows of one entry; item 1: rows of chunk - 1, 1 and chunk + 1 nonzeros, so that row ends fall
 * just before, on and after chunk ends.
 */
template <typename T>
std::vector<matrix_data<T>> rows_crossing_chunks(size_type chunk, unsigned rng_seed)
{
    std::mt19937 rng{rng_seed};
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    const size_type long_row = 2 * chunk + chunk / 2;
    const size_type crossing_cols = long_row + chunk / 2;
    matrix_data<T> crossing{larch::dim2{8, crossing_cols}};
    for (size_type row = 1; row < 7; ++row) {
        const size_type length = row == 3 ? long_row : 1;
        for (size_type col = 0; col < length; ++col) {
            crossing.entries.push_back({static_cast<std::int32_t>(row),
                                        static_cast<std::int32_t>((col * 7 + row) % crossing_cols),
                                        T(value(rng))});
        }
    }
    matrix_data<T> edges{larch::dim2{3, chunk + 76}};
    const size_type lengths[] = {chunk - 1, 1, chunk + 1};
    for (size_type row = 0; row < 3; ++row) {
        for (size_type col = 0; col < lengths[row]; ++col) {
            edges.entries.push_back(
                {static_cast<std::int32_t>(row), static_cast<std::int32_t>(col), T(value(rng))});
        }
    }
    for (auto* item : {&crossing, &edges}) {
        item->sort_row_major();
    }
    return {crossing, edges};
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnRowsCrossingSeveralChunks)
{
    check(rows_crossing_chunks<double>(1024, seed + 6), 2);
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnRowsCrossingSeveralChunksInFloat)
{
    check(rows_crossing_chunks<float>(2048, seed + 7), 2);
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnManySmallItemsPackedIntoBlocks)
{
    // Items of at most 20 rows with about 2 nonzeros per row: the CUDA/HIP row kernels (scalar, smart,
    // ELL) pack eight of them into one block, a warp each, where the batch still gives every SM eight
    // blocks (10,000 items on 132 SMs); 10,001 items leave the last block part full.
    std::mt19937 rng{seed + 5};
    check(larch::test::random_sparse_items<double>(rng, 10001, 20, 2), 2);
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnSharedPattern)
{
    std::mt19937 rng{seed + 4};
    const auto pattern = larch::test::random_sparse_items<double>(rng, 1, 500, 8).front();
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<matrix_data<double>> items(100, pattern);
    for (auto& item : items) {
        for (auto& e : item.entries) {
            e.value = value(rng);
        }
    }
    check(items, 1, PatternSharing::shared);
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnEveryRealMatrixUpTo1024Rows)
{
    const auto items = larch::test::real_matrices(0, 1024);
    if (items.empty()) {
        GTEST_SKIP() << "no Matrix Market files with <= 1024 rows in " << LARCH_MATRICES_DIR;
    }
    check(items, 1);
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnGlobalMemoryPathWithLargerMatrices)
{
    // Items up to 13,436 columns: with two double columns b_i needs up to 210 KB, more than a block's
    // shared memory, so the CUDA/HIP kernels read b from global memory.
    auto items = larch::test::real_matrices(1024, 20000);
    if (items.empty()) {
        GTEST_SKIP() << "no Matrix Market files with more than 1024 rows in " << LARCH_MATRICES_DIR;
    }
    const auto small = larch::test::real_matrices(0, 200);
    items.insert(items.end(), small.begin(), small.end());
    check(items, 2);
}

/// Three rows of `cols` columns with entries in the first and last columns and around 65,536 (those
/// below `cols`), and a small random item after it.
std::vector<matrix_data<double>> items_with_columns(size_type cols)
{
    matrix_data<double> wide{larch::dim2{3, cols}};
    const size_type candidates[] = {0, 1, 65534, 65535, 65536, 65537, cols - 1};
    for (size_type row = 0; row < 3; ++row) {
        for (const auto col : candidates) {
            if (col < cols) {
                wide.entries.push_back({static_cast<std::int32_t>(row), static_cast<std::int32_t>(col),
                                        double(row + 1) + double(col) / double(cols)});
            }
        }
    }
    wide.sum_duplicates();
    std::mt19937 rng{seed + 7};
    auto items = larch::test::random_sparse_items<double>(rng, 4, 40, 5);
    items.insert(items.begin(), wide);
    return items;
}

TEST_P(BatchSparseSpmv, MatchesReferenceAtTheWidestItemWithSixteenBitColumns)
{
    // 65,536 columns: column 65,535 is the largest a 16-bit index holds, so CUDA/HIP read narrowed indices.
    check(items_with_columns(larch::batch::Csr<double>::max_narrow_cols), 1);
}

TEST_P(BatchSparseSpmv, MatchesReferenceOnAnItemTooWideForSixteenBitColumns)
{
    // 70,000 columns, entries past 65,535: CUDA/HIP keep no narrowed indices and read the 32-bit ones.
    check(items_with_columns(70000), 1);
}

/// The 16-bit column indices a batch::Csr keeps: on GPU executors only, only while every item fits, equal
/// to the 32-bit ones, and created again (or dropped) by clone_to.
TEST(BatchCsrNarrowColumns, KeptOnGpuExecutorsWhileEveryItemFits)
{
    for (const auto& name : larch::test::executor_names()) {
        SCOPED_TRACE(name);
        std::shared_ptr<const larch::Executor> exec;
        try {
            exec = larch::make_executor(name);
        } catch (const larch::DeviceNotFound&) {
            continue;
        }
        const auto ref = larch::make_executor("reference");
        const auto fits = larch::batch::Csr<double>::create(
            exec, items_with_columns(larch::batch::Csr<double>::max_narrow_cols));
        const auto too_wide = larch::batch::Csr<double>::create(exec, items_with_columns(70000));
        EXPECT_EQ(too_wide->get_const_narrow_col_idxs(), nullptr);
        if (exec->is_host()) {
            EXPECT_EQ(fits->get_const_narrow_col_idxs(), nullptr);
            continue;
        }
        ASSERT_NE(fits->get_const_narrow_col_idxs(), nullptr);
        const auto round_trip = fits->clone_to(ref)->clone_to(exec);
        for (const auto* batch : {fits.get(), round_trip.get()}) {
            const auto stored = static_cast<size_type>(batch->get_layout().get_total_stored());
            std::vector<std::int32_t> cols(stored);
            std::vector<std::uint16_t> narrow(stored);
            ref->copy_from(*exec, stored * sizeof(std::int32_t), batch->get_const_col_idxs(),
                           cols.data());
            ref->copy_from(*exec, stored * sizeof(std::uint16_t), batch->get_const_narrow_col_idxs(),
                           narrow.data());
            EXPECT_EQ(std::vector<std::int32_t>(narrow.begin(), narrow.end()), cols);
        }
        EXPECT_EQ(fits->clone_to(ref)->get_const_narrow_col_idxs(), nullptr);
    }
}

INSTANTIATE_TEST_SUITE_P(
    AllExecutorsAndKernels, BatchSparseSpmv,
    ::testing::Combine(::testing::ValuesIn(larch::test::executor_names()),
                       ::testing::ValuesIn(variant_names())),
    [](const ::testing::TestParamInfo<BatchSparseSpmv::ParamType>& info) {
        return std::get<0>(info.param) + "_" + std::get<1>(info.param);
    });

}  // namespace
