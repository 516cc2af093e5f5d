// preconditioner::BlockJacobi<V, I>: the (block-)Jacobi preconditioner generated from a Csr matrix. For now
// max_block_size = 1 only: scalar Jacobi, M^{-1} = D^{-1} with D the diagonal of A.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/enable_factory.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"

namespace larch {
namespace preconditioner {

/**
 * Block-Jacobi preconditioner: apply(b, x) computes x = D^{-1} b, where D holds the diagonal blocks of the
 * system matrix. With max_block_size = 1 (the default, and the only size supported so far) it is scalar
 * Jacobi: D is the diagonal. Runs on reference, omp, cuda and hip; generation costs one pass over A.
 *
 * Zero diagonal rule: a zero or missing diagonal entry a(i, i) gives D^{-1}(i, i) = 1, i.e. that row of the
 * residual is passed through unscaled instead of dividing by zero. The rows concerned are reported by
 * get_zero_diagonal_rows().
 *
 *     auto jacobi = preconditioner::BlockJacobi<double>::build().with_max_block_size(1).on(exec)->generate(A);
 */
template <typename V, typename I = std::int32_t>
class BlockJacobi : public LinOp {
public:
    using value_type = V;
    using index_type = I;

    class Factory;
    struct parameters_type : enable_parameters<parameters_type, Factory> {
        /// The largest diagonal block; 1 = scalar Jacobi. Larger blocks throw NotSupported for now.
        size_type max_block_size = 1;

        parameters_type& with_max_block_size(size_type value)
        {
            max_block_size = value;
            return *this;
        }
    };
    class Factory : public EnableFactory<BlockJacobi, parameters_type> {
    public:
        using EnableFactory<BlockJacobi, parameters_type>::EnableFactory;
    };

    static parameters_type build() { return {}; }
    /**
     * Generates the preconditioner of `system_matrix`, which must be a square matrix::Csr<V, I> (copied to
     * `exec` if it lives elsewhere). Throws BadInput (max_block_size 0), NotSupported (max_block_size > 1,
     * or another matrix type), DimensionMismatch (not square).
     */
    static std::unique_ptr<BlockJacobi> create(std::shared_ptr<const Executor> exec,
                                               const parameters_type& parameters,
                                               std::shared_ptr<const LinOp> system_matrix);

    const parameters_type& get_parameters() const noexcept { return parameters_; }
    /// D^{-1} as a vector of num_rows entries on the executor.
    const array<V>& get_inverse_diagonal() const noexcept { return inverse_diagonal_; }
    /// Rows whose diagonal entry is zero or missing (their D^{-1} entry is 1), ascending.
    const std::vector<I>& get_zero_diagonal_rows() const noexcept { return zero_diagonal_rows_; }
    size_type get_num_zero_diagonal_rows() const noexcept { return zero_diagonal_rows_.size(); }

    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    BlockJacobi(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                const matrix::Csr<V, I>& system_matrix);
    BlockJacobi(std::shared_ptr<const Executor> exec, const BlockJacobi& other);

    void apply_impl(const LinOp& b, LinOp& x) const override;
    void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const override;

private:
    parameters_type parameters_;
    array<V> inverse_diagonal_;
    std::vector<I> zero_diagonal_rows_;
};

}  // namespace preconditioner
}  // namespace larch
