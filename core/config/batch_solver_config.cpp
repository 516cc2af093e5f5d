// Builds batched solver factories from JSON descriptions with the strict reader of the solver configs.
#include "larch/config/batch_solver_config.hpp"

#include <limits>
#include <vector>

#include "core/components/instantiation.hpp"
#include "core/config/block_jacobi_choices.hpp"
#include "core/config/json_reader.hpp"
#include "larch/batch/solver/bicgstab.hpp"
#include "larch/batch/solver/cg.hpp"
#include "larch/batch/solver/gmres.hpp"

namespace larch {
namespace config {
namespace {

using detail::describe_value;
using detail::fail;
using detail::json;
using detail::ObjectReader;

/// The fields every batched solver reads into its parameters.
template <typename Parameters>
void read_common(const ObjectReader& reader, Parameters& parameters)
{
    if (reader.has("criteria")) {
        ObjectReader criteria{reader.at("criteria"), reader.field_path("criteria"),
                              {"max_iterations", "relative_residual", "absolute_residual"}};
        if (criteria.has("max_iterations")) {
            parameters.with_max_iterations(criteria.get_count("max_iterations", 1, std::numeric_limits<int>::max() - 1));
        }
        if (criteria.has("relative_residual") && criteria.has("absolute_residual")) {
            fail(criteria.field_path("absolute_residual"),
                 "give either relative_residual or absolute_residual, not both");
        }
        for (const auto* key : {"relative_residual", "absolute_residual"}) {
            if (!criteria.has(key)) {
                continue;
            }
            parameters.with_tolerance_type(std::string{key} == "relative_residual"
                                               ? batch::ToleranceType::relative
                                               : batch::ToleranceType::absolute);
            const auto& value = criteria.at(key);
            constexpr double largest = std::numeric_limits<double>::max();
            if (!value.is_array()) {
                parameters.with_tolerance(criteria.get_positive_number(key, largest));
                continue;
            }
            // An empty list would leave item_tolerances empty, which the solver reads as "`tolerance` for
            // every item": the default would silently replace the per-item tolerances asked for.
            if (value.empty()) {
                fail(criteria.field_path(key), "an empty list gives no item a tolerance; give one number > 0 "
                                               "per item, or a single number for all");
            }
            std::vector<double> tolerances;
            for (size_type item = 0; item < value.size(); ++item) {
                const auto path = criteria.field_path(key) + "/" + std::to_string(item);
                const auto& entry = value[item];
                if (!entry.is_number() || !(entry.template get<double>() > 0 && entry.template get<double>() <= largest)) {
                    fail(path, "expected a finite number > 0, got " + describe_value(entry));
                }
                tolerances.push_back(entry.template get<double>());
            }
            parameters.with_item_tolerances(std::move(tolerances));
        }
    }
    if (reader.has("preconditioner")) {
        ObjectReader preconditioner{reader.at("preconditioner"), reader.field_path("preconditioner"),
                                    {"type", "max_block_size", "row_matching"}};
        if (!preconditioner.has("type")) {
            fail(reader.field_path("preconditioner"), "missing field \"type\" (none, jacobi or block_jacobi)");
        }
        const auto type = preconditioner.get_string("type");
        if (type != "none" && type != "jacobi" && type != "block_jacobi") {
            fail(preconditioner.field_path("type"),
                 "unknown batched preconditioner \"" + type + "\"; valid types are none, jacobi, block_jacobi");
        }
        parameters.with_preconditioner(batch::item_preconditioner_from_string(type));
        if (preconditioner.has("max_block_size")) {
            if (type != "block_jacobi") {
                fail(preconditioner.field_path("max_block_size"), "only block_jacobi takes a block size");
            }
            parameters.with_max_block_size(preconditioner.get_count("max_block_size", 1, 32));
        }
        if (preconditioner.has("row_matching")) {
            if (type != "block_jacobi") {
                fail(preconditioner.field_path("row_matching"), "only block_jacobi matches rows");
            }
            parameters.with_block_row_matching(
                preconditioner.get_choice("row_matching", detail::row_matching_choices()));
        }
    }
    if (reader.has("max_residual_replacements")) {
        parameters.with_max_residual_replacements(reader.get_count("max_residual_replacements", 0, 1000));
    }
}

}  // namespace

template <typename T>
std::unique_ptr<batch::BatchSolverFactoryBase<T>> create_batch_solver_factory(
    const nlohmann::json& description, std::shared_ptr<const Executor> exec)
{
    if (!description.is_object()) {
        fail("", "expected an object, got " + describe_value(description));
    }
    if (!description.contains("type")) {
        fail("", "missing field \"type\" (cg, bicgstab or gmres)");
    }
    if (!description.at("type").is_string()) {
        fail("/type", "expected a string, got " + describe_value(description.at("type")));
    }
    const auto type = description.at("type").get<std::string>();
    const std::vector<std::string> common{"type", "criteria", "preconditioner", "max_residual_replacements"};
    if (type == "cg") {
        ObjectReader reader{description, "", {common.begin(), common.end()}};
        auto parameters = batch::Cg<T>::build();
        read_common(reader, parameters);
        return parameters.on(std::move(exec));
    }
    if (type == "bicgstab") {
        std::set<std::string> allowed{common.begin(), common.end()};
        allowed.insert("kappa");
        ObjectReader reader{description, "", allowed};
        auto parameters = batch::Bicgstab<T>::build();
        read_common(reader, parameters);
        if (reader.has("kappa")) {
            parameters.with_kappa(reader.get_number("kappa", 0, 1));
        }
        return parameters.on(std::move(exec));
    }
    if (type == "gmres") {
        std::set<std::string> allowed{common.begin(), common.end()};
        allowed.insert("restart");
        ObjectReader reader{description, "", allowed};
        auto parameters = batch::Gmres<T>::build();
        read_common(reader, parameters);
        if (reader.has("restart")) {
            parameters.with_krylov_dim(reader.get_count("restart", 1, 1000));
        }
        return parameters.on(std::move(exec));
    }
    fail("/type", "unknown batched solver \"" + type + "\"; valid types are cg, bicgstab, gmres");
}

template <typename T>
std::unique_ptr<batch::BatchSolverFactoryBase<T>> parse_batch_solver_config(
    const std::string& json_text, std::shared_ptr<const Executor> exec)
{
    return create_batch_solver_factory<T>(detail::parse_strictly(json_text), std::move(exec));
}

#define LARCH_INSTANTIATE_BATCH_SOLVER_CONFIG(T)                                                     \
    template std::unique_ptr<batch::BatchSolverFactoryBase<T>> create_batch_solver_factory<T>(       \
        const nlohmann::json&, std::shared_ptr<const Executor>);                                     \
    template std::unique_ptr<batch::BatchSolverFactoryBase<T>> parse_batch_solver_config<T>(         \
        const std::string&, std::shared_ptr<const Executor>)
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BATCH_SOLVER_CONFIG);

}  // namespace config
}  // namespace larch
