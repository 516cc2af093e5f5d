// Block-Jacobi with blocks larger than 1: hand-checked blocks on reference (supervariables, agglomeration, a
// split supervariable, user block pointers, singular and near-singular blocks, mixed storage precisions, the
// blocks of a matrix whose rows are matched) and every executor against the reference on random matrices.
// The shared matrices are in block_jacobi_shared_matrices_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "larch/preconditioner/block_jacobi.hpp"
#include "test/preconditioner/block_jacobi_checks.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

using namespace block_jacobi_checks;
using larch::preconditioner::BlockJacobiAlgorithm;
using larch::preconditioner::BlockJacobiRowMatching;
using larch::preconditioner::BlockJacobiStorage;
using larch::preconditioner::SingularBlockPolicy;
constexpr double infinity = std::numeric_limits<double>::infinity();

// Supervariables [0, 2), [2, 3), [3, 6): rows 0 and 1 share columns {0, 1}, row 2 has {1, 2, 3}, rows 3-5
// share {3, 4, 5}.
Data supervariable_matrix()
{
    return {larch::dim2{6},
            {{0, 0, 4}, {0, 1, 1}, {1, 0, 1}, {1, 1, 3}, {2, 1, 1}, {2, 2, 2}, {2, 3, 1},
             {3, 3, 5}, {3, 4, 1}, {3, 5, 1}, {4, 3, 1}, {4, 4, 6}, {4, 5, 1}, {5, 3, 1}, {5, 4, 1}, {5, 5, 7}}};
}

/// `num_rows` rows in consecutive dense diagonal blocks of 1 to `max_length` rows (random lengths and
/// off-diagonal entries in [-1, 1) from `seed`), each with `diagonal_per_row` times its order on the
/// diagonal; the blocks' first rows go to `pointers` (with num_rows last).
Data dense_diagonal_blocks(std::int32_t num_rows, std::int32_t max_length, double diagonal_per_row, std::uint32_t seed,
                           std::vector<std::int32_t>& pointers)
{
    std::mt19937 engine{seed};
    std::uniform_int_distribution<std::int32_t> length{1, max_length};
    std::uniform_real_distribution<double> value{-1.0, 1.0};
    Data data{larch::dim2{static_cast<larch::size_type>(num_rows)}, {}};
    pointers = {0};
    while (pointers.back() < num_rows) {
        const auto first = pointers.back();
        const auto end = std::min(num_rows, first + length(engine));
        for (auto row = first; row < end; ++row) {
            for (auto col = first; col < end; ++col) {
                data.entries.push_back({row, col, row == col ? diagonal_per_row * (end - first) : value(engine)});
            }
        }
        pointers.push_back(end);
    }
    return data;
}

std::vector<double> row_major(const Data& data)
{
    std::vector<double> dense(data.size.rows * data.size.cols);
    for (const auto& entry : data.entries) {
        dense[entry.row * data.size.cols + entry.col] += entry.value;
    }
    return dense;
}

TEST(BlockJacobiBlocks, AgglomeratesSupervariablesUpToTheBound)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(Csr::create(exec, supervariable_matrix()));
    // [0, 2) + [2, 3) fill a block of 3; [3, 6) is the next one
    auto jacobi = Jacobi::build().with_max_block_size(3).on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_block_pointers(), (std::vector<std::int32_t>{0, 3, 6}));
    // bound 4: [0, 3) fits, [3, 6) would make 6 rows
    jacobi = Jacobi::build().with_max_block_size(4).on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_block_pointers(), (std::vector<std::int32_t>{0, 3, 6}));
    // bound 6: everything in one block
    jacobi = Jacobi::build().with_max_block_size(6).on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_block_pointers(), (std::vector<std::int32_t>{0, 6}));
}

TEST(BlockJacobiBlocks, SplitsASupervariableLongerThanTheBound)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(Csr::create(exec, supervariable_matrix()));
    // bound 2: [0, 2); [2, 3) alone; [3, 6) split into [3, 5) and [5, 6)
    auto jacobi = Jacobi::build().with_max_block_size(2).on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_block_pointers(), (std::vector<std::int32_t>{0, 2, 3, 5, 6}));
    EXPECT_EQ(jacobi->get_num_blocks(), 4u);
}

TEST(BlockJacobiBlocks, AppliesTheInverseOfEachBlockWithEveryAlgorithm)
{
    auto exec = larch::make_executor("reference");
    const auto data = supervariable_matrix();
    auto a = larch::share(Csr::create(exec, data));
    const std::vector<double> b{1, 2, 3, 4, 5, 6};
    for (auto algorithm : {BlockJacobiAlgorithm::gauss_jordan, BlockJacobiAlgorithm::gauss_huard,
                           BlockJacobiAlgorithm::gauss_huard_transposed}) {
        auto jacobi = Jacobi::build().with_max_block_size(3).with_algorithm(algorithm).on(exec)->generate(a);
        const auto x = apply_to(*jacobi, b);
        // block [0, 3) = [[4, 1, 0], [1, 3, 0], [0, 1, 2]], b = (1, 2, 3): x = (1/11, 7/11, 13/11);
        // block [3, 6) = [[5, 1, 1], [1, 6, 1], [1, 1, 7]], b = (4, 5, 6): checked through the residual.
        EXPECT_NEAR(x[0], 1.0 / 11, 1e-15);
        EXPECT_NEAR(x[1], 7.0 / 11, 1e-15);
        EXPECT_NEAR(x[2], 13.0 / 11, 1e-15);
        // a backward stable solve of a block with condition number < 10 leaves a residual of a few eps
        EXPECT_LT(block_residuals(data, jacobi->get_block_pointers(), b, x)[1], 1e-15);
        EXPECT_EQ(jacobi->get_num_singular_blocks(), 0u);
    }
}

TEST(BlockJacobiBlocks, UsesUserBlockPointersAndTheScaledApply)
{
    auto exec = larch::make_executor("reference");
    const auto data = supervariable_matrix();
    auto a = larch::share(Csr::create(exec, data));
    auto jacobi = Jacobi::build().with_block_pointers({0, 1, 4, 6}).on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_block_pointers(), (std::vector<std::int32_t>{0, 1, 4, 6}));
    // block [0, 1) = [4]; block [1, 4) = [[3, 0, 0], [1, 2, 1], [0, 0, 5]]: x = (2/3, 7/60, 4/5) for b = (2, 1, 4)
    const std::vector<double> b{8, 2, 1, 4, 0, 0};
    auto x = apply_to(*jacobi, b);
    EXPECT_NEAR(x[0], 2.0, 1e-15);
    EXPECT_NEAR(x[1], 2.0 / 3, 1e-15);
    EXPECT_NEAR(x[2], (1 - 2.0 / 3 - 4.0 / 5) / 2, 1e-15);
    EXPECT_NEAR(x[3], 0.8, 1e-15);
    EXPECT_EQ(x[4], 0.0);
    EXPECT_EQ(x[5], 0.0);
    // x = 2 M^-1 b - x = M^-1 b
    auto b_dense = Dense::create(exec, larch::dim2{6, 1}, larch::array<double>{exec, b.begin(), b.end()}, 1);
    auto x_dense = Dense::create(exec, larch::dim2{6, 1}, larch::array<double>{exec, x.begin(), x.end()}, 1);
    jacobi->apply(2.0, b_dense, -1.0, x_dense);
    const auto again = x_dense->copy_to_host();
    for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_NEAR(again[i], x[i], 1e-15);
    }
}

// blocks of two rows: [[1, 2], [2, 4]] (singular), [[1, 1], [1, 1 + 1e-15]] (cond ~ 4e15 > 1 / (2 eps)),
// [[2, 1], [1, 2]] (cond 3), [[0, 1], [1, 0]] (zero diagonal, regular: a permutation)
Data singular_blocks_matrix()
{
    return {larch::dim2{8},
            {{0, 0, 1}, {0, 1, 2}, {1, 0, 2}, {1, 1, 4}, {2, 2, 1}, {2, 3, 1}, {3, 2, 1}, {3, 3, 1 + 1e-15},
             {4, 4, 2}, {4, 5, 1}, {5, 4, 1}, {5, 5, 2}, {6, 7, 1}, {7, 6, 1}}};
}

TEST(BlockJacobiBlocks, SplitsSingularAndNearSingularBlocksAndReportsThem)
{
    auto exec = larch::make_executor("reference");
    const auto data = singular_blocks_matrix();
    auto a = larch::share(Csr::create(exec, data));
    for (auto algorithm : {BlockJacobiAlgorithm::gauss_jordan, BlockJacobiAlgorithm::gauss_huard}) {
        auto jacobi = Jacobi::build().with_block_pointers({0, 2, 4, 6, 8}).with_algorithm(algorithm).on(exec)->generate(a);
        // the two singular blocks are split into their rows, which are regular (diagonal 1, 4, 1, 1 + 1e-15)
        EXPECT_EQ(jacobi->get_block_pointers(), (std::vector<std::int32_t>{0, 1, 2, 3, 4, 6, 8}));
        EXPECT_EQ(jacobi->get_num_split_blocks(), 2u);
        EXPECT_EQ(jacobi->get_num_singular_blocks(), 0u);
        const auto& cond = jacobi->get_condition_numbers();
        EXPECT_EQ(cond[0], 1.0);
        EXPECT_NEAR(cond[4], 3.0, 1e-14);  // ||A||_inf = 3, ||A^-1||_inf = 1
        EXPECT_NEAR(cond[5], 1.0, 1e-14);
        EXPECT_EQ(jacobi->get_zero_diagonal_rows(), (std::vector<std::int32_t>{6, 7}));
        const auto x = apply_to(*jacobi, {1, 8, 3, 3, 3, 0, 5, 7});
        // split rows: b_i / a_ii; regular blocks: their solution
        EXPECT_EQ(x[0], 1.0);
        EXPECT_EQ(x[1], 2.0);
        EXPECT_EQ(x[2], 3.0);
        EXPECT_NEAR(x[3], 3.0 / (1 + 1e-15), 1e-15);
        EXPECT_NEAR(x[4], 2.0, 1e-15);
        EXPECT_NEAR(x[5], -1.0, 1e-15);
        EXPECT_NEAR(x[6], 7.0, 1e-15);
        EXPECT_NEAR(x[7], 5.0, 1e-15);
    }
}

TEST(BlockJacobiBlocks, UsesScalarJacobiForASingularRow)
{
    auto exec = larch::make_executor("reference");
    // [[0, 0], [0, 3]]: singular; its halves are [0] (zero diagonal: scalar Jacobi with 1) and [3]
    auto a = larch::share(Csr::create(exec, Data{larch::dim2{2}, {{0, 0, 0}, {0, 1, 0}, {1, 1, 3}}}));
    auto jacobi = Jacobi::build().with_max_block_size(2).on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_block_pointers(), (std::vector<std::int32_t>{0, 1, 2}));
    EXPECT_EQ(jacobi->get_singular_blocks(), (std::vector<larch::size_type>{0}));
    EXPECT_EQ(jacobi->get_condition_numbers()[0], infinity);
    EXPECT_EQ(jacobi->get_zero_diagonal_rows(), (std::vector<std::int32_t>{0}));
    EXPECT_EQ(apply_to(*jacobi, {5, 6}), (std::vector<double>{5, 2}));
}

TEST(BlockJacobiBlocks, ThrowsForASingularBlockWhenAsked)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(Csr::create(exec, singular_blocks_matrix()));
    try {
        Jacobi::build()
            .with_block_pointers({0, 2, 4, 6, 8})
            .with_on_singular_block(SingularBlockPolicy::throw_error)
            .on(exec)
            ->generate(a);
        FAIL() << "no exception";
    } catch (const larch::BadInput& error) {
        EXPECT_NE(std::string{error.what()}.find("diagonal block 0 (rows 0 to 1)"), std::string::npos) << error.what();
        // the bound 1 / (n eps) of a block of 2 rows in double, in six digits
        EXPECT_NE(std::string{error.what()}.find("numerically singular above 2.2518e+15)"), std::string::npos)
            << error.what();
    }
}

// A = [0 0 2 0; 0 0 0 2; 1 1 0 0; 1 1 0 0] has zero diagonal entries; its matching puts rows 2 and 3 first, so
// the first block of P A is [1 1; 1 1], singular. The user knows rows 2 and 3 of A, not rows 0 and 1 of P A,
// and has no preconditioner to ask for the permutation when generation throws.
TEST(BlockJacobiBlocks, NamesTheRowsOfAWhenASingularBlockOfMatchedRowsThrows)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(Csr::create(exec, Data{larch::dim2{4}, {{0, 2, 2}, {1, 3, 2}, {2, 0, 1}, {2, 1, 1},
                                                                  {3, 0, 1}, {3, 1, 1}}}));
    try {
        Jacobi::build()
            .with_max_block_size(2)
            .with_on_singular_block(SingularBlockPolicy::throw_error)
            .on(exec)
            ->generate(a);
        FAIL() << "no exception";
    } catch (const larch::BadInput& error) {
        EXPECT_NE(std::string{error.what()}.find("rows 0 to 1 of P A, rows 2, 3 of A"), std::string::npos)
            << error.what();
    }
}

TEST(BlockJacobiBlocks, StoresEachBlockInTheCheapestPrecisionThatKeepsTheAccuracy)
{
    auto exec = larch::make_executor("reference");
    // diag(2, 4): cond 2 -> half; diag(1, 1e-5): cond 1e5 -> float (half: 2^-11 * 1e5 > 0.1);
    // diag(1, 1e-8): cond 1e8 -> double (float: 2^-24 * 1e8 > 0.1)
    const Data data{larch::dim2{6}, {{0, 0, 2}, {0, 1, 0}, {1, 1, 4}, {2, 2, 1}, {2, 3, 0}, {3, 3, 1e-5},
                                     {4, 4, 1}, {4, 5, 0}, {5, 5, 1e-8}}};
    auto a = larch::share(Csr::create(exec, data));
    auto factory = Jacobi::build().with_block_pointers({0, 2, 4, 6});
    auto working = factory.on(exec)->generate(a);
    auto adaptive = factory.with_storage_precision(BlockJacobiStorage::adaptive).on(exec)->generate(a);
    EXPECT_EQ(adaptive->get_block_precisions(), (std::vector<BlockPrecision>{BlockPrecision::half_precision,
                                                                            BlockPrecision::single_precision,
                                                                            BlockPrecision::double_precision}));
    EXPECT_EQ(working->get_storage_bytes(), 3u * 4 * 8);
    EXPECT_EQ(adaptive->get_storage_bytes(), 4u * 2 + 4 * 4 + 4 * 8);
    const auto x = apply_to(*adaptive, {1, 1, 1, 1, 1, 1});
    EXPECT_EQ(x[0], 0.5);  // 1/2 and 1/4 are exact in half
    EXPECT_EQ(x[1], 0.25);
    EXPECT_NEAR(x[3], 1e5, 1e5 * 0x1p-24);  // float storage
    EXPECT_NEAR(x[5], 1e8, 1e8 * 1e-15);
}

class BlockJacobiBackendTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BlockJacobiBackendTest, FindsTheReferenceBlocksAcrossRowTiles)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // 20,000 rows (the GPU agglomerates in tiles of 64 rows, chained in groups of 64 tiles: 313 tiles in 5
    // groups): supervariables of 1 to 70 rows, each a dense diagonal block (so its rows share one pattern),
    // many longer than the bound and many crossing a tile or group edge
    std::vector<std::int32_t> supervariables;  // not passed: the blocks are found from the pattern
    const auto data = dense_diagonal_blocks(20000, 70, 4.0, 7, supervariables);
    for (larch::size_type bound : {3u, 17u, 32u}) {
        check_against_reference(exec, data, Jacobi::build().with_max_block_size(bound),
                                "bound " + std::to_string(bound));
    }
}

TEST_P(BlockJacobiBackendTest, AppliesBlocksOfDifferentSizesAboveTheParallelThreshold)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // 40,000 rows (omp applies them on its threads, each taking the blocks of an equal share of the rows) in
    // given blocks of 1 to 32 rows, each a dense block with a dominant diagonal
    std::vector<std::int32_t> pointers;
    const auto data = dense_diagonal_blocks(40000, 32, 2.0, 11, pointers);
    check_against_reference(exec, data, Jacobi::build().with_block_pointers(pointers), "blocks of 1 to 32");
}

TEST_P(BlockJacobiBackendTest, MatchesTheReferenceOnRandomMatrices)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE(larch::test::seed_trace(seed));
        // rows 3r, 3r + 1, 3r + 2 repeat the pattern of random row r, plus the 3 x 3 diagonal group with a
        // dominant diagonal: supervariables of 3 rows to agglomerate or split
        const auto pattern = larch::test::generate_random_matrix_data<double>(larch::dim2{100, 300}, {1, 12, 0.0, 0.0}, seed);
        Data data{larch::dim2{300}, {}};
        for (const auto& entry : pattern.entries) {
            for (int copy = 0; copy < 3; ++copy) {
                data.entries.push_back({3 * entry.row + copy, entry.col, entry.value * (1 + 0.25 * copy)});
            }
        }
        for (std::int32_t row = 0; row < 300; ++row) {
            for (std::int32_t col = row / 3 * 3; col < row / 3 * 3 + 3; ++col) {
                data.entries.push_back({row, col, row == col ? 8.0 : 0.5});
            }
        }
        data.sort_row_major();
        data.sum_duplicates();
        for (larch::size_type bound : {2u, 8u, 13u, 32u}) {
            // both loaders of the fused GPU kernels (cached, the default, and shared) give the same blocks
            for (auto algorithm : {BlockJacobiAlgorithm::gauss_jordan, BlockJacobiAlgorithm::gauss_huard,
                                   BlockJacobiAlgorithm::gauss_huard_transposed}) {
                for (auto extraction : {larch::preconditioner::BlockJacobiExtraction::cached,
                                        larch::preconditioner::BlockJacobiExtraction::shared}) {
                    check_against_reference(
                        exec, data,
                        Jacobi::build().with_max_block_size(bound).with_algorithm(algorithm).with_extraction(
                            extraction),
                        "bound " + std::to_string(bound) +
                            (extraction == larch::preconditioner::BlockJacobiExtraction::shared ? ", shared" : ""));
                }
            }
        }
        // fixed blocks of 16 on a random (possibly singular-block) matrix, adaptive storage
        std::vector<std::int32_t> pointers;
        for (int row = 0; row <= 300; row += 20) {
            pointers.push_back(row);
        }
        check_against_reference(exec, data,
                                Jacobi::build().with_block_pointers(pointers).with_storage_precision(
                                    BlockJacobiStorage::adaptive),
                                "blocks of 20, adaptive");
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BlockJacobiBackendTest, ::testing::ValuesIn(larch::test::executor_names()),
                         [](const auto& info) { return info.param; });

// A = [0 0 5 0; 0 2 0 0; 3 1 0 0; 0 0 1 4] has zero diagonal entries; its only complete matching takes row 2
// for column 0, row 1 for column 1, row 0 for column 2 and row 3 for column 3, so
// P A = [3 1 0 0; 0 2 0 0; 0 0 5 0; 0 0 1 4], whose supervariables agglomerate to blocks [0, 2) and [2, 4).
TEST(BlockJacobiBlocks, BlocksTheMatchedRowsOfAMatrixWithZeroDiagonalEntries)
{
    auto exec = larch::make_executor("reference");
    const Data data{larch::dim2{4}, {{0, 2, 5}, {1, 1, 2}, {2, 0, 3}, {2, 1, 1}, {3, 2, 1}, {3, 3, 4}}};
    auto a = larch::share(Csr::create(exec, data));
    auto jacobi = Jacobi::build().with_max_block_size(2).on(exec)->generate(a);
    EXPECT_EQ(jacobi->get_row_permutation(), (std::vector<std::int32_t>{2, 1, 0, 3}));
    EXPECT_EQ(jacobi->get_block_pointers(), (std::vector<std::int32_t>{0, 2, 4}));
    EXPECT_EQ(jacobi->get_num_zero_diagonal_rows(), 0u);
    // x = (P A)_bb^-1 (P b) with P b = (3, 2, 1, 4): x_1 = 2 / 2, x_0 = (3 - x_1) / 3, x_2 = 1 / 5,
    // x_3 = (4 - x_2) / 4
    const auto x = apply_to(*jacobi, {1, 2, 3, 4});
    const std::vector<double> expected{2.0 / 3, 1.0, 0.2, 0.95};
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(x[i], expected[i], 4e-16) << "row " << i;  // a few roundings of values near 1
    }
    // without the matching, both of A's own blocks, [0 0; 0 2] and [0 0; 1 4], are singular and split
    auto unmatched = Jacobi::build()
                         .with_max_block_size(2)
                         .with_row_matching(BlockJacobiRowMatching::none)
                         .on(exec)
                         ->generate(a);
    EXPECT_TRUE(unmatched->get_row_permutation().empty());
    EXPECT_EQ(unmatched->get_num_split_blocks(), 2u);
    // user block pointers refer to A's rows: automatic leaves them alone, maximum_product blocks P A
    auto given = Jacobi::build().with_block_pointers({0, 2, 4});
    EXPECT_TRUE(given.on(exec)->generate(a)->get_row_permutation().empty());
    auto matched = given.with_row_matching(BlockJacobiRowMatching::maximum_product).on(exec)->generate(a);
    EXPECT_EQ(matched->get_row_permutation(), (std::vector<std::int32_t>{2, 1, 0, 3}));
    const auto x_given = apply_to(*matched, {1, 2, 3, 4});
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(x_given[i], expected[i], 4e-16) << "row " << i;
    }
}

}  // namespace
