// Solvers from JSON: a solver, its stopping criteria and its preconditioner described in a JSON document
// (nlohmann-json) and built into a solver factory, with errors that name the offending field.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "larch/base/executor.hpp"
#include "larch/solver/iterative_solver.hpp"

namespace larch {
namespace config {

/**
 * Builds the factory a JSON solver description asks for, on `exec`. Example:
 *
 *     {"type": "idr", "subspace_dim": 4, "seed": 42,
 *      "criteria": {"max_iterations": 50000, "relative_residual": 1e-9},
 *      "preconditioner": {"type": "block_jacobi", "max_block_size": 1}}
 *
 * Fields (all but "type" optional):
 * - "type": "cg" | "bicgstab" | "idr" | "gmres"
 * - "criteria": {"max_iterations": integer, "relative_residual": number, "initial_residual": number,
 *   "absolute_residual": number, "time_limit": seconds, "divergence": factor >= 1 or
 *   {"factor": number >= 1, default 1e5, "iterations": integer >= 1, default 200} (stop::divergence),
 *   "stagnation": {"window": integer >= 1, "relative_decrease": number in [0, 1), default 1e-3}
 *   (stop::stagnation)}; a solve needs max_iterations or time_limit (checked when the description is read)
 * - "preconditioner": {"type": "none"} or {"type": "block_jacobi", "max_block_size": integer >= 1,
 *   "algorithm": "gauss_jordan" | "gauss_huard" | "gauss_huard_transposed", "storage_precision": "working" |
 *   "adaptive", "accuracy": number in (0, 1] (with "storage_precision": "adaptive" only, the one that reads
 *   it), "on_singular_block": "fallback" | "throw", "extraction": "cached" | "shared", "row_matching":
 *   "automatic" | "none" | "maximum_product"}, each field but "type" optional with
 *   preconditioner::BlockJacobi's default
 * - "max_residual_replacements": integer (restarts from the true residual; default 5)
 * - "monitor": true or {"every": integer >= 1}: progress on standard output every k iterations (log::Stream)
 * - idr only: "subspace_dim" (integer >= 1, default 4), "seed" (integer < 2^32, default 42); idr and
 *   bicgstab: "kappa" (number in [0, 1], default 0.7: the omega safeguard, 0 = off); gmres only: "restart" (integer >= 1, default 30); cg,
 *   bicgstab, idr and gmres: "check_interval" (integer >= 1, default 8: iterations between the host's reads
 *   of the solver's state)
 *
 * @throws BadInput naming the field's JSON path (e.g. "/criteria/relative_residual") for an unknown field,
 *         a value of the wrong type or range, a missing "type", an unknown solver or preconditioner type,
 *         or criteria without an iteration or time limit; from JSON text also for a key that appears twice
 *         in one object and a number that overflows a double (e.g. 1e400).
 */
template <typename T>
std::unique_ptr<solver::SolverFactory<T>> create_solver_factory(const nlohmann::json& description,
                                                                std::shared_ptr<const Executor> exec);

/**
 * `text` parsed as JSON as every configuration reader of larch parses it: BadInput naming the JSON path
 * for malformed JSON, for a number that overflows a double (e.g. 1e400) and for a key that appears twice
 * in one object (nlohmann::json::parse keeps the last). For programs that complete a description before
 * passing it to create_solver_factory.
 */
nlohmann::json parse_json(const std::string& text);

/// As above from JSON text; malformed JSON throws BadInput with the parser's message.
template <typename T>
std::unique_ptr<solver::SolverFactory<T>> parse_solver_config(const std::string& json_text,
                                                              std::shared_ptr<const Executor> exec);

/// As above from a JSON file; a file that cannot be opened, or a directory, throws BadInput naming the path.
template <typename T>
std::unique_ptr<solver::SolverFactory<T>> read_solver_config(const std::string& path,
                                                             std::shared_ptr<const Executor> exec);

}  // namespace config
}  // namespace larch
