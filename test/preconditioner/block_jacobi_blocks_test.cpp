// Block-Jacobi with blocks larger than 1: hand-checked blocks on reference (supervariables, agglomeration, a
// split supervariable, user block pointers, singular and near-singular blocks, mixed storage precisions),
// every executor against the reference on random matrices and on every shared matrix, and the zero-diagonal
// matrices, which must never give NaN or a silently wrong block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "larch/io/matrix_market.hpp"
#include "larch/preconditioner/block_jacobi.hpp"
#include "test/utils/executors.hpp"
#include "test/utils/random.hpp"

namespace {

namespace fs = std::filesystem;
using larch::preconditioner::BlockJacobiAlgorithm;
using larch::preconditioner::BlockJacobiRowMatching;
using larch::preconditioner::BlockJacobiStorage;
using larch::preconditioner::BlockPrecision;
using larch::preconditioner::SingularBlockPolicy;
using Jacobi = larch::preconditioner::BlockJacobi<double>;
using Csr = larch::matrix::Csr<double>;
using Dense = larch::matrix::Dense<double>;
using Data = larch::matrix_data<double, std::int32_t>;
constexpr double infinity = std::numeric_limits<double>::infinity();

// Supervariables [0, 2), [2, 3), [3, 6): rows 0 and 1 share columns {0, 1}, row 2 has {1, 2, 3}, rows 3-5
// share {3, 4, 5}.
Data supervariable_matrix()
{
    return {larch::dim2{6},
            {{0, 0, 4}, {0, 1, 1}, {1, 0, 1}, {1, 1, 3}, {2, 1, 1}, {2, 2, 2}, {2, 3, 1},
             {3, 3, 5}, {3, 4, 1}, {3, 5, 1}, {4, 3, 1}, {4, 4, 6}, {4, 5, 1}, {5, 3, 1}, {5, 4, 1}, {5, 5, 7}}};
}

std::vector<double> row_major(const Data& data)
{
    std::vector<double> dense(data.size.rows * data.size.cols);
    for (const auto& entry : data.entries) {
        dense[entry.row * data.size.cols + entry.col] += entry.value;
    }
    return dense;
}

/// The rows of `data` in the order the preconditioner blocks them: row k is row permutation[k] of A (P A), or
/// A itself for an empty permutation (no row matching).
Data rows_as_blocked(const Data& data, const std::vector<std::int32_t>& permutation)
{
    if (permutation.empty()) {
        return data;
    }
    std::vector<std::int32_t> position_of_row(data.size.rows);
    for (std::size_t k = 0; k < permutation.size(); ++k) {
        position_of_row[permutation[k]] = static_cast<std::int32_t>(k);
    }
    Data permuted{data.size, {}};
    for (auto entry : data.entries) {
        entry.row = position_of_row[entry.row];
        permuted.entries.push_back(entry);
    }
    return permuted;
}

/// b in the order of rows_as_blocked: P b.
std::vector<double> gathered(const std::vector<double>& b, const std::vector<std::int32_t>& permutation)
{
    if (permutation.empty()) {
        return b;
    }
    std::vector<double> result(b.size());
    for (std::size_t k = 0; k < permutation.size(); ++k) {
        result[k] = b[permutation[k]];
    }
    return result;
}

/// Per block b, ||A_bb x_b - b_b||_inf / (||A_bb||_inf ||x_b||_inf + ||b_b||_inf): the oracle of an applied
/// block (one right-hand side), with the block pointers of the preconditioner. One pass over the entries.
std::vector<double> block_residuals(const Data& data, const std::vector<std::int32_t>& pointers,
                                    const std::vector<double>& b, const std::vector<double>& x)
{
    std::vector<std::size_t> block_of_row(data.size.rows);
    for (std::size_t block = 0; block + 1 < pointers.size(); ++block) {
        std::fill(block_of_row.begin() + pointers[block], block_of_row.begin() + pointers[block + 1], block);
    }
    std::vector<double> residual(b);
    std::vector<double> row_norms(data.size.rows, 0.0);
    for (const auto& entry : data.entries) {
        if (block_of_row[entry.row] == block_of_row[entry.col]) {
            residual[entry.row] -= entry.value * x[entry.col];
            row_norms[entry.row] += std::abs(entry.value);
        }
    }
    std::vector<double> result(pointers.size() - 1);
    for (std::size_t block = 0; block + 1 < pointers.size(); ++block) {
        double residual_norm = 0;
        double x_norm = 0;
        double b_norm = 0;
        double a_norm = 0;
        for (auto i = pointers[block]; i < pointers[block + 1]; ++i) {
            residual_norm = std::max(residual_norm, std::abs(residual[i]));
            x_norm = std::max(x_norm, std::abs(x[i]));
            b_norm = std::max(b_norm, std::abs(b[i]));
            a_norm = std::max(a_norm, row_norms[i]);
        }
        result[block] = residual_norm / (a_norm * x_norm + b_norm);
    }
    return result;
}

std::vector<double> apply_to(const Jacobi& jacobi, const std::vector<double>& b_values)
{
    const auto exec = jacobi.get_executor();
    const auto n = b_values.size();
    auto b = Dense::create(exec, larch::dim2{n, 1},
                           larch::array<double>{exec, b_values.begin(), b_values.end()}, 1);
    auto x = Dense::create(exec, larch::dim2{n, 1});
    x->fill(std::numeric_limits<double>::quiet_NaN());  // x = M^-1 b only writes x
    jacobi.apply(b, x);
    return x->copy_to_host();
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

double unit_roundoff(BlockPrecision precision)
{
    return precision == BlockPrecision::double_precision   ? 0x1p-53
           : precision == BlockPrecision::single_precision ? 0x1p-24
                                                           : 0x1p-11;
}

class BlockJacobiBackendTest : public ::testing::TestWithParam<std::string> {};

/// The scaled apply to three columns (b, -2 b, b / 4) against the plain apply `m_b` = M^-1 b: X = 2 M^-1 B - X0.
/// The column factors are powers of two, so on the CPU backends, which sum every column in the same order, the
/// columns equal the one-column result exactly.
void check_scaled_columns(const Jacobi& jacobi, const std::vector<double>& b, const std::vector<double>& m_b)
{
    const auto exec = jacobi.get_executor();
    const auto n = b.size();
    const double factors[3] = {1.0, -2.0, 0.25};
    std::vector<double> b_columns(3 * n), x_columns(3 * n);
    for (larch::size_type i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            b_columns[3 * i + k] = factors[k] * b[i];
            x_columns[3 * i + k] = 1.0 + k + static_cast<double>(i % 5);
        }
    }
    auto b_dense = Dense::create(exec, larch::dim2{n, 3}, larch::array<double>{exec, b_columns.begin(), b_columns.end()}, 3);
    auto x_dense = Dense::create(exec, larch::dim2{n, 3}, larch::array<double>{exec, x_columns.begin(), x_columns.end()}, 3);
    jacobi.apply(2.0, b_dense, -1.0, x_dense);
    const auto x = x_dense->copy_to_host();
    for (larch::size_type i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            ASSERT_EQ(x[3 * i + k], 2.0 * (factors[k] * m_b[i]) - x_columns[3 * i + k]) << "row " << i << ", column " << k;
        }
    }
}

/// Generates on `exec` and on reference and checks: identical blocks and singular blocks, the applied results
/// equal within the blocks' conditioning, no NaN, and every regular block's residual small.
void check_against_reference(const std::shared_ptr<const larch::Executor>& exec, const Data& data,
                             Jacobi::parameters_type parameters, const std::string& name)
{
    SCOPED_TRACE(name);
    auto reference = larch::make_executor("reference");
    auto expected = parameters.on(reference)->generate(larch::share(Csr::create(reference, data)));
    auto actual = parameters.on(exec)->generate(larch::share(Csr::create(exec, data)));
    ASSERT_EQ(actual->get_row_permutation(), expected->get_row_permutation());
    ASSERT_EQ(actual->get_detected_block_pointers(), expected->get_detected_block_pointers());
    std::vector<double> b(data.size.rows);
    for (size_t i = 0; i < b.size(); ++i) {
        b[i] = 1.0 + static_cast<double>(i % 7) / 7;
    }
    const auto x = apply_to(*actual, b);
    const auto x_expected = apply_to(*expected, b);
    check_scaled_columns(*expected, b, x_expected);
    if (exec->is_host()) {
        check_scaled_columns(*actual, b, x);
    }
    // the blocks are those of P A, applied to P b, when the rows were matched
    const auto blocked = rows_as_blocked(data, expected->get_row_permutation());
    const auto blocked_b = gathered(b, expected->get_row_permutation());
    if (actual->get_block_pointers() != expected->get_block_pointers()) {
        // A block whose condition number lies within rounding of the singular bound 1 / (n eps) may be split
        // on one backend and not on the other (their pivots differ among near-ties); then each backend's
        // blocks are checked against the matrix itself instead of against each other.
        std::cout << name << ": " << exec->get_name() << " split " << actual->get_num_split_blocks()
                  << " blocks, reference " << expected->get_num_split_blocks() << "\n";
        const auto& pointers = actual->get_block_pointers();
        const auto& cond = actual->get_condition_numbers();
        const auto residuals = block_residuals(blocked, pointers, blocked_b, x);
        for (larch::size_type block = 0; block + 1 < pointers.size(); ++block) {
            for (auto i = pointers[block]; i < pointers[block + 1]; ++i) {
                ASSERT_TRUE(std::isfinite(x[i])) << "row " << i;
            }
            if (std::isfinite(cond[block])) {
                const double n = pointers[block + 1] - pointers[block];
                const double u = unit_roundoff(actual->get_block_precisions()[block]);
                EXPECT_LE(residuals[block], 64 * n * u * std::max(1.0, cond[block]))
                    << "block " << block;
            }
        }
        return;
    }
    EXPECT_EQ(actual->get_singular_blocks(), expected->get_singular_blocks());
    const auto& pointers = expected->get_block_pointers();
    const auto& singular = expected->get_singular_blocks();
    const auto& cond = expected->get_condition_numbers();
    const auto residuals = block_residuals(blocked, pointers, blocked_b, x);
    for (larch::size_type block = 0; block + 1 < pointers.size(); ++block) {
        const bool is_singular = std::find(singular.begin(), singular.end(), block) != singular.end();
        double difference = 0;
        double scale = 0;
        for (auto i = pointers[block]; i < pointers[block + 1]; ++i) {
            ASSERT_TRUE(std::isfinite(x[i])) << "row " << i;
            difference = std::max(difference, std::abs(x[i] - x_expected[i]));
            scale = std::max(scale, std::abs(x_expected[i]));
        }
        if (is_singular) {
            EXPECT_EQ(difference, 0.0) << "fallback block " << block;  // both b_i / a_ii
            continue;
        }
        // Two backward-stable inversions differ by about n u cond, with u the unit roundoff of the block's
        // storage precision (rounding the stored values dominates for float and half); the GPU may pivot
        // differently among near-ties, so the bound carries a factor 64 on top.
        const double n = pointers[block + 1] - pointers[block];
        const double u = unit_roundoff(expected->get_block_precisions()[block]);
        EXPECT_LE(difference, 64 * n * u * std::max(1.0, cond[block]) * scale) << "block " << block;
        // the residual of a backward-stable solve is a few n u (relative, normwise); the bound scales
        // with the block's condition number because the stored inverse is applied, not a solve
        EXPECT_LE(residuals[block], 64 * n * u * std::max(1.0, cond[block]))
            << "block " << block;
    }
}

TEST_P(BlockJacobiBackendTest, FindsTheReferenceBlocksAcrossRowTiles)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    // 20,000 rows (the GPU agglomerates in tiles of 64 rows, chained in groups of 64 tiles: 313 tiles in 5
    // groups): supervariables of 1 to 70 rows, each a dense diagonal block (so its rows share one pattern),
    // many longer than the bound and many crossing a tile or group edge
    std::mt19937 engine{7};
    std::uniform_int_distribution<std::int32_t> length{1, 70};
    std::uniform_real_distribution<double> value{-1.0, 1.0};
    constexpr std::int32_t num_rows = 20000;
    Data data{larch::dim2{num_rows}, {}};
    for (std::int32_t first = 0; first < num_rows;) {
        const auto end = std::min(num_rows, first + length(engine));
        for (auto row = first; row < end; ++row) {
            for (auto col = first; col < end; ++col) {
                data.entries.push_back({row, col, row == col ? 4.0 * (end - first) : value(engine)});
            }
        }
        first = end;
    }
    for (larch::size_type bound : {3u, 17u, 32u}) {
        check_against_reference(exec, data, Jacobi::build().with_max_block_size(bound),
                                "bound " + std::to_string(bound));
    }
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

std::vector<std::string> shared_matrices()
{
    std::vector<std::string> files;
    std::error_code error;
    for (fs::directory_iterator it{LARCH_MATRICES_DIR, error}, end; !error && it != end; it.increment(error)) {
        if (it->path().extension() == ".mtx") {
            files.push_back(it->path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The bound-32 blocks of PETSc's vpbjacobi and Ginkgo's Jacobi (identical to each other) on the shared
// matrices, as listed in ../shared/PEERS.md: number of blocks, smallest and largest block.
struct BlockCounts {
    larch::size_type count;
    larch::size_type smallest;
    larch::size_type largest;
};
const std::map<std::string, BlockCounts> peer_blocks{
        {"1138_bus", {36, 18, 32}},
        {"494_bus", {16, 14, 32}},
        {"662_bus", {21, 22, 32}},
        {"USAir97", {11, 12, 32}},
        {"add32", {155, 32, 32}},
        {"adder_dcop_05", {57, 24, 32}},
        {"ani1", {2, 4, 32}},
        {"ani4", {97, 9, 32}},
        {"bayer10", {420, 28, 32}},
        {"bcsstk01", {2, 16, 32}},
        {"bcsstk02", {3, 2, 32}},
        {"bcsstk03", {4, 16, 32}},
        {"bcsstk04", {5, 4, 32}},
        {"bcsstk06", {14, 8, 32}},
        {"bcsstk14", {57, 14, 32}},
        {"bcsstk16", {163, 15, 32}},
        {"bcsstm07", {14, 4, 32}},
        {"bentpipe2d100", {313, 16, 32}},
        {"bp_1200", {26, 22, 32}},
        {"cage8", {32, 23, 32}},
        {"ck400", {13, 16, 32}},
        {"dwt_918", {29, 22, 32}},
        {"dwt_992", {31, 32, 32}},
        {"e05r0500", {8, 17, 32}},
        {"ex2", {15, 24, 32}},
        {"fs_183_1", {6, 23, 32}},
        {"fs_541_1", {17, 29, 32}},
        {"gr_30_30", {29, 4, 32}},
        {"gre_115", {4, 19, 32}},
        {"jpwh_991", {31, 31, 32}},
        {"laplace3d10", {32, 8, 32}},
        {"lns_131", {5, 3, 32}},
        {"mbeacxc", {16, 22, 32}},
        {"nos3", {30, 32, 32}},
        {"nos4", {4, 4, 32}},
        {"nos5", {15, 20, 32}},
        {"orsirr_1", {33, 6, 32}},
        {"pde900", {29, 4, 32}},
        {"pivtol", {4, 6, 32}},
        {"rbsa480", {15, 32, 32}},
        {"rdb2048", {64, 32, 32}},
        {"saylr1", {8, 14, 32}},
        {"sherman1", {32, 8, 32}},
        {"sherman2", {34, 24, 32}},
        {"sherman3", {157, 13, 32}},
        {"sherman4", {35, 16, 32}},
        {"steam1", {8, 30, 30}},
        {"steam2", {19, 24, 32}},
        {"tomography", {16, 20, 32}},
        {"watt_1", {58, 32, 32}},
        {"west0479", {15, 31, 32}}};

TEST(BlockJacobiBlocks, FindsTheSameBlocksAsThePeersOnTheSharedMatrices)
{
    auto exec = larch::make_executor("reference");
    const auto files = shared_matrices();
    if (files.empty()) {
        GTEST_SKIP() << "no .mtx files in " << LARCH_MATRICES_DIR;
    }
    for (const auto& file : files) {
        const auto name = fs::path{file}.stem().string();
        const auto expected = peer_blocks.find(name);
        if (expected == peer_blocks.end()) {
            continue;
        }
        // the peers block A itself: no row matching
        auto jacobi = Jacobi::build()
                          .with_max_block_size(32)
                          .with_row_matching(BlockJacobiRowMatching::none)
                          .on(exec)
                          ->generate(larch::share(Csr::create(exec, larch::io::read_matrix_market_data<double>(file))));
        const auto& pointers = jacobi->get_detected_block_pointers();
        larch::size_type smallest = pointers.back();
        larch::size_type largest = 0;
        for (size_t block = 0; block + 1 < pointers.size(); ++block) {
            const auto rows = static_cast<larch::size_type>(pointers[block + 1] - pointers[block]);
            smallest = std::min(smallest, rows);
            largest = std::max(largest, rows);
        }
        EXPECT_EQ(pointers.size() - 1, expected->second.count) << name;
        EXPECT_EQ(smallest, expected->second.smallest) << name;
        EXPECT_EQ(largest, expected->second.largest) << name;
        // every split of a singular block adds one block
        EXPECT_EQ(jacobi->get_num_blocks(), pointers.size() - 1 + jacobi->get_num_split_blocks()) << name;
    }
}

TEST_P(BlockJacobiBackendTest, MatchesTheReferenceOnEverySharedMatrix)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto files = shared_matrices();
    if (files.empty()) {
        GTEST_SKIP() << "no .mtx files in " << LARCH_MATRICES_DIR;
    }
    for (const auto& file : files) {
        const auto data = larch::io::read_matrix_market_data<double>(file);
        if (data.size.rows != data.size.cols) {
            continue;
        }
        for (auto algorithm : {BlockJacobiAlgorithm::gauss_jordan, BlockJacobiAlgorithm::gauss_huard}) {
            check_against_reference(exec, data,
                                    Jacobi::build().with_max_block_size(32).with_algorithm(algorithm).with_storage_precision(
                                        BlockJacobiStorage::adaptive),
                                    fs::path{file}.filename().string());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BlockJacobiBackendTest, ::testing::ValuesIn(larch::test::executor_names()),
                         [](const auto& info) { return info.param; });

TEST(BlockJacobiBlocks, AdaptiveStorageStoresFewerBytesOnAWellConditionedMatrix)
{
    auto exec = larch::make_executor("reference");
    const auto file = std::string{LARCH_MATRICES_DIR} + "/bcsstk16.mtx";
    if (!fs::exists(file)) {
        GTEST_SKIP() << file << " not found";
    }
    auto a = larch::share(Csr::create(exec, larch::io::read_matrix_market_data<double>(file)));
    auto factory = Jacobi::build().with_max_block_size(32);
    const auto working = factory.on(exec)->generate(a)->get_storage_bytes();
    const auto adaptive =
        factory.with_storage_precision(BlockJacobiStorage::adaptive).on(exec)->generate(a)->get_storage_bytes();
    EXPECT_LT(adaptive, working);
    std::cout << "bcsstk16: working " << working << " bytes, adaptive " << adaptive << " bytes\n";
}

TEST(BlockJacobiBlocks, ZeroDiagonalMatricesGiveNoNaNAndReportTheirSingularBlocks)
{
    auto exec = larch::make_executor("reference");
    for (const std::string name : {"west0479", "bp_1200", "lns_131", "mbeacxc", "bayer10"}) {
        const auto file = std::string{LARCH_MATRICES_DIR} + "/" + name + ".mtx";
        if (!fs::exists(file)) {
            GTEST_SKIP() << file << " not found";
        }
        const auto data = larch::io::read_matrix_market_data<double>(file);
        auto a = larch::share(Csr::create(exec, data));
        const auto unmatched = Jacobi::build().with_row_matching(BlockJacobiRowMatching::none).on(exec)->generate(a);
        for (auto matching : {BlockJacobiRowMatching::none, BlockJacobiRowMatching::automatic}) {
            SCOPED_TRACE(name + (matching == BlockJacobiRowMatching::none ? " without" : " with") + " row matching");
            auto jacobi = Jacobi::build().with_max_block_size(32).with_row_matching(matching).on(exec)->generate(a);
            const auto& permutation = jacobi->get_row_permutation();
            // automatic matches the rows of every matrix with a zero diagonal entry, and the matching leaves
            // fewer zero diagonal entries than A has
            ASSERT_EQ(permutation.empty(), matching == BlockJacobiRowMatching::none);
            if (!permutation.empty()) {
                EXPECT_LT(jacobi->get_num_zero_diagonal_rows(), unmatched->get_num_zero_diagonal_rows());
            }
            std::vector<double> b(data.size.rows, 1.0);
            const auto x = apply_to(*jacobi, b);
            const auto& pointers = jacobi->get_block_pointers();
            const auto& cond = jacobi->get_condition_numbers();
            const auto& singular = jacobi->get_singular_blocks();
            const auto residuals =
                block_residuals(rows_as_blocked(data, permutation), pointers, gathered(b, permutation), x);
            for (larch::size_type block = 0; block + 1 < pointers.size(); ++block) {
                for (auto i = pointers[block]; i < pointers[block + 1]; ++i) {
                    ASSERT_TRUE(std::isfinite(x[i])) << "row " << i;
                }
                if (std::find(singular.begin(), singular.end(), block) == singular.end()) {
                    // a block kept as a block is a correct inverse: its residual is that of a stable solve
                    const double n = pointers[block + 1] - pointers[block];
                    EXPECT_LE(residuals[block], 64 * n * 0x1p-52 * cond[block]) << "block " << block;
                }
            }
            std::cout << name << (permutation.empty() ? "" : " (rows matched)") << ": " << pointers.size() - 1
                      << " blocks after " << jacobi->get_num_split_blocks() << " splits, " << singular.size()
                      << " singular rows, " << jacobi->get_num_zero_diagonal_rows() << " zero diagonal entries\n";
        }
    }
}

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
