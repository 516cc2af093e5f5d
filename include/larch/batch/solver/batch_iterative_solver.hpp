// The common part of the batched Krylov solvers (batch::Cg, batch::Bicgstab, batch::Gmres): their
// parameters, their factory, and the BatchLinOp that solves A_i x_i = b_i for every item independently.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "larch/base/exception.hpp"
#include "larch/batch/batch_lin_op.hpp"
#include "larch/batch/solver/batch_logger.hpp"
#include "larch/batch/solver/solve_result.hpp"
#include "larch/preconditioner/block_jacobi.hpp"

namespace larch {
namespace batch {

/// What an item's tolerance is compared with: ||r_i|| <= tol_i ||b_i|| (relative) or ||r_i|| <= tol_i.
enum class ToleranceType { relative, absolute };

/// The preconditioner each item gets (generated per item inside the solve, from the item's own matrix).
enum class ItemPreconditioner {
    none,
    jacobi,  ///< scalar Jacobi: M_i = diag(A_i); a zero diagonal entry leaves its row unscaled, one whose
             ///< reciprocal overflows (subnormal) makes the item non_finite
    block_jacobi,  ///< block-Jacobi: the diagonal blocks of A_i from its supervariables (at most
                   ///< max_block_size rows), inverted by batched Gauss-Jordan when the solver is generated;
                   ///< a singular block falls back to scalar Jacobi
};

/// "relative" / "absolute"; "none" / "jacobi" / "block_jacobi". The *_from_string functions throw BadInput listing the names.
std::string to_string(ToleranceType type);
ToleranceType tolerance_type_from_string(const std::string& name);
std::string to_string(ItemPreconditioner preconditioner);
ItemPreconditioner item_preconditioner_from_string(const std::string& name);

/// The parameters every batched solver takes (plain data; see batch_solver_parameters for the builder).
struct batch_common_parameters {
    /// Iterations each item may run (>= 1); an item stops earlier when its own criterion holds.
    size_type max_iterations = 100;
    /// The tolerance of every item (> 0 and finite), unless item_tolerances is given.
    double tolerance = 1e-8;
    /// One tolerance per item (then its size must be the number of items); empty: `tolerance` for all.
    std::vector<double> item_tolerances;
    ToleranceType tolerance_type = ToleranceType::relative;
    ItemPreconditioner preconditioner = ItemPreconditioner::none;
    /// The largest block of block_jacobi (1..32).
    size_type max_block_size = 32;
    /// Which items block_jacobi takes the blocks of P_i A_i for, P_i the maximum product row matching:
    /// automatic (the items with a zero or missing diagonal entry), none, or maximum_product (every item;
    /// needs max_block_size > 1, as for the single-system BlockJacobi).
    ::larch::preconditioner::BlockJacobiRowMatching block_row_matching =
        ::larch::preconditioner::BlockJacobiRowMatching::automatic;
    /// How often an item may restart from its true residual after a breakdown or after its recursive
    /// residual met the tolerance while the true one did not; at most 1000 (BadInput at generate).
    size_type max_residual_replacements = 5;
    std::vector<std::shared_ptr<BatchLogger>> loggers;
};

/// Builder methods shared by the batched solvers' parameter types; `on(exec)` makes the factory.
template <typename Derived, typename Factory>
struct batch_solver_parameters : batch_common_parameters {
    Derived& with_max_iterations(size_type count)
    {
        max_iterations = count;
        return self();
    }
    Derived& with_tolerance(double value)
    {
        tolerance = value;
        return self();
    }
    Derived& with_item_tolerances(std::vector<double> values)
    {
        item_tolerances = std::move(values);
        return self();
    }
    Derived& with_tolerance_type(ToleranceType type)
    {
        tolerance_type = type;
        return self();
    }
    Derived& with_preconditioner(ItemPreconditioner type)
    {
        preconditioner = type;
        return self();
    }
    Derived& with_max_block_size(size_type rows)
    {
        max_block_size = rows;
        return self();
    }
    Derived& with_block_row_matching(::larch::preconditioner::BlockJacobiRowMatching matching)
    {
        block_row_matching = matching;
        return self();
    }
    Derived& with_max_residual_replacements(size_type count)
    {
        max_residual_replacements = count;
        return self();
    }
    Derived& with_logger(std::shared_ptr<BatchLogger> logger)
    {
        loggers.push_back(std::move(logger));
        return self();
    }
    /// The factory with these parameters on `exec` (BadInput for a null executor).
    std::unique_ptr<Factory> on(std::shared_ptr<const Executor> exec) const
    {
        LARCH_ENSURE(exec, BadInput, "on: the executor is null");
        return std::make_unique<Factory>(std::move(exec), static_cast<const Derived&>(*this));
    }

private:
    Derived& self() { return static_cast<Derived&>(*this); }
};

template <typename T>
class BatchIterativeSolver;
template <typename T>
struct ItemBlockJacobi;

/// What every batched solver factory offers, whatever the solver (e.g. a factory read from JSON).
template <typename T>
class BatchSolverFactoryBase {
public:
    virtual ~BatchSolverFactoryBase() = default;
    /// The solver for `system_matrix`, as its common interface; throws as the concrete generate.
    virtual std::unique_ptr<BatchIterativeSolver<T>> generate_solver(
        std::shared_ptr<const BatchLinOp<T>> system_matrix) const = 0;
};

/// The factory of a batched solver: generate(A) validates the parameters against A and returns the solver.
template <typename Solver, typename Parameters>
class BatchSolverFactory : public BatchSolverFactoryBase<typename Solver::value_type> {
public:
    using value_type = typename Solver::value_type;

    BatchSolverFactory(std::shared_ptr<const Executor> exec, Parameters parameters)
        : exec_{std::move(exec)}, parameters_{std::move(parameters)}
    {}

    std::unique_ptr<BatchIterativeSolver<value_type>> generate_solver(
        std::shared_ptr<const BatchLinOp<value_type>> system_matrix) const override
    {
        return generate(std::move(system_matrix));
    }

    /// Throws BadInput (null matrix, bad parameters), DimensionMismatch (a non-square item, a tolerance
    /// list of the wrong length), NotSupported (a matrix type the solvers do not take).
    std::unique_ptr<Solver> generate(std::shared_ptr<const BatchLinOp<value_type>> system_matrix) const
    {
        LARCH_ENSURE(system_matrix, BadInput, "generate: the system matrix is null");
        return std::unique_ptr<Solver>(new Solver(exec_, parameters_, std::move(system_matrix)));
    }

    const Parameters& get_parameters() const noexcept { return parameters_; }
    const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }

private:
    std::shared_ptr<const Executor> exec_;
    Parameters parameters_;
};

/// The Krylov methods behind the batched solvers (what the solve kernels run per item).
enum class KrylovMethod { cg, bicgstab, gmres };

/**
 * Solves A_i x_i = b_i for every item i, each item on its own: x on entry is the initial guess, on return
 * the solution. Each item stops as soon as its own criterion holds, so finished items do no further work;
 * before an item is reported converged its true residual is checked (a false convergence restarts it
 * from the true residual, at most max_residual_replacements times). No item's failure (breakdown, NaN,
 * iteration limit) touches another item. b_i = 0 gives x_i = 0, converged after 0 iterations.
 *
 * Right-hand sides of any finite magnitude: an item whose largest |b_i| lies outside 1e-77..1e77 (double;
 * 2.3e-10..4.3e9 in float), where the methods' sums of squares could underflow or overflow, is solved as
 * A_i (s_i x_i) = s_i b_i with s_i a power of two that brings that entry into [1, 2); residual norms,
 * thresholds and histories are reported in the item's own scale; one whose solution overflows in that scale
 * (|x_i| beyond the largest T) is reported non_finite. Other items run unscaled.
 *
 * apply() runs the whole solve as one kernel (CUDA/HIP: one launch, one thread block per item, no host
 * synchronization between iterations; reference: items one after the other; omp: items in parallel) and
 * then copies the per-item results to the host once: get_result(), and every attached logger. Before it,
 * one pass over b finds the scales above (one small copy to the host); only when an item needs scaling
 * do a scaled copy of b and two passes over x follow, and the items scaled down are copied to the host to
 * check their x_i for overflow.
 * Takes batch::Csr, batch::Coo and batch::Ell with square items; b and x with one column.
 *
 * Thread safety: apply may run from several threads at once (with distinct x); get_result() is the result
 * of the apply that finished last.
 */
template <typename T>
class BatchIterativeSolver : public BatchLinOp<T> {
public:
    using value_type = T;

    size_type get_num_items() const override { return system_matrix_->get_num_items(); }
    const std::vector<dim2>& get_item_sizes() const override { return system_matrix_->get_item_sizes(); }
    std::uint64_t get_item_sizes_id() const override { return system_matrix_->get_item_sizes_id(); }
    std::string get_type_name() const override { return name_; }

    const std::shared_ptr<const BatchLinOp<T>>& get_system_matrix() const noexcept
    {
        return system_matrix_;
    }
    const batch_common_parameters& get_common_parameters() const noexcept { return parameters_; }
    /// The per-item results of the last apply that finished (empty before the first).
    BatchSolveResult get_result() const;
    /// With block_jacobi: how many diagonal blocks all items have; how many blocks of several rows were
    /// singular and split in halves (until the pieces are regular or 1 x 1, as preconditioner::BlockJacobi
    /// does, except that singular means here that Gauss-Jordan met a tiny pivot: preconditioner::BlockJacobi
    /// also splits blocks whose condition number exceeds 1 / (n eps), which this one keeps and applies as
    /// inverted); how many 1 x 1 blocks are singular (a zero, subnormal or non-finite diagonal entry: they fall back
    /// to scalar Jacobi, with 1 where 1 / a_ii is not finite); 0 otherwise.
    size_type get_num_blocks() const noexcept;
    size_type get_num_split_blocks() const noexcept;
    size_type get_num_singular_blocks() const noexcept;
    /// With block_jacobi: the items with a zero or missing diagonal entry, whose blocks are those of P_i A_i
    /// for their maximum product row matching P_i (as preconditioner::BlockJacobi's automatic row matching);
    /// 0 otherwise.
    size_type get_num_row_matched_items() const noexcept;
    /// With block_jacobi: the values of all block inverses (sum of the blocks' orders squared); else 0.
    size_type get_num_block_values() const noexcept;
    /// Attaches a logger; it is told about every later apply.
    void add_logger(std::shared_ptr<BatchLogger> logger);

protected:
    /// Validates the matrix (square items of a supported format) and the parameters; generates the
    /// block-Jacobi blocks of every item (BadInput for a max_block_size outside 1..32). krylov_dim is
    /// GMRES's restart length, kappa BiCGSTAB's omega safeguard (0 for the other methods).
    BatchIterativeSolver(std::shared_ptr<const Executor> exec,
                         std::shared_ptr<const BatchLinOp<T>> system_matrix,
                         const batch_common_parameters& parameters, KrylovMethod method,
                         size_type krylov_dim, double kappa, const std::string& name);

    void apply_impl(const Vector<T>& b, Vector<T>& x) const override;

private:
    std::string name_;
    std::shared_ptr<const BatchLinOp<T>> system_matrix_;
    batch_common_parameters parameters_;
    KrylovMethod method_;
    size_type krylov_dim_;
    double kappa_;
    std::vector<std::shared_ptr<BatchLogger>> loggers_;
    std::shared_ptr<const ItemBlockJacobi<T>> block_jacobi_;
    mutable std::mutex result_mutex_;
    mutable BatchSolveResult result_;
};

}  // namespace batch
}  // namespace larch
