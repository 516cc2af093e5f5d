// The block-Jacobi part of the JSON solver description: every field reaches the preconditioner, and a bad
// value is reported with the path of its field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "larch/config/solver_config.hpp"
#include "larch/generate/problems.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace {

nlohmann::json idr_with(const nlohmann::json& preconditioner)
{
    return {{"type", "idr"},
            {"subspace_dim", 4},
            {"criteria", {{"max_iterations", 1000}, {"relative_residual", 1e-9}}},
            {"preconditioner", preconditioner}};
}

TEST(BlockJacobiConfig, SolvesWithEveryFieldOfTheBlockJacobiDescription)
{
    auto exec = larch::make_executor("reference");
    auto a = larch::share(larch::matrix::Csr<double>::create(
        exec, larch::generate::laplace_2d<double, std::int32_t>(16)));
    for (const std::string algorithm : {"gauss_jordan", "gauss_huard", "gauss_huard_transposed"}) {
        auto solver = larch::config::create_solver_factory<double>(
                          idr_with({{"type", "block_jacobi"},
                                    {"max_block_size", 32},
                                    {"algorithm", algorithm},
                                    {"storage_precision", "adaptive"},
                                    {"accuracy", 0.1},
                                    {"on_singular_block", "fallback"},
                                    {"extraction", algorithm == "gauss_jordan" ? "cached" : "shared"},
                                    {"row_matching", algorithm == "gauss_jordan" ? "maximum_product" : "none"}}),
                          exec)
                          ->generate(a);
        auto b = larch::matrix::Dense<double>::create(exec, larch::dim2{256, 1});
        b->fill(1.0);
        auto x = larch::matrix::Dense<double>::create(exec, larch::dim2{256, 1});
        x->fill(0.0);
        solver->apply(b, x);
        EXPECT_TRUE(solver->get_status().converged()) << algorithm;
    }
}

TEST(BlockJacobiConfig, NamesTheBadField)
{
    auto exec = larch::make_executor("reference");
    const auto message_of = [&](const nlohmann::json& preconditioner) {
        try {
            larch::config::create_solver_factory<double>(idr_with(preconditioner), exec);
        } catch (const larch::BadInput& error) {
            return std::string{error.what()};
        }
        return std::string{"no exception"};
    };
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"algorithm", "lu"}}).find("/preconditioner/algorithm"),
              std::string::npos);
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"storage_precision", "quad"}}).find("/preconditioner/storage_precision"),
              std::string::npos);
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"accuracy", 2.0}}).find("/preconditioner/accuracy"),
              std::string::npos);
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"accuracy", 0.0}}).find("expected a number in (0, 1], got 0"),
              std::string::npos);
    // Working storage (the default) never reads the accuracy, which would otherwise be dropped without a word.
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"accuracy", 0.01}})
                  .find("/preconditioner/accuracy: only \"storage_precision\": \"adaptive\" uses an accuracy"),
              std::string::npos);
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"storage_precision", "working"}, {"accuracy", 0.01}})
                  .find("/preconditioner/accuracy: only"),
              std::string::npos);
    // A positive subnormal accuracy is accepted, as BlockJacobi::parameters_type takes it.
    EXPECT_EQ(message_of({{"type", "block_jacobi"}, {"storage_precision", "adaptive"}, {"accuracy", 1e-310}}),
              "no exception");
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"on_singular_block", "ignore"}}).find("/preconditioner/on_singular_block"),
              std::string::npos);
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"extraction", "global"}}).find("/preconditioner/extraction"),
              std::string::npos);
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"row_matching", "greedy"}}).find("/preconditioner/row_matching"),
              std::string::npos);
    EXPECT_NE(message_of({{"type", "block_jacobi"}, {"max_block_size", 0}}).find("/preconditioner/max_block_size"),
              std::string::npos);
}

}  // namespace
