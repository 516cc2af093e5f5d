// preconditioner::BlockJacobi: validation, generation (diagonal extraction) and application (scalar Jacobi).
#include "larch/preconditioner/block_jacobi.hpp"

#include "core/components/instantiation.hpp"
#include "core/preconditioner/block_jacobi_kernels.hpp"

namespace larch {
namespace preconditioner {

template <typename V, typename I>
std::unique_ptr<BlockJacobi<V, I>> BlockJacobi<V, I>::create(std::shared_ptr<const Executor> exec,
                                                             const parameters_type& parameters,
                                                             std::shared_ptr<const LinOp> system_matrix)
{
    LARCH_ENSURE(exec, BadInput, "BlockJacobi::generate: the executor is null");
    LARCH_ENSURE(system_matrix, BadInput, "BlockJacobi::generate: the system matrix is null");
    LARCH_ENSURE(parameters.max_block_size >= 1, BadInput,
                 "BlockJacobi::generate: max_block_size must be >= 1, got 0");
    LARCH_ENSURE(parameters.max_block_size == 1, NotSupported,
                 "BlockJacobi::generate: max_block_size " + std::to_string(parameters.max_block_size) +
                     " is not supported yet; block-Jacobi with blocks larger than 1 comes with the "
                     "block-Jacobi issue. Use max_block_size 1 (scalar Jacobi) for now");
    const auto size = system_matrix->get_size();
    LARCH_ENSURE(size.rows == size.cols, DimensionMismatch,
                 "BlockJacobi::generate: the system matrix must be square, got " + to_string(size));
    const auto& csr = as<const matrix::Csr<V, I>>(*system_matrix, "BlockJacobi::generate");
    if (!exec->memory_accessible(*csr.get_executor())) {
        auto copy = csr.clone_to(exec);
        return std::unique_ptr<BlockJacobi>{
            new BlockJacobi(exec, parameters, static_cast<const matrix::Csr<V, I>&>(*copy))};
    }
    return std::unique_ptr<BlockJacobi>{new BlockJacobi(std::move(exec), parameters, csr)};
}

template <typename V, typename I>
BlockJacobi<V, I>::BlockJacobi(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                               const matrix::Csr<V, I>& system_matrix)
    : LinOp(exec, system_matrix.get_size()),
      parameters_{parameters},
      inverse_diagonal_{exec, system_matrix.get_size().rows}
{
    array<I> zero_diagonal{exec, system_matrix.get_size().rows};
    LARCH_RUN_KERNEL(exec, block_jacobi::extract_inverse_diagonal, system_matrix, inverse_diagonal_,
                     zero_diagonal);
    const auto flags = zero_diagonal.copy_to_host();
    for (size_type row = 0; row < flags.size(); ++row) {
        if (flags[row] != 0) {
            zero_diagonal_rows_.push_back(static_cast<I>(row));
        }
    }
}

template <typename V, typename I>
BlockJacobi<V, I>::BlockJacobi(std::shared_ptr<const Executor> exec, const BlockJacobi& other)
    : LinOp(exec, other.get_size()),
      parameters_{other.parameters_},
      inverse_diagonal_{exec, other.inverse_diagonal_},
      zero_diagonal_rows_{other.zero_diagonal_rows_}
{}

template <typename V, typename I>
std::unique_ptr<LinOp> BlockJacobi<V, I>::clone_to(std::shared_ptr<const Executor> exec) const
{
    return std::unique_ptr<BlockJacobi>{new BlockJacobi(std::move(exec), *this)};
}

template <typename V, typename I>
std::string BlockJacobi<V, I>::get_type_name() const
{
    return std::string{"BlockJacobi<"} + type_name<V>() + "," + type_name<I>() + ">";
}

template <typename V, typename I>
void BlockJacobi<V, I>::apply_impl(const LinOp& b, LinOp& x) const
{
    apply_impl(1.0, b, 0.0, x);
}

template <typename V, typename I>
void BlockJacobi<V, I>::apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const
{
    const auto& dense_b = as<const matrix::Dense<V>>(b, "BlockJacobi::apply");
    auto& dense_x = as<matrix::Dense<V>>(x, "BlockJacobi::apply");
    LARCH_RUN_KERNEL(get_executor(), block_jacobi::apply_inverse_diagonal, static_cast<V>(alpha),
                     inverse_diagonal_, dense_b, static_cast<V>(beta), dense_x);
}

#define LARCH_INSTANTIATE_BLOCK_JACOBI(V, I) template class BlockJacobi<V, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI);

}  // namespace preconditioner
}  // namespace larch
