// Batched solvers from JSON: every field reaches the solver, and bad descriptions name the offending path.
#include <gtest/gtest.h>

#include <string>

#include "larch/batch/csr.hpp"
#include "larch/batch/solver/bicgstab.hpp"
#include "larch/batch/solver/gmres.hpp"
#include "larch/config/batch_solver_config.hpp"
#include "test/batch/batch_solver_test_helpers.hpp"

namespace {

const auto ref = larch::make_executor("reference");

std::shared_ptr<const larch::batch::Csr<double>> two_items()
{
    return larch::batch::Csr<double>::create(
        ref, {larch::test::tridiagonal<double>(5), larch::test::tridiagonal<double>(7, 0.4)});
}

/// The message of the BadInput that parsing `text` throws (empty if none).
std::string error_of(const std::string& text)
{
    try {
        larch::config::parse_batch_solver_config<double>(text, ref)->generate_solver(two_items());
    } catch (const larch::BadInput& error) {
        return error.what();
    }
    return {};
}

TEST(BatchSolverConfig, BuildsEverySolverWithItsParameters)
{
    const auto solver = larch::config::parse_batch_solver_config<double>(
                            R"({"type": "gmres", "restart": 7, "max_residual_replacements": 2,
                                "criteria": {"max_iterations": 40, "absolute_residual": [1e-6, 1e-9]},
                                "preconditioner": {"type": "jacobi"}})",
                            ref)
                            ->generate_solver(two_items());
    const auto* gmres = dynamic_cast<const larch::batch::Gmres<double>*>(solver.get());
    ASSERT_NE(gmres, nullptr);
    EXPECT_EQ(gmres->get_parameters().krylov_dim, 7u);
    const auto& parameters = solver->get_common_parameters();
    EXPECT_EQ(parameters.max_iterations, 40u);
    EXPECT_EQ(parameters.max_residual_replacements, 2u);
    EXPECT_EQ(parameters.tolerance_type, larch::batch::ToleranceType::absolute);
    EXPECT_EQ(parameters.item_tolerances, (std::vector<double>{1e-6, 1e-9}));
    EXPECT_EQ(parameters.preconditioner, larch::batch::ItemPreconditioner::jacobi);
    const auto bicgstab = larch::config::parse_batch_solver_config<double>(R"({"type": "bicgstab", "kappa": 0})", ref)
                              ->generate_solver(two_items());
    EXPECT_EQ(dynamic_cast<const larch::batch::Bicgstab<double>&>(*bicgstab).get_parameters().kappa, 0.0);
    const auto blocks = larch::config::parse_batch_solver_config<double>(
                            R"({"type": "cg", "preconditioner": {"type": "block_jacobi", "max_block_size": 4}})", ref)
                            ->generate_solver(two_items());
    EXPECT_EQ(blocks->get_common_parameters().preconditioner, larch::batch::ItemPreconditioner::block_jacobi);
    EXPECT_EQ(blocks->get_common_parameters().max_block_size, 4u);
    using larch::preconditioner::BlockJacobiRowMatching;
    EXPECT_EQ(blocks->get_common_parameters().block_row_matching, BlockJacobiRowMatching::automatic);
    const auto unmatched =
        larch::config::parse_batch_solver_config<double>(
            R"({"type": "cg", "preconditioner": {"type": "block_jacobi", "row_matching": "none"}})", ref)
            ->generate_solver(two_items());
    EXPECT_EQ(unmatched->get_common_parameters().block_row_matching, BlockJacobiRowMatching::none);
    for (const std::string type : {"cg", "bicgstab"}) {
        const auto other = larch::config::parse_batch_solver_config<double>(
                               R"({"type": ")" + type + R"(", "criteria": {"relative_residual": 1e-4}})", ref)
                               ->generate_solver(two_items());
        EXPECT_EQ(other->get_type_name(), "batch::" + std::string(type == "cg" ? "Cg" : "Bicgstab") + "<double>");
        EXPECT_DOUBLE_EQ(other->get_common_parameters().tolerance, 1e-4);
    }
}

TEST(BatchSolverConfig, RejectsBadDescriptionsNamingThePath)
{
    EXPECT_NE(error_of(R"({"criteria": {}})").find("missing field \"type\""), std::string::npos);
    EXPECT_NE(error_of(R"({"type": "idr"})").find("/type: unknown batched solver \"idr\""), std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "restart": 3})").find("/restart: unknown field"), std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "kappa": 0.5})").find("/kappa: unknown field"), std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "preconditioner": {"type": "block_jacobi", "row_matching": "best"}})")
                  .find("/preconditioner/row_matching: unknown value \"best\"; valid values are automatic, none, "
                        "maximum_product"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "preconditioner": {"type": "jacobi", "row_matching": "none"}})")
                  .find("/preconditioner/row_matching: only block_jacobi"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "bicgstab", "kappa": 1.2})").find("/kappa"), std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "criteria": {"max_iterations": 0}})").find("/criteria/max_iterations"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "criteria": {"relative_residual": [1e-3, -1]}})")
                  .find("/criteria/relative_residual/1"),
              std::string::npos);
    // one wording for a single tolerance and a list entry
    EXPECT_NE(error_of(R"({"type": "cg", "criteria": {"relative_residual": 0}})")
                  .find("/criteria/relative_residual: expected a finite number > 0, got 0"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "criteria": {"relative_residual": 1e-3, "absolute_residual": 1}})")
                  .find("not both"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "preconditioner": {"type": "ilu"}})").find("/preconditioner/type"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "type": "cg"})").find("duplicate key"), std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "preconditioner": {"type": "jacobi", "max_block_size": 4}})")
                  .find("/preconditioner/max_block_size: only block_jacobi"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "preconditioner": {"type": "block_jacobi", "max_block_size": 64}})")
                  .find("/preconditioner/max_block_size"),
              std::string::npos);
    // An empty list would otherwise fall back to the default tolerance for every item without a word.
    EXPECT_NE(error_of(R"({"type": "cg", "criteria": {"relative_residual": []}})")
                  .find("/criteria/relative_residual: an empty list"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"type": "cg", "criteria": {"absolute_residual": []}})")
                  .find("/criteria/absolute_residual: an empty list"),
              std::string::npos);
    // A per-item list of the wrong length is caught when the solver is generated for the batch.
    EXPECT_THROW(larch::config::parse_batch_solver_config<double>(
                     R"({"type": "cg", "criteria": {"relative_residual": [1e-3]}})", ref)
                     ->generate_solver(two_items()),
                 larch::DimensionMismatch);
}

}  // namespace
