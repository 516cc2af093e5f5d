// preconditioner::BlockJacobi: validation, block detection (supervariable agglomeration), generation as a
// composition of the batched dense operations, the choice of each block's storage precision and fallback,
// and application.
#include "larch/preconditioner/block_jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "larch/base/half.hpp"

#include "core/base/number_text.hpp"
#include "core/components/format_helpers.hpp"
#include "core/components/instantiation.hpp"
#include "core/components/prefix_sum_kernels.hpp"
#include "core/distributed/halo_kernels.hpp"
#include "core/preconditioner/block_jacobi_item_algorithms.hpp"
#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "core/preconditioner/block_jacobi_rules.hpp"
#include "core/preconditioner/row_matching.hpp"

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
    LARCH_ENSURE(parameters.row_matching != BlockJacobiRowMatching::maximum_product ||
                     parameters.max_block_size > 1 || !parameters.block_pointers.empty(),
                 BadInput,
                 "BlockJacobi::generate: row_matching = maximum_product needs blocks (max_block_size > 1 or "
                 "block_pointers); scalar Jacobi is applied as the diagonal of A");
    LARCH_ENSURE(parameters.accuracy > 0 && parameters.accuracy <= 1, BadInput,
                 "BlockJacobi::generate: accuracy must be in (0, 1], got " +
                     detail::exact_number_text(parameters.accuracy));
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
      inverse_diagonal_{exec, system_matrix.get_size().rows},
      zero_diagonal_{exec, system_matrix.get_size().rows},
      num_blocks_{system_matrix.get_size().rows},
      device_block_pointers_{exec},
      detected_block_pointers_{exec},
      block_cond_{exec},
      precision_codes_{exec},
      kinds_{exec},
      byte_offsets_{exec},
      storage_{exec},
      pivots_{exec},
      row_permutation_{exec}
{
    LARCH_RUN_KERNEL(exec, block_jacobi::extract_inverse_diagonal, system_matrix, inverse_diagonal_, zero_diagonal_);
    if (parameters_.max_block_size == 1 && parameters_.block_pointers.empty()) {
        // scalar Jacobi's blocks are the rows, singular where the zero diagonal rule applies
        if (parameters_.on_singular_block == SingularBlockPolicy::throw_error && get_num_singular_blocks() > 0) {
            LARCH_THROW(BadInput, "BlockJacobi::generate: row " + std::to_string(get_singular_blocks().front()) +
                                      " has a zero, missing, NaN or subnormal diagonal entry, a singular block of "
                                      "scalar Jacobi (max_block_size 1); on_singular_block = throw_error");
        }
        return;
    }
    if (!uses_row_matching()) {
        generate_blocks(system_matrix);
        return;
    }
    // The blocks of P A: P found and applied to the rows on the host, P A copied back to the executor.
    const auto host_matrix = system_matrix.clone_to(ReferenceExecutor::create());
    const auto& host = static_cast<const matrix::Csr<V, I>&>(*host_matrix);
    const auto row_of_position = find_maximum_product_matching(host);
    const auto permuted = permute_rows(host, row_of_position)->clone_to(exec);
    const auto& permuted_matrix = static_cast<const matrix::Csr<V, I>&>(*permuted);
    row_permutation_ = array<I>{exec, row_of_position.begin(), row_of_position.end()};
    LARCH_RUN_KERNEL(exec, block_jacobi::extract_inverse_diagonal, permuted_matrix, inverse_diagonal_,
                     zero_diagonal_);
    generate_blocks(permuted_matrix);
}

template <typename V, typename I>
bool BlockJacobi<V, I>::uses_row_matching() const
{
    switch (parameters_.row_matching) {
    case BlockJacobiRowMatching::none:
        return false;
    case BlockJacobiRowMatching::maximum_product:
        return true;
    case BlockJacobiRowMatching::automatic:
        break;
    }
    const auto num_rows = zero_diagonal_.get_size();
    if (!parameters_.block_pointers.empty() || num_rows == 0) {
        return false;
    }
    // Whether A has a zero diagonal entry: the flags summed on the executor (a prefix sum of a copy, whose
    // last entry plus the last flag is the count), so that only two numbers reach the host.
    const auto exec = get_executor();
    array<I> sums{exec, zero_diagonal_};
    LARCH_RUN_KERNEL(exec, components::prefix_sum, sums.get_data(), num_rows);
    const auto last = sums.get_const_data() + num_rows - 1;
    return detail::copy_element_to_host(exec, last) +
               detail::copy_element_to_host(exec, zero_diagonal_.get_const_data() + num_rows - 1) >
           0;
}

namespace {

/// Turns per-block byte counts (num_blocks + 1 entries, a spare last one) into offsets; returns the total.
std::int64_t bytes_to_offsets(array<std::int64_t>& byte_offsets)
{
    const auto exec = byte_offsets.get_executor();
    LARCH_RUN_KERNEL(exec, components::prefix_sum, byte_offsets.get_data(), byte_offsets.get_size());
    return detail::copy_element_to_host(exec, byte_offsets.get_const_data() + byte_offsets.get_size() - 1);
}

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
    const auto& given = parameters_.block_pointers;
    if (!given.empty()) {
        device_block_pointers_ = array<I>{exec, given.begin(), given.end()};
        num_blocks_ = given.size() - 1;
        largest_block_ = 1;
        for (size_type block = 0; block < num_blocks_; ++block) {
            largest_block_ = std::max(largest_block_, static_cast<size_type>(given[block + 1] - given[block]));
        }
    } else {
        device_block_pointers_ = array<I>{exec, num_rows + 1};
        // no block outgrows the matrix; the kernels take the bound as an int (2^32 became a division by 0)
        const auto bound = std::min(parameters_.max_block_size, std::max<size_type>(num_rows, 1));
        LARCH_RUN_KERNEL(exec, block_jacobi::find_blocks, system_matrix, bound, device_block_pointers_,
                         num_blocks_, largest_block_);
    }
    if (num_blocks_ == 0) {
        return;
    }
    // Generation rounds: every block is generated in the working precision (the working layout: n x n values
    // of V per block) and classified; while a singular block of several rows is left, the singular blocks
    // are split in halves and all blocks generated again.
    const bool explicit_inverse = parameters_.algorithm == BlockJacobiAlgorithm::gauss_jordan;
    const std::uint8_t block_kind = explicit_inverse ? inverse
                                    : parameters_.algorithm == BlockJacobiAlgorithm::gauss_huard ? gauss_huard
                                                                                                 : gauss_huard_transposed;
    const array<std::uint8_t> working_layout{exec};  // no kinds and precisions: the working layout
    array<std::int64_t> working_offsets{exec};
    array<std::uint8_t> working{exec};
    size_type num_singular = 0;
    size_type num_reduced = 0;
    for (;;) {
        working_offsets = array<std::int64_t>{exec, num_blocks_ + 1};
        LARCH_RUN_KERNEL(exec, block_jacobi::compute_block_bytes<V>, device_block_pointers_, num_blocks_,
                         working_layout, working_layout, working_offsets);
        working = array<std::uint8_t>{exec, static_cast<size_type>(bytes_to_offsets(working_offsets))};
        block_cond_ = array<V>{exec, num_blocks_};
        array<V> norms{exec, num_blocks_};
        array<std::int32_t> inversion_info{exec, num_blocks_};
        array<std::int32_t> factorization_info{exec};
        const bool shared_extraction = parameters_.extraction == BlockJacobiExtraction::shared;
        if (explicit_inverse) {
            // extraction + Gauss-Jordan inversion + condition number + write-out in one pass (one kernel on GPUs)
            LARCH_RUN_KERNEL(exec, block_jacobi::generate_inverse_blocks, system_matrix, device_block_pointers_,
                             num_blocks_, largest_block_, shared_extraction, working_offsets, working, block_cond_,
                             inversion_info, norms);
        } else {
            // the same with the Gauss-Huard factors written instead of the inverse
            pivots_ = array<std::int32_t>{exec, num_rows};
            factorization_info = array<std::int32_t>{exec, num_blocks_};
            LARCH_RUN_KERNEL(exec, block_jacobi::generate_factorized_blocks, system_matrix, device_block_pointers_,
                             num_blocks_, largest_block_, shared_extraction, block_kind == gauss_huard_transposed,
                             working_offsets, working, pivots_, block_cond_, inversion_info, factorization_info,
                             norms);
        }
        kinds_ = array<std::uint8_t>{exec, num_blocks_};
        precision_codes_ = array<std::uint8_t>{exec, num_blocks_};
        size_type first_singular = 0;
        LARCH_RUN_KERNEL(exec, block_jacobi::classify_blocks, device_block_pointers_, block_cond_, inversion_info,
                         factorization_info, norms, block_kind,
                         parameters_.storage_precision == BlockJacobiStorage::adaptive, parameters_.accuracy, kinds_,
                         precision_codes_, num_singular, first_singular, num_reduced);
        if (num_singular > 0 && parameters_.on_singular_block == SingularBlockPolicy::throw_error) {
            throw_singular_block(first_singular);
        }
        if (num_singular == 0 || !split_singular_blocks()) {
            break;
        }
    }
    if (num_singular == 0 && num_reduced == 0) {
        // every block is stored as generated
        byte_offsets_ = std::move(working_offsets);
        storage_ = std::move(working);
        return;
    }
    byte_offsets_ = array<std::int64_t>{exec, num_blocks_ + 1};
    LARCH_RUN_KERNEL(exec, block_jacobi::compute_block_bytes<V>, device_block_pointers_, num_blocks_, kinds_,
                     precision_codes_, byte_offsets_);
    storage_ = array<std::uint8_t>{exec, static_cast<size_type>(bytes_to_offsets(byte_offsets_))};
    LARCH_RUN_KERNEL(exec, block_jacobi::restore_blocks, working, working_offsets, inverse_diagonal_,
                     device_block_pointers_, kinds_, precision_codes_, byte_offsets_, storage_);
}

template <typename V, typename I>
void BlockJacobi<V, I>::throw_singular_block(size_type block) const
{
    const auto pointers = device_block_pointers_.copy_to_host();
    const auto cond = block_cond_.copy_to_host();
    const auto first = pointers[block];
    const auto end = pointers[block + 1];
    auto rows = "rows " + std::to_string(first) + " to " + std::to_string(end - 1);
    const auto permutation = row_permutation_.copy_to_host();
    if (!permutation.empty()) {
        // the blocks are those of P A; the caller knows the rows of A (and gets no P when this throws)
        constexpr I max_listed = 8;
        rows += " of P A, rows";
        for (auto row = first; row < end && row < first + max_listed; ++row) {
            rows += (row == first ? " " : ", ") + std::to_string(permutation[row]);
        }
        rows += std::string{end - first > max_listed ? ", ..." : ""} + " of A, P the row matching";
    }
    LARCH_THROW(BadInput, "BlockJacobi::generate: diagonal block " + std::to_string(block) + " (" + rows +
                              ") is singular or numerically singular (condition number " +
                              detail::number_text(static_cast<double>(cond[block])) + ", numerically singular above " +
                              detail::number_text(kernels::block_jacobi_rules::singular_condition_bound<V>(end - first)) +
                              "); on_singular_block = throw_error");
}

template <typename V, typename I>
bool BlockJacobi<V, I>::split_singular_blocks()
{
    const auto exec = get_executor();
    const auto pointers = device_block_pointers_.copy_to_host();
    const auto kinds = kinds_.copy_to_host();
    std::vector<I> refined(pointers.begin(), pointers.begin() + num_blocks_ + 1);
    const auto cut = kernels::block_jacobi_item::split_in_halves(
        refined, [&](size_type block) { return kinds[block] == kernels::block_jacobi_storage::diagonal; });
    if (cut == 0) {
        return false;
    }
    num_split_blocks_ += cut;
    if (detected_block_pointers_.get_size() == 0) {
        detected_block_pointers_ = array<I>{exec, pointers.begin(), pointers.begin() + num_blocks_ + 1};
    }
    device_block_pointers_ = array<I>{exec, refined.begin(), refined.end()};
    num_blocks_ = refined.size() - 1;
    return true;
}

template <typename V, typename I>
const typename BlockJacobi<V, I>::Report& BlockJacobi<V, I>::report() const
{
    std::lock_guard<std::mutex> guard{report_mutex_};
    if (!report_) {
        report_ = std::make_unique<const Report>(make_report());
    }
    return *report_;
}

template <typename V, typename I>
typename BlockJacobi<V, I>::Report BlockJacobi<V, I>::make_report() const
{
    Report report;
    const auto zero_flags = zero_diagonal_.copy_to_host();
    for (size_type row = 0; row < zero_flags.size(); ++row) {
        if (zero_flags[row] != 0) {
            report.zero_diagonal_rows.push_back(static_cast<I>(row));
        }
    }
    if (kinds_.get_size() == 0) {
        // scalar Jacobi (or an empty matrix): one block per row, stored as the diagonal in V
        report.block_pointers.resize(num_blocks_ + 1);
        for (size_type row = 0; row <= num_blocks_; ++row) {
            report.block_pointers[row] = static_cast<I>(row);
        }
        report.condition_numbers.assign(num_blocks_, 1.0);
        for (const auto row : report.zero_diagonal_rows) {
            report.condition_numbers[row] = std::numeric_limits<double>::infinity();
            report.singular_blocks.push_back(static_cast<size_type>(row));
        }
        report.precisions.assign(num_blocks_, working_precision());
    } else {
        report.block_pointers = device_block_pointers_.copy_to_host();
        report.block_pointers.resize(num_blocks_ + 1);
        const auto kinds = kinds_.copy_to_host();
        const auto cond = block_cond_.copy_to_host();
        const auto codes = precision_codes_.copy_to_host();
        report.condition_numbers.resize(num_blocks_);
        report.precisions.resize(num_blocks_);
        for (size_type block = 0; block < num_blocks_; ++block) {
            const bool singular = kinds[block] == kernels::block_jacobi_storage::diagonal;
            if (singular) {
                report.singular_blocks.push_back(block);
            }
            report.condition_numbers[block] =
                singular ? std::numeric_limits<double>::infinity() : static_cast<double>(cond[block]);
            report.precisions[block] = static_cast<BlockPrecision>(codes[block]);
        }
    }
    report.row_permutation = row_permutation_.copy_to_host();
    report.detected_block_pointers = detected_block_pointers_.get_size() > 0
                                         ? detected_block_pointers_.copy_to_host()
                                         : report.block_pointers;
    return report;
}

template <typename V, typename I>
size_type BlockJacobi<V, I>::get_storage_bytes() const noexcept
{
    return kinds_.get_size() > 0 ? storage_.get_size() : inverse_diagonal_.get_size() * sizeof(V);
}

template <typename V, typename I>
log::PreconditionerReport BlockJacobi<V, I>::get_logger_report() const
{
    const auto& full = report();
    return {get_type_name(), num_blocks_, full.singular_blocks.size(), num_split_blocks_,
            full.zero_diagonal_rows.size()};
}

template <typename V, typename I>
BlockJacobi<V, I>::BlockJacobi(std::shared_ptr<const Executor> exec, const BlockJacobi& other)
    : LinOp(exec, other.get_size()),
      parameters_{other.parameters_},
      inverse_diagonal_{exec, other.inverse_diagonal_},
      zero_diagonal_{exec, other.zero_diagonal_},
      num_blocks_{other.num_blocks_},
      largest_block_{other.largest_block_},
      num_split_blocks_{other.num_split_blocks_},
      device_block_pointers_{exec, other.device_block_pointers_},
      detected_block_pointers_{exec, other.detected_block_pointers_},
      block_cond_{exec, other.block_cond_},
      precision_codes_{exec, other.precision_codes_},
      kinds_{exec, other.kinds_},
      byte_offsets_{exec, other.byte_offsets_},
      storage_{exec, other.storage_},
      pivots_{exec, other.pivots_},
      row_permutation_{exec, other.row_permutation_}
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
        return;
    }
    const auto apply_to = [&](const matrix::Dense<V>& rhs) {
        LARCH_RUN_KERNEL(get_executor(), block_jacobi::apply_blocks, static_cast<V>(alpha), device_block_pointers_,
                         largest_block_, kinds_, precision_codes_, byte_offsets_, storage_, pivots_, rhs,
                         static_cast<V>(beta), dense_x);
    };
    if (row_permutation_.get_size() == 0) {
        apply_to(dense_b);
        return;
    }
    std::lock_guard<std::mutex> guard{gather_mutex_};
    if (!gathered_b_ || gathered_b_->get_size() != dense_b.get_size()) {
        gathered_b_ = matrix::Dense<V>::create(get_executor(), dense_b.get_size());
    }
    LARCH_RUN_KERNEL(get_executor(), halo::gather_rows, dense_b, row_permutation_, *gathered_b_);
    apply_to(*gathered_b_);
}

template <typename V, typename I>
void BlockJacobi<V, I>::apply_with_dot(const matrix::Dense<V>& r, matrix::Dense<V>& z, array<V>& dots,
                                       array<V>& workspace) const
{
    // Built only when a check fails: CG calls this every iteration.
    const auto context = [this] { return get_type_name() + "::apply_with_dot"; };
    LARCH_ENSURE(has_apply_with_dot(), NotSupported,
                 context() + ": only scalar Jacobi (max_block_size 1) fuses the apply with the dot products");
    const auto rows = get_size().rows;
    LARCH_ENSURE(r.get_size().rows == rows && z.get_size() == r.get_size(), DimensionMismatch,
                 context() + ": r is " + to_string(r.get_size()) + " and z " + to_string(z.get_size()) +
                     ", expected both " + std::to_string(rows) + " x k");
    LARCH_ENSURE(dots.get_size() == r.get_size().cols, DimensionMismatch,
                 context() + ": dots has " + std::to_string(dots.get_size()) + " entries for " +
                     std::to_string(r.get_size().cols) + " columns");
    const auto& exec = get_executor();
    for (const auto* other : {r.get_executor().get(), z.get_executor().get(), dots.get_executor().get(),
                              workspace.get_executor().get()}) {
        LARCH_ENSURE(other && exec->memory_accessible(*other), NotSupported,
                     context() + ": an operand does not live on " + exec->get_name());
    }
    LARCH_RUN_KERNEL(exec, block_jacobi::apply_inverse_diagonal_dot, inverse_diagonal_, r, z, dots, workspace);
}

#define LARCH_INSTANTIATE_BLOCK_JACOBI(V, I) template class BlockJacobi<V, I>
LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(LARCH_INSTANTIATE_BLOCK_JACOBI);

}  // namespace preconditioner
}  // namespace larch
