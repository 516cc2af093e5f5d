// BatchIterativeSolver: validation at generate, and apply = one solve kernel over the batch followed by one
// copy of the per-item results to the host.
#include "larch/batch/solver/batch_iterative_solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/base/number_text.hpp"
#include "core/batch/batch_solver_kernels.hpp"
#include "core/batch/solver/item_block_jacobi.hpp"
#include "core/components/instantiation.hpp"

namespace larch {
namespace batch {

std::string to_string(ToleranceType type)
{
    return type == ToleranceType::relative ? "relative" : "absolute";
}

ToleranceType tolerance_type_from_string(const std::string& name)
{
    if (name == "relative") {
        return ToleranceType::relative;
    }
    LARCH_ENSURE(name == "absolute", BadInput,
                 "unknown tolerance type '" + name + "' (expected relative or absolute)");
    return ToleranceType::absolute;
}

std::string to_string(ItemPreconditioner preconditioner)
{
    switch (preconditioner) {
    case ItemPreconditioner::none: return "none";
    case ItemPreconditioner::jacobi: return "jacobi";
    case ItemPreconditioner::block_jacobi: return "block_jacobi";
    }
    return "unknown";
}

ItemPreconditioner item_preconditioner_from_string(const std::string& name)
{
    for (const auto type :
         {ItemPreconditioner::none, ItemPreconditioner::jacobi, ItemPreconditioner::block_jacobi}) {
        if (name == to_string(type)) {
            return type;
        }
    }
    LARCH_THROW(BadInput,
                "unknown batched preconditioner '" + name + "' (expected none, jacobi or block_jacobi)");
}

namespace {

bool valid_tolerance(double tolerance) { return std::isfinite(tolerance) && tolerance > 0; }

/// Calls `run(matrix)` with the system matrix as its concrete type; NotSupported for other types.
template <typename T, typename Run>
void with_matrix_type(const BatchLinOp<T>& matrix, const std::string& context, Run&& run)
{
    if (const auto csr = dynamic_cast<const Csr<T, std::int32_t>*>(&matrix)) {
        run(*csr);
    } else if (const auto coo = dynamic_cast<const Coo<T, std::int32_t>*>(&matrix)) {
        run(*coo);
    } else if (const auto ell = dynamic_cast<const Ell<T, std::int32_t>*>(&matrix)) {
        run(*ell);
    } else {
        LARCH_THROW(NotSupported, context + ": the system matrix is a " + matrix.get_type_name() +
                                      "; the batched solvers take batch::Csr, batch::Coo or batch::Ell");
    }
}

/// The power of two s_i of every item (core/base/right_hand_side_scale.hpp), on the host.
template <typename T>
std::vector<T> right_hand_side_scales(const std::shared_ptr<const Executor>& exec, const Vector<T>& b)
{
    array<T> scales{exec, b.get_num_items()};
    LARCH_RUN_KERNEL(exec, batch_solver::right_hand_side_scales, b, scales.get_data());
    return scales.copy_to_host();
}

/**
 * Marks non_finite, with an infinite true residual, every item solved scaled down (s_i < 1: b_i above the
 * window) whose x_i overflowed when taken back to its own scale: its solution exceeds the largest T
 * (b_i = 1.7e308 for A_i = tridiag(-1, 2, -1), x_i up to 4.5 b_i), which the scaled solve met and reported
 * converged. Copies only those items of x to the host.
 */
template <typename T>
void flag_overflowed_items(const Vector<T>& x, const std::vector<T>& scales, std::vector<ItemStatus>& statuses,
                           std::vector<double>& residual_norms)
{
    for (size_type item = 0; item < scales.size(); ++item) {
        if (scales[item] >= T{1}) {
            continue;
        }
        const auto values = x.copy_item_to_host(item);
        if (!std::all_of(values.begin(), values.end(), [](T value) { return std::isfinite(value); })) {
            statuses[item] = ItemStatus::non_finite;
            residual_norms[item] = std::numeric_limits<double>::infinity();
        }
    }
}

}  // namespace

template <typename T>
BatchIterativeSolver<T>::BatchIterativeSolver(std::shared_ptr<const Executor> exec,
                                              std::shared_ptr<const BatchLinOp<T>> system_matrix,
                                              const batch_common_parameters& parameters,
                                              KrylovMethod method, size_type krylov_dim, double kappa,
                                              const std::string& name)
    : BatchLinOp<T>(std::move(exec)), name_{name}, system_matrix_{std::move(system_matrix)},
      parameters_{parameters}, method_{method}, krylov_dim_{krylov_dim}, kappa_{kappa}, loggers_{parameters.loggers}
{
    const auto context = name_ + "::generate";
    with_matrix_type(*system_matrix_, context, [](const auto&) {});
    LARCH_ENSURE(this->get_executor()->memory_accessible(*system_matrix_->get_executor()), NotSupported,
                 context + ": the system matrix lives on " + system_matrix_->get_executor()->get_name() +
                     " but the solver on " + this->get_executor()->get_name() +
                     "; copy it there first (clone_to)");
    const auto num_items = system_matrix_->get_num_items();
    for (size_type item = 0; item < num_items; ++item) {
        const auto size = system_matrix_->get_item_size(item);
        LARCH_ENSURE(size.rows == size.cols, DimensionMismatch,
                     context + ": item " + std::to_string(item) + " of the system matrix is " +
                         to_string(size) + ", not square");
    }
    LARCH_ENSURE(parameters_.max_iterations >= 1 &&
                     parameters_.max_iterations < static_cast<size_type>(std::numeric_limits<int>::max()),
                 BadInput,
                 context + ": max_iterations is " + std::to_string(parameters_.max_iterations) +
                     " (expected at least 1 and below 2^31 - 1)");
    LARCH_ENSURE(parameters_.max_residual_replacements <= 1000, BadInput,
                 context + ": max_residual_replacements is " +
                     std::to_string(parameters_.max_residual_replacements) + " (expected at most 1000)");
    if (parameters_.item_tolerances.empty()) {
        LARCH_ENSURE(valid_tolerance(parameters_.tolerance), BadInput,
                     context + ": the tolerance is " + ::larch::detail::number_text(parameters_.tolerance) +
                         " (expected a finite value > 0)");
    } else {
        LARCH_ENSURE(parameters_.item_tolerances.size() == num_items, DimensionMismatch,
                     context + ": " + std::to_string(parameters_.item_tolerances.size()) +
                         " item tolerances for a batch of " + std::to_string(num_items) + " items");
        for (size_type item = 0; item < num_items; ++item) {
            LARCH_ENSURE(valid_tolerance(parameters_.item_tolerances[item]), BadInput,
                         context + ": the tolerance of item " + std::to_string(item) + " is " +
                             ::larch::detail::number_text(parameters_.item_tolerances[item]) +
                             " (expected a finite value > 0)");
        }
    }
    for (const auto& logger : loggers_) {
        LARCH_ENSURE(logger, BadInput, context + ": a logger is null");
    }
    if (parameters_.preconditioner == ItemPreconditioner::block_jacobi) {
        LARCH_ENSURE(parameters_.max_block_size >= 1 && parameters_.max_block_size <= 32, BadInput,
                     context + ": max_block_size is " + std::to_string(parameters_.max_block_size) +
                         " (expected 1..32)");
        // As the single-system BlockJacobi: 1 x 1 blocks of P A would be scalar Jacobi of a permuted matrix.
        LARCH_ENSURE(parameters_.max_block_size > 1 ||
                         parameters_.block_row_matching != ::larch::preconditioner::BlockJacobiRowMatching::maximum_product,
                     BadInput, context + ": block_row_matching maximum_product needs blocks (max_block_size > 1)");
        with_matrix_type(*system_matrix_, context, [&](const auto& matrix) {
            block_jacobi_ = std::make_shared<const ItemBlockJacobi<T>>(generate_item_block_jacobi(
                this->get_executor(), matrix.to_data(), parameters_.max_block_size,
                parameters_.block_row_matching));
        });
    }
}

template <typename T>
size_type BatchIterativeSolver<T>::get_num_blocks() const noexcept
{
    return block_jacobi_ ? block_jacobi_->num_blocks : 0;
}

template <typename T>
size_type BatchIterativeSolver<T>::get_num_block_values() const noexcept
{
    return block_jacobi_ ? block_jacobi_->inverses.get_size() : 0;
}

template <typename T>
size_type BatchIterativeSolver<T>::get_num_split_blocks() const noexcept
{
    return block_jacobi_ ? block_jacobi_->num_split_blocks : 0;
}

template <typename T>
size_type BatchIterativeSolver<T>::get_num_row_matched_items() const noexcept
{
    return block_jacobi_ ? block_jacobi_->num_matched_items : 0;
}

template <typename T>
size_type BatchIterativeSolver<T>::get_num_singular_blocks() const noexcept
{
    return block_jacobi_ ? block_jacobi_->num_singular_blocks : 0;
}

template <typename T>
BatchSolveResult BatchIterativeSolver<T>::get_result() const
{
    std::lock_guard<std::mutex> lock{result_mutex_};
    return result_;
}

template <typename T>
void BatchIterativeSolver<T>::add_logger(std::shared_ptr<BatchLogger> logger)
{
    LARCH_ENSURE(logger, BadInput, name_ + "::add_logger: the logger is null");
    loggers_.push_back(std::move(logger));
}

template <typename T>
void BatchIterativeSolver<T>::apply_impl(const Vector<T>& b, Vector<T>& x) const
{
    const auto context = name_ + "::apply";
    LARCH_ENSURE(b.get_num_cols() == 1, NotSupported,
                 context + ": b has " + std::to_string(b.get_num_cols()) +
                     " columns; the batched solvers take one right-hand side per item");
    const auto& exec = this->get_executor();
    const auto num_items = get_num_items();
    const auto max_iterations = static_cast<int>(parameters_.max_iterations);

    std::vector<T> tolerances(num_items, static_cast<T>(parameters_.tolerance));
    for (size_type item = 0; item < parameters_.item_tolerances.size(); ++item) {
        tolerances[item] = static_cast<T>(parameters_.item_tolerances[item]);
    }
    // History rows for the items the loggers ask for, in order of first request.
    std::vector<std::int32_t> slots(num_items, -1);
    std::vector<size_type> tracked;
    for (const auto& logger : loggers_) {
        for (const auto item : logger->get_history_items()) {
            LARCH_ENSURE(item < num_items, BadInput,
                         context + ": a logger asks for the history of item " + std::to_string(item) +
                             " of a batch of " + std::to_string(num_items) + " items");
            if (slots[item] < 0) {
                slots[item] = static_cast<std::int32_t>(tracked.size());
                tracked.push_back(item);
            }
        }
    }
    // Rows for the tracked items only (none: an empty buffer, which the kernels never touch): one row of
    // max_iterations + 1 entries filled and copied on every apply cost a 10-row solve 13 s and 800 MB at a
    // limit of 10^8 iterations, and 23 GB at 10^9, with no logger at all.
    const auto history_length = static_cast<size_type>(max_iterations) + 1;
    const std::vector<T> unset_history(tracked.size() * history_length, std::numeric_limits<T>::quiet_NaN());

    // An item whose b_i is too small or too large for the methods' plain sums of squares is solved as
    // A_i (s_i x_i) = s_i b_i, s_i a power of two; the results are taken back to its scale below.
    const auto scales = right_hand_side_scales(exec, b);
    const bool scaled = std::any_of(scales.begin(), scales.end(), [](T scale) { return scale != T{1}; });
    const bool absolute = parameters_.tolerance_type == ToleranceType::absolute;
    auto scaled_tolerances = tolerances;
    if (scaled && absolute) {
        for (size_type item = 0; item < num_items; ++item) {
            scaled_tolerances[item] *= scales[item];
        }
    }
    array<T> item_tolerances{exec, scaled_tolerances.begin(), scaled_tolerances.end()};
    array<std::int32_t> history_slots{exec, slots.begin(), slots.end()};
    array<T> history{exec, unset_history.begin(), unset_history.end()};
    array<std::int32_t> statuses{exec, num_items};
    array<std::int32_t> iterations{exec, num_items};
    array<T> residual_norms{exec, num_items};
    array<T> thresholds{exec, num_items};
    const SolveOutputs<T> outputs{item_tolerances.get_const_data(), statuses.get_data(),
                                  iterations.get_data(),           residual_norms.get_data(),
                                  thresholds.get_data(),           history_slots.get_const_data(),
                                  history.get_data(),
                                  block_jacobi_ ? block_jacobi_->first_rows.get_const_data() : nullptr,
                                  block_jacobi_ ? block_jacobi_->block_sizes.get_const_data() : nullptr,
                                  block_jacobi_ ? block_jacobi_->inverse_rows.get_const_data() : nullptr,
                                  block_jacobi_ ? block_jacobi_->inverses.get_const_data() : nullptr,
                                  // empty (null) unless an item is matched
                                  block_jacobi_ ? block_jacobi_->gather_rows.get_const_data() : nullptr,
                                  block_jacobi_ ? block_jacobi_->item_matched.get_const_data() : nullptr};
    const SolveSettings settings{method_,
                                 parameters_.preconditioner,
                                 absolute,
                                 max_iterations,
                                 static_cast<int>(parameters_.max_residual_replacements),
                                 static_cast<int>(krylov_dim_),
                                 kappa_};
    // Scaled only now, after every check and allocation that may throw, so that an error leaves x as it was.
    std::unique_ptr<Vector<T>> scaled_b;
    if (scaled) {
        const array<T> factors{exec, scales.begin(), scales.end()};
        scaled_b = b.clone_to(exec);
        LARCH_RUN_KERNEL(exec, batch_solver::multiply_items, factors.get_const_data(), *scaled_b);
        LARCH_RUN_KERNEL(exec, batch_solver::multiply_items, factors.get_const_data(), x);
    }
    with_matrix_type(*system_matrix_, context, [&](const auto& matrix) {
        LARCH_RUN_KERNEL(exec, batch_solver::solve, matrix, settings, scaled ? *scaled_b : b, x, outputs);
    });

    const auto host_statuses = statuses.copy_to_host();
    const auto host_iterations = iterations.copy_to_host();
    auto host_norms = residual_norms.copy_to_host();
    auto host_thresholds = thresholds.copy_to_host();
    auto host_history = history.copy_to_host();
    if (scaled) {
        std::vector<T> inverse_scales(num_items);
        for (size_type item = 0; item < num_items; ++item) {
            inverse_scales[item] = T{1} / scales[item];  // exact: a power of two
            host_norms[item] *= inverse_scales[item];
            // s_i tol_i scaled back is not tol_i where it overflowed or underflowed (tol_i = 1e10 for b_i of
            // 1e-300 gave inf)
            host_thresholds[item] = absolute ? tolerances[item] : host_thresholds[item] * inverse_scales[item];
        }
        for (size_type slot = 0; slot < tracked.size(); ++slot) {
            const auto row = host_history.begin() + static_cast<std::ptrdiff_t>(slot * history_length);
            std::for_each(row, row + static_cast<std::ptrdiff_t>(history_length),
                          [&](T& norm) { norm *= inverse_scales[tracked[slot]]; });
        }
        const array<T> inverse_factors{exec, inverse_scales.begin(), inverse_scales.end()};
        LARCH_RUN_KERNEL(exec, batch_solver::multiply_items, inverse_factors.get_const_data(), x);
    }
    std::vector<ItemStatus> item_statuses(num_items);
    std::vector<size_type> item_iterations(num_items);
    std::vector<double> item_norms(num_items);
    std::vector<double> item_thresholds(num_items);
    for (size_type item = 0; item < num_items; ++item) {
        item_statuses[item] = static_cast<ItemStatus>(host_statuses[item]);
        item_iterations[item] = static_cast<size_type>(host_iterations[item]);
        item_norms[item] = static_cast<double>(host_norms[item]);
        item_thresholds[item] = static_cast<double>(host_thresholds[item]);
    }
    if (scaled) {
        flag_overflowed_items(x, scales, item_statuses, item_norms);
    }
    std::map<size_type, std::vector<double>> histories;
    for (size_type slot = 0; slot < tracked.size(); ++slot) {
        const auto item = tracked[slot];
        const auto begin = host_history.begin() + static_cast<std::ptrdiff_t>(slot * history_length);
        histories[item].assign(begin, begin + static_cast<std::ptrdiff_t>(item_iterations[item] + 1));
    }
    BatchSolveResult result{std::move(item_statuses), std::move(item_iterations), std::move(item_norms),
                            std::move(item_thresholds), std::move(histories)};
    for (const auto& logger : loggers_) {
        logger->on_batch_solve(result);
    }
    std::lock_guard<std::mutex> lock{result_mutex_};
    result_ = std::move(result);
}

#define LARCH_INSTANTIATE_BATCH_ITERATIVE_SOLVER(T) template class BatchIterativeSolver<T>
LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(LARCH_INSTANTIATE_BATCH_ITERATIVE_SOLVER);

}  // namespace batch
}  // namespace larch
