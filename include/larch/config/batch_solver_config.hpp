// Batched solvers from JSON: the description of a batch::Cg, batch::Bicgstab or batch::Gmres, read with the
// same strict rules (and error paths) as the single-system solver descriptions of solver_config.hpp.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "larch/base/executor.hpp"
#include "larch/batch/solver/batch_iterative_solver.hpp"

namespace larch {
namespace config {

/**
 * Builds the batched solver factory a JSON description asks for, on `exec`. Example:
 *
 *     {"type": "bicgstab",
 *      "criteria": {"max_iterations": 500, "relative_residual": 1e-10},
 *      "preconditioner": {"type": "jacobi"}}
 *
 * Fields (all but "type" optional; defaults as batch_common_parameters):
 * - "type": "cg" | "bicgstab" | "gmres"
 * - "criteria": {"max_iterations": integer >= 1, and at most one of "relative_residual" or
 *   "absolute_residual": a number > 0 for every item, or a non-empty array of them, one per item}
 * - "preconditioner": {"type": "none" | "jacobi"} or {"type": "block_jacobi", "max_block_size": 1..32
 *   (default 32), "row_matching": "automatic" | "none" | "maximum_product" (default automatic: the items
 *   with a zero or missing diagonal entry)}
 * - "max_residual_replacements": integer 0..1000 (restarts from the true residual; default 5)
 * - gmres only: "restart": integer in [1, 1000] (default 30)
 * - bicgstab only: "kappa": number in [0, 1] (default 0.7: the omega safeguard of the single-system
 *   BiCGSTAB; 0 = off)
 *
 * @throws BadInput naming the field's JSON path for an unknown field, a value of the wrong type or range,
 *         a missing "type" or an unknown solver or preconditioner type.
 */
template <typename T>
std::unique_ptr<batch::BatchSolverFactoryBase<T>> create_batch_solver_factory(
    const nlohmann::json& description, std::shared_ptr<const Executor> exec);

/// As above from JSON text; malformed JSON or a duplicate key throws BadInput.
template <typename T>
std::unique_ptr<batch::BatchSolverFactoryBase<T>> parse_batch_solver_config(
    const std::string& json_text, std::shared_ptr<const Executor> exec);

}  // namespace config
}  // namespace larch
