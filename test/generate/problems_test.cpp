// Problem generators: exact small cases, nonzero-count formulas, symmetry and diagonal dominance where
// promised, determinism by seed, parameter validation, and the 10-million-row 3D Laplacian.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "larch/generate/problems.hpp"

namespace {

using larch::dim2;
using larch::matrix_data;
using larch::size_type;
namespace generate = larch::generate;

template <typename V, typename I>
std::vector<std::vector<V>> to_dense(const matrix_data<V, I>& data)
{
    std::vector<std::vector<V>> dense(data.size.rows, std::vector<V>(data.size.cols, V{0}));
    for (const auto& e : data.entries) {
        dense[e.row][e.col] += e.value;
    }
    return dense;
}

// Generators promise entries sorted by row, then column, without duplicates, inside the matrix.
template <typename V, typename I>
void expect_sorted_unique_and_inside(const matrix_data<V, I>& data)
{
    data.validate("generated");
    for (size_type k = 1; k < data.entries.size(); ++k) {
        const auto& a = data.entries[k - 1];
        const auto& b = data.entries[k];
        ASSERT_TRUE(a.row < b.row || (a.row == b.row && a.col < b.col)) << "entries " << k - 1 << ", " << k;
    }
}

template <typename V, typename I>
std::map<std::pair<I, I>, V> by_position(const matrix_data<V, I>& data)
{
    std::map<std::pair<I, I>, V> values;
    for (const auto& e : data.entries) {
        values[{e.row, e.col}] = e.value;
    }
    return values;
}

template <typename V, typename I>
bool is_symmetric(const matrix_data<V, I>& data)
{
    const auto values = by_position(data);
    for (const auto& [position, value] : values) {
        const auto mirror = values.find({position.second, position.first});
        if (mirror == values.end() || mirror->second != value) {
            return false;
        }
    }
    return true;
}

// Every row: |diagonal| > sum of the magnitudes of the other entries.
template <typename V, typename I>
bool is_strictly_diagonally_dominant(const matrix_data<V, I>& data)
{
    std::vector<double> diagonal(data.size.rows, 0.0);
    std::vector<double> off_diagonal(data.size.rows, 0.0);
    for (const auto& e : data.entries) {
        (e.row == e.col ? diagonal : off_diagonal)[e.row] += std::abs(static_cast<double>(e.value));
    }
    for (size_type row = 0; row < data.size.rows; ++row) {
        if (!(diagonal[row] > off_diagonal[row])) {
            return false;
        }
    }
    return true;
}

TEST(Laplace2d, OnA3x3GridIsTheFivePointStencilMatrix)
{
    const auto data = generate::laplace_2d<double>(3);

    const std::vector<std::vector<double>> expected{
        {4, -1, 0, -1, 0, 0, 0, 0, 0},  {-1, 4, -1, 0, -1, 0, 0, 0, 0},  {0, -1, 4, 0, 0, -1, 0, 0, 0},
        {-1, 0, 0, 4, -1, 0, -1, 0, 0}, {0, -1, 0, -1, 4, -1, 0, -1, 0}, {0, 0, -1, 0, -1, 4, 0, 0, -1},
        {0, 0, 0, -1, 0, 0, 4, -1, 0},  {0, 0, 0, 0, -1, 0, -1, 4, -1},  {0, 0, 0, 0, 0, -1, 0, -1, 4}};
    EXPECT_EQ(data.size, dim2(9));
    EXPECT_EQ(to_dense(data), expected);
    expect_sorted_unique_and_inside(data);
}

TEST(Laplace2d, RowSumsAreTwoAtCornersOneOnEdgesZeroInside)
{
    const auto dense = to_dense(generate::laplace_2d<double>(3));

    const std::vector<double> expected_row_sums{2, 1, 2, 1, 0, 1, 2, 1, 2};
    for (size_type row = 0; row < 9; ++row) {
        double sum = 0;
        for (const auto value : dense[row]) {
            sum += value;
        }
        EXPECT_EQ(sum, expected_row_sums[row]) << "row " << row;
    }
}

TEST(StencilGenerators, HaveTheNonzeroCountsOfTheirFormulas)
{
    for (size_type n = 1; n <= 6; ++n) {
        SCOPED_TRACE("n = " + std::to_string(n));
        EXPECT_EQ(generate::laplace_2d<double>(n).entries.size(), 5 * n * n - 4 * n);
        EXPECT_EQ(generate::laplace_3d<double>(n).entries.size(), 7 * n * n * n - 6 * n * n);
        EXPECT_EQ(generate::convection_diffusion_2d<float>(n, 1.5).entries.size(), 5 * n * n - 4 * n);
        EXPECT_EQ(generate::tridiagonal<double>(n).entries.size(), 3 * n - 2);
        EXPECT_EQ(generate::arrow<double>(n).entries.size(), 3 * n - 2);
        EXPECT_EQ(generate::block_fem<double>(n, 2, 3, 1).entries.size(), (5 * n * n - 4 * n) * 9);
        EXPECT_EQ(generate::block_fem<double>(n, 3, 2, 1).entries.size(), (7 * n * n * n - 6 * n * n) * 4);
    }
}

TEST(StencilGenerators, AreSortedSymmetricAndStrictlyDominantAtTheBoundary)
{
    const auto laplace_3d = generate::laplace_3d<double, std::int64_t>(4);
    const auto tridiagonal = generate::tridiagonal<double>(5);

    expect_sorted_unique_and_inside(laplace_3d);
    expect_sorted_unique_and_inside(tridiagonal);
    EXPECT_TRUE(is_symmetric(laplace_3d));
    EXPECT_TRUE(is_symmetric(tridiagonal));
    EXPECT_EQ(to_dense(generate::tridiagonal<double>(3)),
              (std::vector<std::vector<double>>{{2, -1, 0}, {-1, 2, -1}, {0, -1, 2}}));
}

TEST(ConvectionDiffusion2d, IsTheLaplacianPlusASkewSymmetricConvection)
{
    const double convection = 1.0;  // c/2 = 0.5: every value below is exact in binary
    const auto data = generate::convection_diffusion_2d<double>(4, convection);
    const auto laplace = by_position(generate::laplace_2d<double>(4));

    expect_sorted_unique_and_inside(data);
    EXPECT_FALSE(is_symmetric(data));
    const auto values = by_position(data);
    for (const auto& [position, value] : values) {
        const auto transposed = values.at({position.second, position.first});
        // (A + A^T) / 2 is the Laplacian, (A - A^T) / 2 is +-c/2 between east/north neighbours.
        EXPECT_EQ((value + transposed) / 2, laplace.at(position));
        const double skew = position.second > position.first ? convection / 2 : -convection / 2;
        EXPECT_EQ((value - transposed) / 2, position.first == position.second ? 0.0 : skew);
    }
}

TEST(ConvectionDiffusion2d, WithoutConvectionIsTheLaplacian)
{
    EXPECT_EQ(generate::convection_diffusion_2d<double>(5, 0.0).entries,
              generate::laplace_2d<double>(5).entries);
}

TEST(BlockFem, IsSymmetricDominantWithDenseNodeBlocks)
{
    const size_type block_size = 3;
    const auto data = generate::block_fem<double>(3, 2, block_size, 7);

    EXPECT_EQ(data.size, dim2(9 * block_size));
    expect_sorted_unique_and_inside(data);
    EXPECT_TRUE(is_symmetric(data));
    EXPECT_TRUE(is_strictly_diagonally_dominant(data));
    const auto values = by_position(data);
    // Row 0 (node 0, a corner) couples with every unknown of nodes 0, 1 and 3 (columns 0-5 and 9-11).
    for (int col = 0; col < static_cast<int>(data.size.cols); ++col) {
        const bool coupled = col < 6 || (col >= 9 && col < 12);
        EXPECT_EQ(values.count({0, col}), coupled ? 1u : 0u) << "column " << col;
    }
    for (const auto& e : data.entries) {
        if (e.row != e.col) {
            EXPECT_TRUE(e.value > -1.0 && e.value <= -0.5) << e.row << ", " << e.col << ": " << e.value;
        }
    }
}

TEST(BlockFem, IsDeterministicForASeed)
{
    EXPECT_EQ(generate::block_fem<float>(3, 3, 2, 11).entries,
              generate::block_fem<float>(3, 3, 2, 11).entries);
    EXPECT_NE(generate::block_fem<float>(3, 3, 2, 11).entries,
              generate::block_fem<float>(3, 3, 2, 12).entries);
}

TEST(Arrow, IsTheDiagonalPlusTheLastRowAndColumn)
{
    const auto data = generate::arrow<double>(4);

    EXPECT_EQ(to_dense(data),
              (std::vector<std::vector<double>>{{2, 0, 0, 1}, {0, 2, 0, 1}, {0, 0, 2, 1}, {1, 1, 1, 4}}));
    expect_sorted_unique_and_inside(data);
    EXPECT_TRUE(is_strictly_diagonally_dominant(data));
    EXPECT_EQ(generate::arrow<double>(1).entries, (matrix_data<double>{dim2{1}, {{0, 0, 1.0}}}.entries));
}

TEST(RandomBlockPointers, CoverTheRowsWithBlocksInTheSizeRange)
{
    const auto pointers = generate::random_block_pointers<std::int32_t>(1000, 3, 17, 5);

    ASSERT_GE(pointers.size(), 2u);
    EXPECT_EQ(pointers.front(), 0);
    EXPECT_EQ(pointers.back(), 1000);
    for (size_type b = 0; b + 1 < pointers.size(); ++b) {
        const auto size = pointers[b + 1] - pointers[b];
        EXPECT_LE(size, 17);
        // Only the last block may be cut short.
        EXPECT_GE(size, b + 2 == pointers.size() ? 1 : 3) << "block " << b;
    }
    EXPECT_EQ(pointers, generate::random_block_pointers<std::int32_t>(1000, 3, 17, 5));
    EXPECT_NE(pointers, generate::random_block_pointers<std::int32_t>(1000, 3, 17, 6));
}

TEST(BlockDiagonal, HasDenseDominantBlocksAndNothingElse)
{
    const std::vector<std::int32_t> pointers{0, 2, 3, 6};
    const auto data = generate::block_diagonal<double>(pointers, 3);

    EXPECT_EQ(data.size, dim2(6));
    EXPECT_EQ(data.entries.size(), 4u + 1u + 9u);
    expect_sorted_unique_and_inside(data);
    EXPECT_TRUE(is_strictly_diagonally_dominant(data));
    const auto block_of = [](std::int32_t i) { return i < 2 ? 0 : i < 3 ? 1 : 2; };
    for (const auto& e : data.entries) {
        EXPECT_EQ(block_of(e.row), block_of(e.col)) << e.row << ", " << e.col;
    }
    EXPECT_EQ(to_dense(data)[2][2], 1.0);  // a 1x1 block has no off-diagonal entries: 0 + 1
}

TEST(RandomBlockDiagonal, IsDeterministicForASeedAndMatchesItsBlockPointers)
{
    const auto data = generate::random_block_diagonal<float>(200, 1, 32, 9);
    const auto pointers = generate::random_block_pointers<std::int32_t>(200, 1, 32, 9);

    size_type expected_nonzeros = 0;
    for (size_type b = 0; b + 1 < pointers.size(); ++b) {
        const auto size = static_cast<size_type>(pointers[b + 1] - pointers[b]);
        expected_nonzeros += size * size;
    }
    EXPECT_EQ(data.entries.size(), expected_nonzeros);
    EXPECT_TRUE(is_strictly_diagonally_dominant(data));
    EXPECT_EQ(data.entries, generate::random_block_diagonal<float>(200, 1, 32, 9).entries);
    EXPECT_NE(data.entries, generate::random_block_diagonal<float>(200, 1, 32, 10).entries);
}

TEST(RightHandSide, IsOnesOrUniformInTheUnitIntervalFromTheSeed)
{
    const auto ones = generate::right_hand_side<double>(5, generate::RhsKind::ones);
    const auto uniform = generate::right_hand_side<float>(10000, generate::RhsKind::uniform, 3);

    EXPECT_EQ(ones, std::vector<double>(5, 1.0));
    double sum = 0;
    for (const auto value : uniform) {
        ASSERT_TRUE(value >= 0.0f && value < 1.0f) << value;
        sum += value;
    }
    // The mean of 10000 uniform values has standard deviation 0.0029; 0.02 is 7 of them.
    EXPECT_NEAR(sum / uniform.size(), 0.5, 0.02);
    EXPECT_EQ(uniform, generate::right_hand_side<float>(10000, generate::RhsKind::uniform, 3));
    EXPECT_NE(uniform, generate::right_hand_side<float>(10000, generate::RhsKind::uniform, 4));
    EXPECT_TRUE(generate::right_hand_side<double>(0, generate::RhsKind::uniform).empty());
}

TEST(Generators, RejectInvalidParametersWithBadInput)
{
    using larch::BadInput;
    EXPECT_THROW(generate::laplace_2d<double>(0), BadInput);
    EXPECT_THROW(generate::laplace_3d<double>(0), BadInput);
    EXPECT_THROW(generate::tridiagonal<double>(0), BadInput);
    EXPECT_THROW(generate::arrow<double>(0), BadInput);
    EXPECT_THROW(generate::convection_diffusion_2d<double>(0, 1.0), BadInput);
    EXPECT_THROW(generate::convection_diffusion_2d<double>(4, std::nan("")), BadInput);
    EXPECT_THROW(generate::block_fem<double>(4, 4, 2, 1), BadInput);
    EXPECT_THROW(generate::block_fem<double>(4, 2, 0, 1), BadInput);
    EXPECT_THROW(generate::random_block_pointers<std::int32_t>(10, 0, 4, 1), BadInput);
    EXPECT_THROW(generate::random_block_pointers<std::int32_t>(10, 5, 4, 1), BadInput);
    EXPECT_THROW(generate::block_diagonal<double>(std::vector<std::int32_t>{0}, 1), BadInput);
    EXPECT_THROW(generate::block_diagonal<double>(std::vector<std::int32_t>{1, 3}, 1), BadInput);
    EXPECT_THROW(generate::block_diagonal<double>(std::vector<std::int32_t>{0, 3, 3}, 1), BadInput);
}

TEST(Generators, RejectSizesThatOverflowTheIndexType)
{
    using larch::BadInput;
    // 2000^3 rows exceed int32; 700^3 rows fit but their 2.4e9 nonzeros do not.
    EXPECT_THROW(generate::laplace_3d<double>(2000), BadInput);
    EXPECT_THROW(generate::laplace_3d<double>(700), BadInput);
    // n^2 overflows 64-bit sizes before any index type is asked.
    EXPECT_THROW((generate::laplace_2d<double, std::int64_t>(size_type{1} << 33)), BadInput);
    EXPECT_THROW(generate::block_fem<double>(1000, 3, 4, 1), BadInput);
    EXPECT_THROW(generate::arrow<float>(size_type{1} << 31), BadInput);
    try {
        generate::laplace_3d<double>(700);
    } catch (const BadInput& e) {
        EXPECT_NE(
            std::string{e.what()}.find("laplace_3d: 2398060000 nonzeros do not fit the index type int32"),
            std::string::npos)
            << e.what();
    }
}

TEST(Laplace3d, ScalesToTenMillionRowsWithExactlyReservedMemory)
{
    const size_type n = 216;
    const auto start = std::chrono::steady_clock::now();

    const auto data = generate::laplace_3d<float>(n);

    const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    std::cout << "laplace_3d(" << n << "): " << data.size.rows << " rows, " << data.entries.size()
              << " nonzeros in " << seconds.count() << " s\n";
    EXPECT_EQ(data.size, dim2(n * n * n));
    EXPECT_EQ(data.entries.size(), 7 * n * n * n - 6 * n * n);
    EXPECT_EQ(data.entries.capacity(), data.entries.size());
    // The middle row: 6 on the diagonal, -1 at distances 1, n and n^2.
    const auto middle = static_cast<std::int32_t>((n / 2 * n + n / 2) * n + n / 2);
    const auto first = std::lower_bound(data.entries.begin(), data.entries.end(), middle,
                                        [](const auto& e, std::int32_t row) { return e.row < row; });
    const std::vector<std::int32_t> offsets{-216 * 216, -216, -1, 0, 1, 216, 216 * 216};
    for (size_type k = 0; k < offsets.size(); ++k) {
        EXPECT_EQ(first[k].row, middle);
        EXPECT_EQ(first[k].col, middle + offsets[k]);
        EXPECT_EQ(first[k].value, offsets[k] == 0 ? 6.0f : -1.0f);
    }
}

}  // namespace
