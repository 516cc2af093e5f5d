// CondEstimator: the infinity-norm condition number of every item of a batch::Dense (Anzt et al. 2018,
// "Variable-size batched condition number calculation on GPUs").
#pragma once

#include <cstdint>
#include <memory>

#include "larch/base/array.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/batch/dense.hpp"

namespace larch {
namespace batch {

/// How the condition numbers are computed.
enum class CondAlgorithm {
    fused,    ///< one kernel: row sums, ||A||_inf, Gauss-Jordan inversion, ||A^-1||_inf, product
    composed  ///< four kernels: infinity norms, inversion, infinity norms, product (for comparison)
};

/**
 * cond_inf(A_i) = ||A_i||_inf * ||A_i^-1||_inf for every (square) item, computed exactly (through
 * the inverse, 2n^3 flops per item), not estimated from a factorization. Built by a factory:
 *
 *     auto cond = batch::CondEstimator<double>::build()
 *                     .with_keep_inverse(true)
 *                     .with_algorithm(batch::CondAlgorithm::fused)
 *                     .on(exec)
 *                     ->generate(blocks);
 *     auto numbers = cond->get_condition_numbers().copy_to_host();
 *
 * A singular or numerically singular item (see status.hpp) has condition number +inf and a nonzero
 * get_info() entry; no value is ever NaN. Without keep_inverse the fused kernel does not write the
 * inverse at all. Runs on reference, omp, cuda and hip; items larger than 32 take the GPU's fallback.
 */
template <typename T>
class CondEstimator {
public:
    class Factory;

    /// Parameters of the factory; `build()` returns a default set to refine with `with_...`.
    struct parameters_type {
        bool keep_inverse = false;
        CondAlgorithm algorithm = CondAlgorithm::fused;

        parameters_type& with_keep_inverse(bool value)
        {
            keep_inverse = value;
            return *this;
        }
        parameters_type& with_algorithm(CondAlgorithm value)
        {
            algorithm = value;
            return *this;
        }
        /// The factory generating estimators on `exec`.
        std::unique_ptr<Factory> on(std::shared_ptr<const Executor> exec) const;
    };

    /// Computes condition numbers with fixed parameters on one executor.
    class Factory {
    public:
        Factory(std::shared_ptr<const Executor> exec, parameters_type parameters)
            : exec_{std::move(exec)}, parameters_{parameters}
        {}
        /// Computes the condition numbers of every item of `a` (copied to the factory's executor
        /// first if needed). Throws DimensionMismatch naming the first item that is not square.
        std::unique_ptr<CondEstimator> generate(ptr_param<const Dense<T>> a) const;
        const parameters_type& get_parameters() const noexcept { return parameters_; }
        const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }

    private:
        std::shared_ptr<const Executor> exec_;
        parameters_type parameters_;
    };

    static parameters_type build() { return {}; }

    size_type get_num_items() const noexcept { return cond_.get_size(); }
    const std::shared_ptr<const Executor>& get_executor() const noexcept
    {
        return cond_.get_executor();
    }
    /// One condition number per item (+inf for singular items), on the estimator's executor.
    const array<T>& get_condition_numbers() const noexcept { return cond_; }
    /// Per-item info: 0 = success, k > 0 = tiny pivot at step k of the inversion.
    const array<std::int32_t>& get_info() const noexcept { return info_; }
    /// True if the factory was asked to keep the inverses.
    bool has_inverse() const noexcept { return inverse_ != nullptr; }
    /// The batch of inverses (a BatchLinOp applying A_i^-1), or null without keep_inverse.
    /// The inverse of a failed item is unspecified.
    std::shared_ptr<const Dense<T>> get_inverse() const noexcept { return inverse_; }

private:
    CondEstimator(array<T> cond, array<std::int32_t> info, std::shared_ptr<const Dense<T>> inverse)
        : cond_{std::move(cond)}, info_{std::move(info)}, inverse_{std::move(inverse)}
    {}

    array<T> cond_;
    array<std::int32_t> info_;
    std::shared_ptr<const Dense<T>> inverse_;
};

}  // namespace batch
}  // namespace larch
