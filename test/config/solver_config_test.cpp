// Solvers from JSON: every solver type builds and solves, the fields reach the parameters, and unknown or
// ill-typed fields throw BadInput naming their JSON path.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/json_reader.hpp"
#include "larch/base/executor.hpp"
#include "larch/config/solver_config.hpp"
#include "larch/generate/problems.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/solver/bicgstab.hpp"
#include "larch/solver/cg.hpp"
#include "larch/solver/gmres.hpp"
#include "larch/solver/idr.hpp"

namespace {

using Dense = larch::matrix::Dense<double>;

class SolverConfig : public ::testing::Test {
protected:
    std::shared_ptr<const larch::Executor> exec = larch::make_executor("reference");
    std::shared_ptr<const larch::LinOp> a =
        larch::share(larch::matrix::Csr<double>::create(exec, larch::generate::laplace_2d<double>(5)));

    // Expects BadInput whose message holds `fragment` (the field path and the problem).
    void expect_error(const std::string& json_text, const std::string& fragment)
    {
        try {
            larch::config::parse_solver_config<double>(json_text, exec)->generate(a);
            FAIL() << "no exception for " << json_text;
        } catch (const larch::BadInput& error) {
            EXPECT_NE(std::string{error.what()}.find(fragment), std::string::npos)
                << "message: " << error.what();
        }
    }
};

TEST_F(SolverConfig, BuildsEverySolverTypeAndSolves)
{
    for (const std::string type : {"cg", "bicgstab", "idr", "gmres"}) {
        auto factory = larch::config::parse_solver_config<double>(
            R"({"type": ")" + type + R"(", "criteria": {"max_iterations": 500, "relative_residual": 1e-10},
                "preconditioner": {"type": "block_jacobi", "max_block_size": 1}})",
            exec);
        auto solver = factory->generate(a);
        auto b = Dense::create(exec, larch::dim2{25, 1});
        b->fill(1.0);
        auto x = Dense::create(exec, larch::dim2{25, 1});
        x->fill(0.0);
        solver->apply(b, x);
        EXPECT_TRUE(solver->get_status().converged()) << type << ": " << solver->get_status().message;
        EXPECT_NE(solver->get_preconditioner(), nullptr) << type;
    }
}

TEST_F(SolverConfig, PassesTheDocumentedExampleFieldsToTheParameters)
{
    auto description = nlohmann::json::parse(R"({"type": "idr", "subspace_dim": 3, "seed": 7, "kappa": 0.5,
        "check_interval": 5, "max_residual_replacements": 2,
        "criteria": {"max_iterations": 50000, "relative_residual": 1e-9, "time_limit": 10},
        "preconditioner": {"type": "none"}})");
    auto solver = larch::config::create_solver_factory<double>(description, exec)->generate(a);
    auto& idr = dynamic_cast<larch::solver::Idr<double>&>(*solver);
    EXPECT_EQ(idr.get_parameters().subspace_dim, 3u);
    EXPECT_EQ(idr.get_parameters().seed, 7u);
    EXPECT_EQ(idr.get_parameters().kappa, 0.5);
    EXPECT_EQ(idr.get_parameters().check_interval, 5u);
    EXPECT_EQ(idr.get_parameters().max_residual_replacements, 2u);
    EXPECT_EQ(idr.get_criteria().get_max_iterations(), 50000u);
    EXPECT_EQ(idr.get_criteria().get_time_limit(), 10.0);
    EXPECT_EQ(idr.get_preconditioner(), nullptr);
    auto gmres = larch::config::parse_solver_config<float>(
        R"({"type": "gmres", "restart": 100, "check_interval": 4, "criteria": {"max_iterations": 10}})", exec);
    EXPECT_EQ(dynamic_cast<larch::solver::Gmres<float>::Factory&>(*gmres).get_parameters().restart, 100u);
    EXPECT_EQ(dynamic_cast<larch::solver::Gmres<float>::Factory&>(*gmres).get_parameters().check_interval, 4u);
    auto cg = larch::config::parse_solver_config<double>(
        R"({"type": "cg", "check_interval": 3, "criteria": {"max_iterations": 10}})", exec);
    EXPECT_EQ(dynamic_cast<larch::solver::Cg<double>::Factory&>(*cg).get_parameters().check_interval, 3u);
    auto bicgstab = larch::config::parse_solver_config<double>(
        R"({"type": "bicgstab", "check_interval": 1, "kappa": 0, "criteria": {"max_iterations": 10}})", exec);
    const auto& bicgstab_parameters =
        dynamic_cast<larch::solver::Bicgstab<double>::Factory&>(*bicgstab).get_parameters();
    EXPECT_EQ(bicgstab_parameters.check_interval, 1u);
    EXPECT_EQ(bicgstab_parameters.kappa, 0.0);
    expect_error(R"({"type": "bicgstab", "kappa": -0.5, "criteria": {"max_iterations": 10}})",
                 "/kappa: expected a number in [0, 1]");
    expect_error(R"({"type": "cg", "check_interval": 0, "criteria": {"max_iterations": 10}})", "/check_interval");
    expect_error(R"({"type": "gmres", "check_interval": 0, "criteria": {"max_iterations": 10}})", "/check_interval");
    expect_error(R"({"type": "idr", "check_interval": 0, "criteria": {"max_iterations": 10}})", "/check_interval");
}

TEST_F(SolverConfig, ReadsTheDivergenceAndStagnationCriteria)
{
    auto solver = larch::config::parse_solver_config<double>(
        R"({"type": "cg", "criteria": {"max_iterations": 50, "divergence": 1e4,
            "stagnation": {"window": 200, "relative_decrease": 0.01}}})", exec)->generate(a);
    ASSERT_EQ(solver->get_criteria().get_divergence().size(), 1u);
    EXPECT_EQ(solver->get_criteria().get_divergence()[0].value, 1e4);
    auto patient = larch::config::parse_solver_config<double>(
        R"({"type": "cg", "criteria": {"max_iterations": 50, "divergence": {"iterations": 3}}})", exec)->generate(a);
    ASSERT_EQ(patient->get_criteria().get_divergence().size(), 1u);
    EXPECT_EQ(patient->get_criteria().get_divergence()[0].value, 1e5);
    EXPECT_EQ(patient->get_criteria().get_divergence()[0].iterations, 3u);
    ASSERT_EQ(solver->get_criteria().get_stagnation().size(), 1u);
    EXPECT_EQ(solver->get_criteria().get_stagnation()[0].iterations, 200u);
    EXPECT_EQ(solver->get_criteria().get_stagnation()[0].value, 0.01);
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "divergence": 0.5}})",
                 "/criteria/divergence: expected a finite number >= 1, got 0.5");
    // neither a number nor an object: the message names both forms, not only the object
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "divergence": true}})",
                 "/criteria/divergence: expected a factor (a number >= 1) or {\"factor\": f, \"iterations\": k}, "
                 "got boolean true");
    expect_error(R"({"type": "cg", "monitor": "yes", "criteria": {"max_iterations": 5}})",
                 "/monitor: expected true, false or {\"every\": k}, got string \"yes\"");
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "stagnation": {"relative_decrease": 0.1}}})",
                 "/criteria/stagnation/window: missing");
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "stagnation": {"window": 0}}})",
                 "/criteria/stagnation/window: expected an integer >= 1, got 0");
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "stagnation": {"window": 9, "relative_decrease": 1}}})",
                 "/criteria/stagnation/relative_decrease: expected a number in [0, 1), got 1");
}

TEST_F(SolverConfig, RejectsAnInfiniteToleranceBuiltInCppWithItsPath)
{
    // JSON text cannot hold inf, a json built in C++ can; the reader names the field, not stop:: alone
    for (const std::string key : {"relative_residual", "initial_residual", "absolute_residual"}) {
        const nlohmann::json description = {
            {"type", "cg"},
            {"criteria", {{"max_iterations", 5}, {key, std::numeric_limits<double>::infinity()}}}};
        try {
            larch::config::create_solver_factory<double>(description, exec);
            FAIL() << "no exception for " << key << " = inf";
        } catch (const larch::BadInput& error) {
            EXPECT_NE(std::string{error.what()}.find("/criteria/" + key + ": expected a finite number >= 0, got inf"),
                      std::string::npos)
                << "message: " << error.what();
        }
    }
    // a time limit of inf is no limit, as stop::time_limit takes it
    const nlohmann::json unlimited = {
        {"type", "cg"}, {"criteria", {{"max_iterations", 5}, {"time_limit", std::numeric_limits<double>::infinity()}}}};
    EXPECT_NO_THROW(larch::config::create_solver_factory<double>(unlimited, exec));
}

TEST_F(SolverConfig, UnknownFieldsNameTheirPath)
{
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "relative_tolerance": 1e-9}})",
                 "/criteria/relative_tolerance: unknown field");
    expect_error(R"({"type": "cg", "subspace_dim": 4, "criteria": {"max_iterations": 5}})",
                 "/subspace_dim: unknown field");
    expect_error(R"({"type": "gmres", "preconditioner": {"type": "block_jacobi", "blocks": 2}})",
                 "/preconditioner/blocks: unknown field");
}

TEST_F(SolverConfig, IllTypedOrOutOfRangeFieldsNameTheirPath)
{
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": "many"}})",
                 "/criteria/max_iterations: expected a non-negative integer, got string");
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 10.5}})",
                 "/criteria/max_iterations: expected a non-negative integer");
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "relative_residual": "1e-9"}})",
                 "/criteria/relative_residual: expected a number, got string");
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "absolute_residual": -1}})",
                 "/criteria/absolute_residual: expected a finite number >= 0, got -1");
    expect_error(R"({"type": "idr", "subspace_dim": 0, "criteria": {"max_iterations": 5}})",
                 "/subspace_dim: expected an integer >= 1, got 0");
    expect_error(R"({"type": "idr", "kappa": 2, "criteria": {"max_iterations": 5}})", "/kappa: expected a number in [0, 1]");
    // the rejected value as given, not rounded to six digits into the range
    expect_error(R"({"type": "idr", "kappa": 1.0000001, "criteria": {"max_iterations": 5}})",
                 "/kappa: expected a number in [0, 1], got 1.0000001");
    expect_error(R"({"type": "cg", "criteria": [1, 2]})", "/criteria: expected an object, got array");
    expect_error(R"({"type": 3})", "/type: expected a string, got number");
}

TEST_F(SolverConfig, UnknownTypesAndMissingTypeAreRejected)
{
    expect_error(R"({"type": "minres"})", "/type: unknown solver \"minres\"; valid types are cg, bicgstab, idr, gmres");
    expect_error(R"({"criteria": {"max_iterations": 5}})", "missing field \"type\"");
    expect_error(R"({"type": "cg", "preconditioner": {"type": "ilu"}})", "/preconditioner/type: unknown preconditioner");
    expect_error(R"({"type": "cg", "preconditioner": {"max_block_size": 1}})", "/preconditioner: missing field \"type\"");
    expect_error(R"([1])", "expected an object");
}

TEST_F(SolverConfig, MalformedJsonAndMissingFilesThrowBadInput)
{
    expect_error(R"({"type": "cg",)", "malformed JSON");
    EXPECT_THROW(larch::config::read_solver_config<double>("/nonexistent/solver.json", exec), larch::BadInput);
    // a folder opens as a stream that reads nothing: named as a folder, not as malformed JSON
    const auto folder = ::testing::TempDir();
    try {
        larch::config::read_solver_config<double>(folder, exec);
        FAIL() << "no exception for the folder " << folder;
    } catch (const larch::BadInput& error) {
        EXPECT_NE(std::string{error.what()}.find("'" + folder + "' is a directory, not a JSON file"), std::string::npos)
            << "message: " << error.what();
    }
}

TEST_F(SolverConfig, ReadsAFile)
{
    const std::string path = ::testing::TempDir() + "larch_solver_config_test.json";
    std::ofstream{path} << R"({"type": "bicgstab", "criteria": {"max_iterations": 100, "relative_residual": 1e-8}})";
    auto solver = larch::config::read_solver_config<double>(path, exec)->generate(a);
    EXPECT_EQ(solver->get_type_name(), "Bicgstab<double>");
}

TEST_F(SolverConfig, CriteriaWithoutALimitFailWhenRead)
{
    for (const std::string text : {R"({"type": "cg", "criteria": {"relative_residual": 1e-9}})",
                                   R"({"type": "gmres"})"}) {
        try {
            larch::config::parse_solver_config<double>(text, exec);
            ADD_FAILURE() << "no exception for " << text;
        } catch (const larch::BadInput& error) {
            EXPECT_NE(std::string{error.what()}.find("/criteria: needs \"max_iterations\" or \"time_limit\""),
                      std::string::npos)
                << error.what();
        }
    }
}

TEST_F(SolverConfig, OverflowingNumbersAndDuplicateKeysNameTheirPath)
{
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "relative_residual": 1e400}})",
                 "/criteria/relative_residual: malformed JSON: [json.exception.out_of_range.406] number overflow");
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 5, "max_iterations": 6}})",
                 "/criteria/max_iterations: duplicate key \"max_iterations\"");
    expect_error(R"({"type": "cg", "type": "cg", "criteria": {"max_iterations": 5}})", "/type: duplicate key");
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 18446744073709551616}})",
                 "/criteria/max_iterations: expected a non-negative integer");
    // the largest count would mean no limit
    expect_error(R"({"type": "cg", "criteria": {"max_iterations": 18446744073709551615}})",
                 "/criteria/max_iterations: expected an integer in [0, 18446744073709551614]");
    // checked when read, not at generate
    EXPECT_THROW(larch::config::parse_solver_config<double>(
                     R"({"type": "cg", "criteria": {"max_iterations": 5},
                         "preconditioner": {"type": "block_jacobi", "max_block_size": 0}})",
                     exec),
                 larch::BadInput);
}

// The same parser for a program that completes a description itself before passing it on.
TEST(ParseJson, RejectsWhatTheSolverConfigurationsReject)
{
    EXPECT_EQ(larch::config::parse_json(R"({"type": "cg", "criteria": {"max_iterations": 5}})")["type"], "cg");
    for (const auto& [text, fragment] :
         std::vector<std::pair<std::string, std::string>>{{R"({"type": "cg", "type": "gmres"})", "/type: duplicate key"},
                                                          {R"({"criteria": {"tolerance": 1e999}})",
                                                           "/criteria/tolerance: malformed JSON"},
                                                          {R"({"type": )", "malformed JSON"}}) {
        try {
            larch::config::parse_json(text);
            ADD_FAILURE() << "no exception for " << text;
        } catch (const larch::BadInput& error) {
            EXPECT_NE(std::string{error.what()}.find(fragment), std::string::npos) << error.what();
        }
    }
}

// The parser behind the solver configurations, called with its own error as the benchmark driver calls it.
TEST(StrictJsonParser, NamesTheArrayIndicesAndKeysOnThePathOfAnError)
{
    const auto message_for = [](const std::string& text) {
        try {
            larch::config::detail::parse_rejecting_duplicate_keys(
                text, [](const std::string& path, const std::string& problem) {
                    throw std::runtime_error(path + ": " + problem);
                });
        } catch (const std::runtime_error& error) {
            return std::string{error.what()};
        }
        return std::string{"no exception"};
    };

    EXPECT_EQ(message_for(R"({"cases": [{"n": 1}, {"matrix": {"n": 4, "n": 8}}]})"),
              "/cases/1/matrix/n: duplicate key \"n\" (each field may appear once)");
    EXPECT_EQ(message_for(R"({"cases": [[1, {"a": 2}], [3, 1e400]]})").rfind("/cases/1/1: malformed JSON", 0), 0u);
    EXPECT_EQ(message_for(R"({"n": 1, "n": 2})").rfind("/n: duplicate key", 0), 0u);
    // the same key in sibling objects is no duplicate
    EXPECT_EQ(message_for(R"({"cases": [{"n": 1}, {"n": 2}], "n": 3})"), "no exception");
}

TEST_F(SolverConfig, MessagesCarryOneLocationRelativeToTheSourceTree)
{
    const std::string path = ::testing::TempDir() + "larch_solver_config_bad.json";
    std::ofstream{path} << R"({"type": "cg", "criteria": {"max_iterations": -1}})";
    try {
        larch::config::read_solver_config<double>(path, exec);
        FAIL() << "no exception";
    } catch (const larch::BadInput& error) {
        const std::string message = error.what();
        // The strict JSON reader shared by the solver configs raises it.
        EXPECT_EQ(message.rfind("core/config/json_reader.hpp:", 0), 0u) << message;
        EXPECT_EQ(message.find(".cpp:", message.find(".cpp:") + 1), std::string::npos) << message;
        EXPECT_NE(message.find(path + ": solver config: /criteria/max_iterations"), std::string::npos) << message;
    }
}

TEST_F(SolverConfig, GeneratesWithLargerJacobiBlocks)
{
    auto factory = larch::config::parse_solver_config<double>(
        R"({"type": "cg", "criteria": {"max_iterations": 5}, "preconditioner": {"type": "block_jacobi", "max_block_size": 8}})",
        exec);
    EXPECT_NO_THROW(factory->generate(a));
}

}  // namespace
