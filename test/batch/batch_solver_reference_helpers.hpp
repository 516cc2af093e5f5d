// Helpers of the batched solver tests on the reference executor: items with a known solution, explicit
// diagonals, a right-hand side that excites every mode, and a batch whose items each expect their own status.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/solver/solve_result.hpp"
#include "larch/batch/vector.hpp"
#include "test/batch/batch_solver_test_helpers.hpp"

namespace larch {
namespace test {

/// One reference executor shared by every test of a program.
inline const std::shared_ptr<const Executor>& reference_executor()
{
    static const auto executor = make_executor("reference");
    return executor;
}

/// x_true(r) = r + 1 for every item; returns b = A x_true (all items concatenated).
inline std::vector<double> rhs_of_known_solution(const std::vector<matrix_data<double>>& items)
{
    std::vector<double> b;
    for (const auto& item : items) {
        std::vector<double> x(item.size.rows);
        for (size_type r = 0; r < x.size(); ++r) {
            x[r] = static_cast<double>(r + 1);
        }
        const auto bi = multiply(item, x);
        b.insert(b.end(), bi.begin(), bi.end());
    }
    return b;
}

/// Expects item `item` of x to be rhs_of_known_solution's x_true (r + 1 in row r), each row within `tolerance`.
inline void expect_known_solution(const batch::Vector<double>& x, size_type item, double tolerance)
{
    const auto xi = x.copy_item_to_host(item);
    for (size_type r = 0; r < xi.size(); ++r) {
        EXPECT_NEAR(xi[r], static_cast<double>(r + 1), tolerance) << "item " << item << " row " << r;
    }
}

inline std::unique_ptr<batch::Vector<double>> zeros(const std::vector<matrix_data<double>>& items)
{
    auto x = batch::Vector<double>::create(reference_executor(), item_rows(items));
    x->fill(0.0);
    return x;
}

/// Matrices with an explicit diagonal (zeros kept) and nothing else.
inline matrix_data<double> diagonal(const std::vector<double>& entries)
{
    matrix_data<double> data{dim2{entries.size(), entries.size()}};
    for (size_type r = 0; r < entries.size(); ++r) {
        data.entries.push_back({static_cast<std::int32_t>(r), static_cast<std::int32_t>(r), entries[r]});
    }
    return data;
}

/// b_r = sin(1.7 r): excites every eigenvector of a 1D Laplacian of order n, whose condition number
/// (about 0.4 n^2) then needs far more than 40 CG or 12 BiCGSTAB iterations for 1e-10 at n = 100.
inline std::vector<double> wave(size_type n)
{
    std::vector<double> b(n);
    for (size_type r = 0; r < n; ++r) {
        b[r] = std::sin(1.7 * static_cast<double>(r));
    }
    return b;
}

/// Items with their right-hand sides, initial guesses and the status each must end with.
struct MixedBatch {
    std::vector<matrix_data<double>> items;
    std::vector<double> b;
    std::vector<double> x0;
    std::vector<batch::ItemStatus> expected;

    void add(matrix_data<double> item, std::vector<double> bi, std::vector<double> xi, batch::ItemStatus status)
    {
        items.push_back(std::move(item));
        b.insert(b.end(), bi.begin(), bi.end());
        x0.insert(x0.end(), xi.begin(), xi.end());
        expected.push_back(status);
    }
};

/// Solves the batch on the reference executor and checks each item's status, iteration count and, where it
/// converged, its true residual against its threshold.
template <typename Solver>
void check_mixed(const MixedBatch& mixed, int max_iterations)
{
    auto a = share(batch::Csr<double>::create(reference_executor(), mixed.items));
    const auto rows = item_rows(mixed.items);
    const auto b = batch::Vector<double>::create(reference_executor(), rows, 1, mixed.b);
    auto x = batch::Vector<double>::create(reference_executor(), rows, 1, mixed.x0);
    auto solver = Solver::build()
                      .with_max_iterations(max_iterations)
                      .with_tolerance(1e-10)
                      .on(reference_executor())
                      ->generate(a);
    solver->apply(*b, *x);
    const auto result = solver->get_result();
    for (size_type item = 0; item < mixed.items.size(); ++item) {
        EXPECT_EQ(result.get_status(item), mixed.expected[item])
            << "item " << item << ": " << batch::to_string(result.get_status(item));
        EXPECT_LE(result.get_iterations(item), static_cast<size_type>(max_iterations));
        if (mixed.expected[item] == batch::ItemStatus::converged) {
            const auto xi = x->copy_item_to_host(item);
            const auto bi = b->copy_item_to_host(item);
            EXPECT_LE(residual_norm(mixed.items[item], bi.data(), xi.data()),
                      1.01 * result.get_threshold(item))
                << "item " << item;
        }
    }
}

}  // namespace test
}  // namespace larch
