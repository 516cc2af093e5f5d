// preconditioner::BlockJacobi: validation, block detection (supervariable agglomeration), generation as a
// composition of the batched dense operations, the choice of each block's storage precision and fallback,
// and application.
#include "larch/preconditioner/block_jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "larch/base/half.hpp"
#include "larch/batch/cond_estimator.hpp"
#include "larch/batch/gauss_huard.hpp"
#include "larch/batch/norms.hpp"

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
    LARCH_ENSURE(parameters.accuracy > 0 && parameters.accuracy <= 1, BadInput,
                 "BlockJacobi::generate: accuracy must be in (0, 1], got " + std::to_string(parameters.accuracy));
    const auto size = system_matrix->get_size();
    LARCH_ENSURE(size.rows == size.cols, DimensionMismatch,
                 "BlockJacobi::generate: the system matrix must be square, got " + to_string(size));
    const auto& pointers = parameters.block_pointers;
    size_type largest_block = parameters.max_block_size;
    if (!pointers.empty()) {
        LARCH_ENSURE(pointers.front() == 0 && static_cast<size_type>(pointers.back()) == size.rows, BadInput,
                     "BlockJacobi::generate: block_pointers must run from 0 to the number of rows " +
                         std::to_string(size.rows) + ", got " + std::to_string(pointers.front()) + " to " +
                         std::to_string(pointers.back()));
        largest_block = 0;
        for (size_type block = 0; block + 1 < pointers.size(); ++block) {
            LARCH_ENSURE(pointers[block] < pointers[block + 1], BadInput,
                         "BlockJacobi::generate: block_pointers must be strictly ascending, but entry " +
                             std::to_string(block + 1) + " is " + std::to_string(pointers[block + 1]) +
                             " after " + std::to_string(pointers[block]));
            largest_block = std::max(largest_block, static_cast<size_type>(pointers[block + 1] - pointers[block]));
        }
    }
    LARCH_ENSURE(exec->is_host() || largest_block <= 32, NotSupported,
                 "BlockJacobi::generate: blocks of up to 32 rows run on " + exec->get_name() + ", got " +
                     std::to_string(largest_block) + " (larger blocks run on reference and omp)");
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
    const auto num_rows = system_matrix.get_size().rows;
    array<I> zero_diagonal{exec, num_rows};
    LARCH_RUN_KERNEL(exec, block_jacobi::extract_inverse_diagonal, system_matrix, inverse_diagonal_,
                     zero_diagonal);
    const auto flags = zero_diagonal.copy_to_host();
    for (size_type row = 0; row < flags.size(); ++row) {
        if (flags[row] != 0) {
            zero_diagonal_rows_.push_back(static_cast<I>(row));
        }
    }
    if (parameters_.max_block_size == 1 && parameters_.block_pointers.empty()) {
        // scalar Jacobi: one block per row, stored as the diagonal in V
        block_pointers_.resize(num_rows + 1);
        for (size_type row = 0; row <= num_rows; ++row) {
            block_pointers_[row] = static_cast<I>(row);
        }
        condition_numbers_.assign(num_rows, 1.0);
        for (const auto row : zero_diagonal_rows_) {
            condition_numbers_[row] = std::numeric_limits<double>::infinity();
        }
        precisions_.assign(num_rows, working_precision());
        detected_block_pointers_ = block_pointers_;
        return;
    }
    generate_blocks(system_matrix);
}

namespace {

/// The blocks of supervariable blocking from the supervariable starts (see the class documentation):
/// supervariables longer than the bound are split, consecutive ones agglomerated while they fit.
template <typename I>
std::vector<I> agglomerate_supervariables(const std::vector<std::uint8_t>& starts, size_type max_block_size)
{
    std::vector<I> pointers{0};
    const auto num_rows = starts.size();
    size_type block_rows = 0;
    size_type row = 0;
    while (row < num_rows) {
        size_type end = row + 1;
        while (end < num_rows && starts[end] == 0) {
            ++end;
        }
        // pieces of at most max_block_size rows of the supervariable [row, end)
        for (auto piece = row; piece < end; piece += max_block_size) {
            const auto piece_rows = std::min(max_block_size, end - piece);
            if (block_rows > 0 && block_rows + piece_rows > max_block_size) {
                pointers.push_back(static_cast<I>(pointers.back() + block_rows));
                block_rows = 0;
            }
            block_rows += piece_rows;
        }
        row = end;
    }
    if (block_rows > 0) {
        pointers.push_back(static_cast<I>(pointers.back() + block_rows));
    }
    return pointers;
}

/// Unit roundoff of the storage precisions.
constexpr double unit_roundoff[] = {0x1p-53, 0x1p-24, 0x1p-11};
constexpr size_type bytes_of_precision[] = {8, 4, 2};

}  // namespace

template <typename V, typename I>
BlockPrecision BlockJacobi<V, I>::working_precision()
{
    return std::is_same<V, double>::value ? BlockPrecision::double_precision : BlockPrecision::single_precision;
}

template <typename V, typename I>
void BlockJacobi<V, I>::generate_blocks(const matrix::Csr<V, I>& system_matrix)
{
    using namespace kernels::block_jacobi_storage;
    const auto exec = get_executor();
    const auto num_rows = system_matrix.get_size().rows;
    if (!parameters_.block_pointers.empty()) {
        block_pointers_ = parameters_.block_pointers;
    } else {
        array<std::uint8_t> starts{exec, num_rows};
        LARCH_RUN_KERNEL(exec, block_jacobi::find_supervariable_starts, system_matrix, starts);
        block_pointers_ = agglomerate_supervariables<I>(starts.copy_to_host(), parameters_.max_block_size);
    }
    detected_block_pointers_ = block_pointers_;
    if (block_pointers_.size() < 2) {
        return;
    }
    // Generation rounds: a singular block of several rows is split in two halves and the blocks are
    // generated again, until every singular block left has one row (a zero diagonal entry).
    const bool explicit_inverse = parameters_.algorithm == BlockJacobiAlgorithm::gauss_jordan;
    std::vector<dim2> sizes;
    std::unique_ptr<batch::Dense<V>> blocks;
    std::unique_ptr<batch::CondEstimator<V>> estimator;
    std::unique_ptr<batch::GaussHuard<V>> factorization;
    std::vector<V> cond;
    std::vector<V> stored_norms;
    std::vector<bool> singular;
    for (;;) {
        const auto num_blocks = block_pointers_.size() - 1;
        device_block_pointers_ = array<I>{exec, block_pointers_.begin(), block_pointers_.end()};
        sizes.assign(num_blocks, dim2{});
        largest_block_ = 1;
        for (size_type block = 0; block < num_blocks; ++block) {
            sizes[block] = dim2{static_cast<size_type>(block_pointers_[block + 1] - block_pointers_[block])};
            largest_block_ = std::max(largest_block_, sizes[block].rows);
        }
        blocks = batch::Dense<V>::create(exec, sizes);
        std::vector<std::int32_t> inversion_info;
        std::vector<std::int32_t> factorization_info(num_blocks, 0);
        if (explicit_inverse) {
            // extraction + Gauss-Jordan inversion + condition number in one pass (one kernel on GPUs);
            // `blocks` receives the inverses
            array<V> device_cond{exec, num_blocks};
            array<std::int32_t> device_info{exec, num_blocks};
            LARCH_RUN_KERNEL(exec, block_jacobi::generate_inverse_blocks, system_matrix, device_block_pointers_,
                             largest_block_, parameters_.extraction == BlockJacobiExtraction::shared, *blocks,
                             device_cond, device_info);
            cond = device_cond.copy_to_host();
            inversion_info = device_info.copy_to_host();
        } else {
            LARCH_RUN_KERNEL(exec, block_jacobi::extract_diagonal_blocks, system_matrix, device_block_pointers_,
                             *blocks);
            estimator = batch::CondEstimator<V>::build().with_keep_inverse(false).on(exec)->generate(blocks.get());
            cond = estimator->get_condition_numbers().copy_to_host();
            inversion_info = estimator->get_info().copy_to_host();
            factorization = batch::GaussHuard<V>::build()
                                .with_storage(parameters_.algorithm == BlockJacobiAlgorithm::gauss_huard_transposed
                                                  ? batch::GaussHuardStorage::transposed
                                                  : batch::GaussHuardStorage::plain)
                                .on(exec)
                                ->generate(blocks.get());
            factorization_info = factorization->get_info().copy_to_host();
            pivots_ = factorization->get_pivots();
        }
        const batch::Dense<V>& processed = explicit_inverse ? *blocks : factorization->get_factors();
        stored_norms = batch::compute_infinity_norms(processed).copy_to_host();
        singular.assign(num_blocks, false);
        std::vector<I> refined{0};
        for (size_type block = 0; block < num_blocks; ++block) {
            const auto n = sizes[block].rows;
            const double block_cond = static_cast<double>(cond[block]);
            const double singular_bound = 1.0 / (static_cast<double>(n) * std::numeric_limits<V>::epsilon());
            singular[block] = inversion_info[block] != 0 || factorization_info[block] != 0 ||
                              !(block_cond <= singular_bound) || !std::isfinite(static_cast<double>(stored_norms[block]));
            LARCH_ENSURE(!singular[block] || parameters_.on_singular_block == SingularBlockPolicy::fallback, BadInput,
                         "BlockJacobi::generate: diagonal block " + std::to_string(block) + " (rows " +
                             std::to_string(block_pointers_[block]) + " to " +
                             std::to_string(block_pointers_[block + 1] - 1) + ") is singular or numerically "
                             "singular (condition number " + std::to_string(block_cond) +
                             "); on_singular_block = throw_error");
            if (singular[block] && n > 1) {
                refined.push_back(static_cast<I>(block_pointers_[block] + static_cast<I>(n / 2)));
                ++num_split_blocks_;
            }
            refined.push_back(block_pointers_[block + 1]);
        }
        if (refined.size() == block_pointers_.size()) {
            break;
        }
        block_pointers_ = std::move(refined);
    }
    const auto num_blocks = block_pointers_.size() - 1;
    const batch::Dense<V>& processed = explicit_inverse ? *blocks : factorization->get_factors();

    const std::uint8_t block_kind = explicit_inverse ? inverse
                                    : parameters_.algorithm == BlockJacobiAlgorithm::gauss_huard ? gauss_huard
                                                                                                 : gauss_huard_transposed;
    const auto working = static_cast<std::uint8_t>(working_precision());
    std::vector<std::uint8_t> kinds(num_blocks);
    std::vector<std::uint8_t> codes(num_blocks);
    std::vector<std::int64_t> offsets(num_blocks);
    std::int64_t total_bytes = 0;
    condition_numbers_.resize(num_blocks);
    precisions_.resize(num_blocks);
    for (size_type block = 0; block < num_blocks; ++block) {
        const auto n = sizes[block].rows;
        const double block_cond = static_cast<double>(cond[block]);
        if (singular[block]) {
            singular_blocks_.push_back(block);
            condition_numbers_[block] = std::numeric_limits<double>::infinity();
            kinds[block] = diagonal;
            codes[block] = working;
        } else {
            condition_numbers_[block] = block_cond;
            kinds[block] = block_kind;
            codes[block] = working;
            if (parameters_.storage_precision == BlockJacobiStorage::adaptive) {
                const double norm = static_cast<double>(stored_norms[block]);
                // Half's range (6e-5 to 65504) is too narrow for Gauss-Huard factors: a small pivot would
                // round to zero and the solve divide by it, so factors are stored in single at the least.
                const bool half_fits = explicit_inverse && norm <= half_max / 2 &&
                                       norm >= 0x1p-14 / unit_roundoff[half_precision];
                const bool single_fits = norm <= std::numeric_limits<float>::max() / 2 &&
                                         norm >= std::numeric_limits<float>::min() / unit_roundoff[single_precision];
                if (half_fits && unit_roundoff[half_precision] * block_cond < parameters_.accuracy) {
                    codes[block] = half_precision;
                } else if (working == double_precision && single_fits &&
                           unit_roundoff[single_precision] * block_cond < parameters_.accuracy) {
                    codes[block] = single_precision;
                }
            }
        }
        precisions_[block] = static_cast<BlockPrecision>(codes[block]);
        offsets[block] = total_bytes;
        const auto num_values = kinds[block] == diagonal ? n : n * n;
        // every block starts 8-byte aligned, so that double entries are read aligned
        total_bytes += static_cast<std::int64_t>((num_values * bytes_of_precision[codes[block]] + 7) / 8 * 8);
    }
    kinds_ = array<std::uint8_t>{exec, kinds.begin(), kinds.end()};
    precision_codes_ = array<std::uint8_t>{exec, codes.begin(), codes.end()};
    byte_offsets_ = array<std::int64_t>{exec, offsets.begin(), offsets.end()};
    storage_ = array<std::uint8_t>{exec, static_cast<size_type>(total_bytes)};
    LARCH_RUN_KERNEL(exec, block_jacobi::store_blocks, processed, inverse_diagonal_, device_block_pointers_, kinds_,
                     precision_codes_, byte_offsets_, storage_);
}

template <typename V, typename I>
size_type BlockJacobi<V, I>::get_storage_bytes() const noexcept
{
    return kinds_.get_size() > 0 ? storage_.get_size() : inverse_diagonal_.get_size() * sizeof(V);
}

template <typename V, typename I>
BlockJacobi<V, I>::BlockJacobi(std::shared_ptr<const Executor> exec, const BlockJacobi& other)
    : LinOp(exec, other.get_size()),
      parameters_{other.parameters_},
      inverse_diagonal_{exec, other.inverse_diagonal_},
      zero_diagonal_rows_{other.zero_diagonal_rows_},
      block_pointers_{other.block_pointers_},
      detected_block_pointers_{other.detected_block_pointers_},
      largest_block_{other.largest_block_},
      num_split_blocks_{other.num_split_blocks_},
      singular_blocks_{other.singular_blocks_},
      condition_numbers_{other.condition_numbers_},
      precisions_{other.precisions_},
      device_block_pointers_{exec, other.device_block_pointers_},
      precision_codes_{exec, other.precision_codes_},
      kinds_{exec, other.kinds_},
      byte_offsets_{exec, other.byte_offsets_},
      storage_{exec, other.storage_},
      pivots_{exec, other.pivots_}
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
    if (kinds_.get_size() == 0) {
        LARCH_RUN_KERNEL(get_executor(), block_jacobi::apply_inverse_diagonal, static_cast<V>(alpha),
                         inverse_diagonal_, dense_b, static_cast<V>(beta), dense_x);
    } else {
        LARCH_RUN_KERNEL(get_executor(), block_jacobi::apply_blocks, static_cast<V>(alpha), device_block_pointers_,
                         largest_block_,
                         kinds_, precision_codes_, byte_offsets_, storage_, pivots_, dense_b, static_cast<V>(beta),
                         dense_x);
    }
}

#define LARCH_INSTANTIATE_BLOCK_JACOBI(V, I) template class BlockJacobi<V, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI);

}  // namespace preconditioner
}  // namespace larch
