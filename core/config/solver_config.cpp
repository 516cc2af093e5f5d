// Builds solver factories from JSON descriptions; every field is checked by name, type and range, and an
// error names its JSON path.
#include "larch/config/solver_config.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/components/instantiation.hpp"
#include "core/config/block_jacobi_choices.hpp"
#include "core/config/json_reader.hpp"
#include "larch/log/stream.hpp"
#include "larch/preconditioner/block_jacobi.hpp"
#include "larch/solver/bicgstab.hpp"
#include "larch/solver/cg.hpp"
#include "larch/solver/gmres.hpp"
#include "larch/solver/idr.hpp"

namespace larch {
namespace config {
namespace {

using json = nlohmann::json;

using detail::fail;
using detail::describe_value;
using detail::ObjectReader;

constexpr double infinity = std::numeric_limits<double>::infinity();

std::vector<stop::Criterion> read_criteria(const ObjectReader& parent)
{
    std::vector<stop::Criterion> criteria;
    if (!parent.has("criteria")) {
        return criteria;
    }
    ObjectReader reader{parent.at("criteria"), parent.field_path("criteria"),
                        {"max_iterations", "relative_residual", "initial_residual", "absolute_residual",
                         "time_limit", "divergence", "stagnation"}};
    if (reader.has("max_iterations")) {
        // the largest count would mean no limit (stop::max_iterations)
        criteria.push_back(stop::max_iterations(
            reader.get_count("max_iterations", 0, std::numeric_limits<size_type>::max() - 1)));
    }
    // tolerances must be finite (stop:: rejects inf, here with the field's path); a time limit may be inf
    constexpr double largest = std::numeric_limits<double>::max();
    if (reader.has("relative_residual")) {
        criteria.push_back(stop::relative_residual(reader.get_number("relative_residual", 0, largest)));
    }
    if (reader.has("initial_residual")) {
        criteria.push_back(stop::initial_residual(reader.get_number("initial_residual", 0, largest)));
    }
    if (reader.has("absolute_residual")) {
        criteria.push_back(stop::absolute_residual(reader.get_number("absolute_residual", 0, largest)));
    }
    if (reader.has("time_limit")) {
        criteria.push_back(stop::time_limit(reader.get_number("time_limit", 0, infinity)));
    }
    if (reader.has("divergence")) {
        const auto& value = reader.at("divergence");
        if (value.is_number()) {
            criteria.push_back(stop::divergence(reader.get_number("divergence", 1, largest)));
        } else if (!value.is_object()) {
            fail(reader.field_path("divergence"),
                 "expected a factor (a number >= 1) or {\"factor\": f, \"iterations\": k}, got " +
                     describe_value(value));
        } else {
            ObjectReader divergence{reader.at("divergence"), reader.field_path("divergence"),
                                    {"factor", "iterations"}};
            const double factor = divergence.has("factor") ? divergence.get_number("factor", 1, largest) : 1e5;
            criteria.push_back(divergence.has("iterations")
                                   ? stop::divergence(factor, divergence.get_count("iterations", 1))
                                   : stop::divergence(factor));
        }
    }
    if (reader.has("stagnation")) {
        ObjectReader stagnation{reader.at("stagnation"), reader.field_path("stagnation"),
                                {"window", "relative_decrease"}};
        if (!stagnation.has("window")) {
            fail(stagnation.field_path("window"), "missing; the number of iterations without progress that stops");
        }
        const auto window = stagnation.get_count("window", 1);
        // relative_decrease must leave a positive fraction of the residual: 1 is out
        criteria.push_back(stagnation.has("relative_decrease")
                               ? stop::stagnation(window, stagnation.get_number("relative_decrease", 0, 1,
                                                                                ObjectReader::UpperEnd::open))
                               : stop::stagnation(window));
    }
    return criteria;
}

template <typename T, typename Parameters>
Parameters read_common(const ObjectReader& reader, Parameters parameters)
{
    parameters.criteria = read_criteria(reader);
    if (reader.has("monitor")) {
        // true, or {"every": k}: progress lines on standard output every k iterations (log::Stream)
        const auto& monitor = reader.at("monitor");
        if (monitor.is_boolean()) {
            if (monitor.get<bool>()) {
                parameters.with_logger(log::Stream::create(std::cout, 1));
            }
        } else if (!monitor.is_object()) {
            fail(reader.field_path("monitor"), "expected true, false or {\"every\": k}, got " + describe_value(monitor));
        } else {
            ObjectReader every{monitor, reader.field_path("monitor"), {"every"}};
            parameters.with_logger(log::Stream::create(std::cout, every.has("every") ? every.get_count("every", 1) : 1));
        }
    }
    if (reader.has("max_residual_replacements")) {
        parameters.max_residual_replacements = reader.get_count("max_residual_replacements");
    }
    if (reader.has("preconditioner")) {
        const auto path = reader.field_path("preconditioner");
        const auto& description = reader.at("preconditioner");
        if (description.is_object() && description.value("type", json{}) == "none") {
            ObjectReader{description, path, {"type"}};
            return parameters;
        }
        ObjectReader preconditioner{description, path,
                                    {"type", "max_block_size", "algorithm", "storage_precision", "accuracy",
                                     "on_singular_block", "extraction", "row_matching"}};
        if (!preconditioner.has("type")) {
            fail(path, "missing field \"type\" (block_jacobi or none)");
        }
        const auto type = preconditioner.get_string("type");
        if (type != "block_jacobi") {
            fail(preconditioner.field_path("type"), "unknown preconditioner \"" + type +
                                                        "\"; valid types are block_jacobi, none");
        }
        auto jacobi = preconditioner::BlockJacobi<T>::build();
        if (preconditioner.has("max_block_size")) {
            jacobi.with_max_block_size(preconditioner.get_count("max_block_size", 1));
        }
        using preconditioner::BlockJacobiAlgorithm;
        using preconditioner::BlockJacobiStorage;
        using preconditioner::SingularBlockPolicy;
        if (preconditioner.has("algorithm")) {
            jacobi.with_algorithm(preconditioner.get_choice(
                "algorithm", std::vector<std::pair<std::string, BlockJacobiAlgorithm>>{
                                 {"gauss_jordan", BlockJacobiAlgorithm::gauss_jordan},
                                 {"gauss_huard", BlockJacobiAlgorithm::gauss_huard},
                                 {"gauss_huard_transposed", BlockJacobiAlgorithm::gauss_huard_transposed}}));
        }
        if (preconditioner.has("storage_precision")) {
            jacobi.with_storage_precision(preconditioner.get_choice(
                "storage_precision", std::vector<std::pair<std::string, BlockJacobiStorage>>{
                                         {"working", BlockJacobiStorage::working},
                                         {"adaptive", BlockJacobiStorage::adaptive}}));
        }
        if (preconditioner.has("accuracy")) {
            jacobi.with_accuracy(preconditioner.get_positive_number("accuracy", 1.0));
            // only adaptive storage reads it: with working storage it would be ignored without a word
            if (jacobi.storage_precision != BlockJacobiStorage::adaptive) {
                fail(preconditioner.field_path("accuracy"),
                     "only \"storage_precision\": \"adaptive\" uses an accuracy (it bounds u * cond of the "
                     "blocks stored in a lower precision)");
            }
        }
        if (preconditioner.has("on_singular_block")) {
            jacobi.with_on_singular_block(preconditioner.get_choice(
                "on_singular_block", std::vector<std::pair<std::string, SingularBlockPolicy>>{
                                         {"fallback", SingularBlockPolicy::fallback},
                                         {"throw", SingularBlockPolicy::throw_error}}));
        }
        if (preconditioner.has("extraction")) {
            jacobi.with_extraction(preconditioner.get_choice(
                "extraction", std::vector<std::pair<std::string, preconditioner::BlockJacobiExtraction>>{
                                  {"cached", preconditioner::BlockJacobiExtraction::cached},
                                  {"shared", preconditioner::BlockJacobiExtraction::shared}}));
        }
        if (preconditioner.has("row_matching")) {
            jacobi.with_row_matching(preconditioner.get_choice("row_matching", detail::row_matching_choices()));
        }
        parameters.with_preconditioner(jacobi);
    }
    return parameters;
}

/// The factory of `parameters` on `exec`, once the criteria are known to end every solve: checked when the
/// configuration is read rather than at generate(), since such a configuration is wrong as written.
template <typename Parameters>
auto finish(const Parameters& parameters, const std::shared_ptr<const Executor>& exec)
{
    if (!stop::Criteria{parameters.criteria}.is_bounded()) {
        fail("/criteria", "needs \"max_iterations\" or \"time_limit\" so that a solve always ends");
    }
    return parameters.on(exec);
}

const std::set<std::string> common_fields{"type", "criteria", "preconditioner", "max_residual_replacements",
                                          "monitor"};

std::set<std::string> fields_with(std::initializer_list<std::string> extra)
{
    auto fields = common_fields;
    fields.insert(extra.begin(), extra.end());
    return fields;
}

}  // namespace

template <typename T>
std::unique_ptr<solver::SolverFactory<T>> create_solver_factory(const nlohmann::json& description,
                                                                std::shared_ptr<const Executor> exec)
{
    LARCH_ENSURE(exec, BadInput, "solver config: the executor is null");
    if (!description.is_object()) {
        fail("", "expected an object, got " + describe_value(description));
    }
    if (!description.contains("type")) {
        fail("", "missing field \"type\" (cg, bicgstab, idr or gmres)");
    }
    if (!description.at("type").is_string()) {
        fail("/type", "expected a string, got " + describe_value(description.at("type")));
    }
    const auto type = description.at("type").get<std::string>();
    // Every solver reads the common fields, its own (read_own, in the order given) and check_interval: all
    // four read their executor-resident state every check_interval iterations.
    const auto read_solver = [&](auto parameters, std::initializer_list<std::string> own_fields, auto read_own) {
        auto fields = fields_with(own_fields);
        fields.insert("check_interval");
        ObjectReader reader{description, "", fields};
        auto result = read_common<T>(reader, parameters);
        read_own(reader, result);
        if (reader.has("check_interval")) {
            result.with_check_interval(reader.get_count("check_interval", 1));
        }
        return finish(result, exec);
    };
    // BiCGSTAB's and IDR's omega safeguard
    const auto read_kappa = [](const ObjectReader& reader, auto& parameters) {
        if (reader.has("kappa")) {
            parameters.with_kappa(reader.get_number("kappa", 0, 1));
        }
    };
    if (type == "cg") {
        return read_solver(solver::Cg<T>::build(), {}, [](const ObjectReader&, auto&) {});
    }
    if (type == "bicgstab") {
        return read_solver(solver::Bicgstab<T>::build(), {"kappa"}, read_kappa);
    }
    if (type == "idr") {
        return read_solver(solver::Idr<T>::build(), {"subspace_dim", "seed", "kappa"},
                           [&](const ObjectReader& reader, auto& parameters) {
                               if (reader.has("subspace_dim")) {
                                   parameters.with_subspace_dim(reader.get_count("subspace_dim", 1));
                               }
                               if (reader.has("seed")) {
                                   parameters.with_seed(static_cast<std::uint32_t>(reader.get_count(
                                       "seed", 0, std::numeric_limits<std::uint32_t>::max())));
                               }
                               read_kappa(reader, parameters);
                           });
    }
    if (type == "gmres") {
        return read_solver(solver::Gmres<T>::build(), {"restart"}, [](const ObjectReader& reader, auto& parameters) {
            if (reader.has("restart")) {
                parameters.with_restart(reader.get_count("restart", 1));
            }
        });
    }
    fail("/type", "unknown solver \"" + type + "\"; valid types are cg, bicgstab, idr, gmres");
}

nlohmann::json parse_json(const std::string& text) { return detail::parse_strictly(text); }

template <typename T>
std::unique_ptr<solver::SolverFactory<T>> parse_solver_config(const std::string& json_text,
                                                              std::shared_ptr<const Executor> exec)
{
    return create_solver_factory<T>(detail::parse_strictly(json_text), std::move(exec));
}

template <typename T>
std::unique_ptr<solver::SolverFactory<T>> read_solver_config(const std::string& path,
                                                             std::shared_ptr<const Executor> exec)
{
    // a directory opens as a stream that reads nothing, which the parser would call malformed JSON
    std::error_code ignored;
    LARCH_ENSURE(!std::filesystem::is_directory(path, ignored), BadInput,
                 "solver config: '" + path + "' is a directory, not a JSON file");
    std::ifstream file{path};
    LARCH_ENSURE(file, BadInput, "solver config: cannot open '" + path + "'");
    std::stringstream text;
    text << file.rdbuf();
    try {
        return parse_solver_config<T>(text.str(), std::move(exec));
    } catch (BadInput& error) {
        error.add_context(path + ": ");
        throw;
    }
}

#define LARCH_INSTANTIATE_SOLVER_CONFIG(T)                                                                \
    template std::unique_ptr<solver::SolverFactory<T>> create_solver_factory<T>(const nlohmann::json&,     \
                                                                                std::shared_ptr<const Executor>); \
    template std::unique_ptr<solver::SolverFactory<T>> parse_solver_config<T>(const std::string&,          \
                                                                              std::shared_ptr<const Executor>); \
    template std::unique_ptr<solver::SolverFactory<T>> read_solver_config<T>(const std::string&,           \
                                                                             std::shared_ptr<const Executor>)
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_SOLVER_CONFIG);

}  // namespace config
}  // namespace larch
