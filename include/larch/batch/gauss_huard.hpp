// Batched Gauss-Huard decomposition with implicit column pivoting and its solve phase (Anzt et al. 2017,
// "Variable-size batched Gauss-Huard for block-Jacobi preconditioning").
#pragma once

#include <cstdint>
#include <memory>

#include "larch/base/array.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/batch/batch_lin_op.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/vector.hpp"

namespace larch {
namespace batch {

/// How the Gauss-Huard factors are stored (Anzt et al. 2017, batched Gauss-Huard, Section 3).
enum class GaussHuardStorage {
    plain,      ///< BGH: the factors as computed (the solve reads U by columns)
    transposed  ///< BGHT: U transposed about the anti-diagonal, so the solve reads U by rows too
};

/**
 * The Gauss-Huard decomposition of every (square) item of a batch::Dense: 2n^3/3 flops per item, LU-like
 * stability through implicit column pivoting. As a BatchLinOp, apply(b, x) solves A_i x_i = b_i for
 * every column of b_i. Built by a factory:
 *
 *     auto gh = batch::GaussHuard<double>::build()
 *                   .with_storage(batch::GaussHuardStorage::transposed)
 *                   .on(exec)
 *                   ->generate(blocks);
 *     gh->solve(b, x);
 *
 * Runs on reference, omp, cuda and hip (GPU: one sub-warp per item, one column per thread, items up to
 * 32 in registers, larger items on the backend's fallback path). Items that are singular or numerically
 * singular are reported in get_info() (see status.hpp), never thrown; solving with them gives
 * unspecified values for those items only. The layout of the factors and pivots is documented at the
 * kernel declarations (core/batch/batch_dense_kernels.hpp).
 */
template <typename T>
class GaussHuard : public BatchLinOp<T> {
public:
    class Factory;

    /// Parameters of the factory; `build()` returns a default set to refine with `with_...`.
    struct parameters_type {
        GaussHuardStorage storage = GaussHuardStorage::plain;

        parameters_type& with_storage(GaussHuardStorage value)
        {
            storage = value;
            return *this;
        }
        /// The factory generating decompositions on `exec`.
        std::unique_ptr<Factory> on(std::shared_ptr<const Executor> exec) const;
    };

    /// Generates GaussHuard decompositions with fixed parameters on one executor.
    class Factory {
    public:
        Factory(std::shared_ptr<const Executor> exec, parameters_type parameters)
            : exec_{std::move(exec)}, parameters_{parameters}
        {}
        /// Decomposes every item of `a` (copied to the factory's executor first if needed).
        /// Throws DimensionMismatch naming the first item that is not square.
        std::unique_ptr<GaussHuard> generate(ptr_param<const Dense<T>> a) const;
        const parameters_type& get_parameters() const noexcept { return parameters_; }
        const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }

    private:
        std::shared_ptr<const Executor> exec_;
        parameters_type parameters_;
    };

    static parameters_type build() { return {}; }

    /// Solves A_i x_i = b_i for every item and every column; x may be the same object as b.
    /// Throws DimensionMismatch / NotSupported like apply().
    void solve(const Vector<T>& b, Vector<T>& x) const;

    size_type get_num_items() const override { return factors_->get_num_items(); }
    const std::vector<dim2>& get_item_sizes() const override { return factors_->get_item_sizes(); }
    std::uint64_t get_item_sizes_id() const override { return factors_->get_item_sizes_id(); }
    std::string get_type_name() const override;

    /// The factors (layout: core/batch/batch_dense_kernels.hpp, gauss_huard_factorize).
    const Dense<T>& get_factors() const noexcept { return *factors_; }
    /// One pivot (original column index) per item row, item i's at layout row_offset(i).
    const array<std::int32_t>& get_pivots() const noexcept { return pivots_; }
    /// Per-item info: 0 = success, k > 0 = tiny pivot at step k.
    const array<std::int32_t>& get_info() const noexcept { return info_; }
    GaussHuardStorage get_storage() const noexcept { return storage_; }

protected:
    void apply_impl(const Vector<T>& b, Vector<T>& x) const override;

private:
    /// Factorizes `a` (on this object's executor) into newly allocated factors.
    GaussHuard(const Dense<T>& a, GaussHuardStorage storage);

    std::unique_ptr<Dense<T>> factors_;
    GaussHuardStorage storage_;
    array<std::int32_t> pivots_;
    array<std::int32_t> info_;
};

}  // namespace batch
}  // namespace larch
