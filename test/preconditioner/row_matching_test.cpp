// The maximum product row matching of block-Jacobi against the best of all permutations on small random
// matrices, and its completion of a structurally singular matrix to a permutation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/preconditioner/row_matching.hpp"
#include "larch/matrix/csr.hpp"

namespace {

using Csr = larch::matrix::Csr<double>;
using Data = larch::matrix_data<double, std::int32_t>;

/// sum over columns of log |a(row_of_column[j], j)|, -infinity if a matched entry is zero
double log_diagonal_product(const std::vector<double>& dense, int n, const std::vector<std::int32_t>& row_of_column)
{
    double sum = 0;
    for (int column = 0; column < n; ++column) {
        sum += std::log(std::abs(dense[row_of_column[column] * n + column]));
    }
    return sum;
}

bool is_permutation_of_rows(std::vector<std::int32_t> rows)
{
    std::sort(rows.begin(), rows.end());
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (rows[k] != static_cast<std::int32_t>(k)) {
            return false;
        }
    }
    return true;
}

TEST(RowMatching, FindsTheLargestDiagonalProductOfAllPermutationsOnSmallRandomMatrices)
{
    auto exec = larch::make_executor("reference");
    const unsigned seed = 20261124;
    std::mt19937 engine{seed};
    std::uniform_real_distribution<double> magnitude{-3.0, 3.0};  // log10 of the entries: 1e-3 .. 1e3
    std::bernoulli_distribution present{0.45};
    int compared = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const int n = 2 + trial % 6;
        Data data{larch::dim2{static_cast<larch::size_type>(n)}, {}};
        std::vector<double> dense(n * n, 0.0);
        for (int row = 0; row < n; ++row) {
            for (int column = 0; column < n; ++column) {
                // a diagonal entry is rare, so that the identity is seldom the answer
                if (present(engine) && (row != column || trial % 3 == 0)) {
                    const double value = (engine() % 2 ? 1 : -1) * std::pow(10.0, magnitude(engine));
                    data.entries.push_back({row, column, value});
                    dense[row * n + column] = value;
                }
            }
        }
        auto a = Csr::create(exec, data);
        const auto row_of_column = larch::preconditioner::find_maximum_product_matching(*a);
        ASSERT_TRUE(is_permutation_of_rows(row_of_column)) << "seed " << seed << ", trial " << trial;
        std::vector<std::int32_t> candidate(n);
        std::iota(candidate.begin(), candidate.end(), 0);
        double best = -INFINITY;
        do {
            best = std::max(best, log_diagonal_product(dense, n, candidate));
        } while (std::next_permutation(candidate.begin(), candidate.end()));
        if (!std::isfinite(best)) {
            continue;  // structurally singular: no complete matching to compare with
        }
        ++compared;
        // the costs are logs of magnitudes up to 1e3: the sums agree to a few roundings of numbers near 10
        EXPECT_NEAR(log_diagonal_product(dense, n, row_of_column), best, 1e-12)
            << "seed " << seed << ", trial " << trial << ", n " << n;
    }
    EXPECT_GT(compared, 100);  // most trials have a complete matching
}

// Column 1 is empty and row 2 is empty: the matching covers columns 0 and 2 (rows 1 and 0, the largest
// entries) and gives column 1 the row left over.
TEST(RowMatching, CompletesAStructurallySingularMatrixToAPermutation)
{
    auto exec = larch::make_executor("reference");
    const Data data{larch::dim2{3}, {{0, 0, 1}, {0, 2, 5}, {1, 0, 4}, {1, 2, 1}}};
    const auto row_of_column = larch::preconditioner::find_maximum_product_matching(*Csr::create(exec, data));
    EXPECT_EQ(row_of_column, (std::vector<std::int32_t>{1, 2, 0}));
}

}  // namespace
