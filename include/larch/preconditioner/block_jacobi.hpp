// preconditioner::BlockJacobi<V, I>: the (block-)Jacobi preconditioner generated from a Csr matrix: diagonal
// blocks found by supervariable detection (or given), inverted (Gauss-Jordan) or factorized (Gauss-Huard),
// stored in a per-block precision and applied as a batched block-diagonal product or solve.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/enable_factory.hpp"
#include "larch/base/lin_op.hpp"
#include "larch/log/convergence.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/preconditioner/apply_with_dot.hpp"
#include "larch/preconditioner/diagonal_scaling.hpp"

namespace larch {
namespace preconditioner {

/// How each diagonal block is processed at generation (Anzt et al. 2018, batched Gauss-Jordan; Anzt et al.
/// 2017, batched Gauss-Huard).
enum class BlockJacobiAlgorithm {
    gauss_jordan,           ///< explicit inverse by Gauss-Jordan with partial pivoting; apply = block gemv
    gauss_huard,            ///< Gauss-Huard factors (BGH); apply = Gauss-Huard solve
    gauss_huard_transposed  ///< Gauss-Huard factors with U stored transposed (BGHT); apply = solve
};

/// In which precision the blocks are stored (they are always applied in the working precision V).
enum class BlockJacobiStorage {
    working,  ///< every block in V
    adaptive  ///< per block the cheapest of double / float / half that keeps u * cond_inf < accuracy
};

/// How the GPU generation kernel reads each diagonal block from the CSR matrix (host executors ignore it;
/// both give the same blocks). The kernel extracts, inverts (Gauss-Jordan, with the condition number) and
/// writes every block in one pass, the block staged in the sub-warp's shared-memory tile.
enum class BlockJacobiExtraction {
    cached,  ///< each thread walks its own row of the block in the CSR arrays (reads served by the caches)
    shared   ///< the sub-warp reads each row of the block coalesced (one entry per lane) into shared memory
};

/// What generation does with a singular or numerically singular diagonal block.
enum class SingularBlockPolicy {
    fallback,  ///< the block's rows use scalar Jacobi (1 / a_ii, 1 for a zero diagonal); reported
    throw_error  ///< generation throws BadInput naming the first such block
};

/// Whether the blocks are those of A or of P A, P a row permutation that moves large entries onto the diagonal.
enum class BlockJacobiRowMatching {
    automatic,       ///< maximum_product when blocks are detected (max_block_size > 1, no block_pointers) and
                     ///< A has a zero or missing diagonal entry; none otherwise
    none,            ///< the diagonal blocks of A
    maximum_product  ///< the diagonal blocks of P A, P the maximum product matching (needs max_block_size > 1
                     ///< or block_pointers)
};

/// Storage precision of one block, as reported by get_block_precisions().
enum class BlockPrecision : std::uint8_t { double_precision = 0, single_precision = 1, half_precision = 2 };

/**
 * Block-Jacobi preconditioner: apply(b, x) computes x = D^{-1} b, where D holds the diagonal blocks of the
 * system matrix. With max_block_size = 1 (the default) it is scalar Jacobi: D is the diagonal.
 *
 * Blocks: `block_pointers` (num_blocks + 1 ascending row offsets from 0 to n) when given, taken as they
 * are (max_block_size does not bound them), otherwise supervariable blocking: consecutive rows with identical column patterns form a supervariable, a
 * supervariable longer than max_block_size is split into pieces of max_block_size rows, and consecutive
 * supervariables are agglomerated greedily while the block stays within max_block_size. max_block_size
 * may be any positive value on reference and omp (above the number of rows it acts as that number); on
 * cuda and hip it is limited to 32 (the register kernels' bound; larger values throw NotSupported), and
 * so are user block pointers.
 *
 * Generation (one pass over A plus O(sum n_b^3) flops): with Gauss-Jordan each block is extracted from the
 * CSR matrix, inverted and its condition number cond_inf = ||A_b||_inf ||A_b^-1||_inf computed in one pass
 * (one kernel on GPUs, extraction by the `extraction` loader; the same values as batch::CondEstimator);
 * the Gauss-Huard algorithms do the same and then factorize the block in the same pass (the same factors
 * and pivots as batch::GaussHuard), storing the factors instead of the inverse. Inverses are stored
 * column-major, so that the GPU apply reads them coalesced.
 *
 * Singular blocks: a block is singular when the elimination meets a zero or tiny pivot, its condition
 * number is above 1 / (n_b eps) or not finite. With on_singular_block = fallback (the default) such a
 * block is split into two halves (the first n_b / 2 rows and the rest) and both are generated again,
 * recursively; a singular block of one row (a zero diagonal entry) uses scalar Jacobi with the zero
 * diagonal rule below. So the preconditioner stays usable and never holds a half-processed inverse;
 * get_num_split_blocks() counts the splits, get_singular_blocks() lists the one-row fallback blocks, and
 * get_block_pointers() gives the final blocks (user block pointers are split likewise). With throw_error
 * generation throws BadInput naming the first singular block. Scalar Jacobi (max_block_size 1) has a block
 * per row: a row under the zero diagonal rule is a singular block, reported and thrown alike.
 *
 * Adaptive precision: with storage_precision = adaptive each regular block is stored in the cheapest of
 * double / float / half (not above V) whose unit roundoff u satisfies u * cond_inf(A_b) < accuracy and
 * whose range holds the stored entries (Gauss-Huard factors: double or float only, since half's range
 * cannot hold small pivots); get_storage_bytes() reports the memory the blocks take.
 *
 * Row matching: on a matrix with zero diagonal entries (saddle points, circuits, chemistry) the diagonal
 * blocks of A are often singular, and their scalar fallback hardly preconditions. With row_matching =
 * maximum_product, or automatic (the default) when A has a zero or missing diagonal entry and blocks are
 * detected, the preconditioner is built on P A instead, where P is the maximum product matching (Duff and
 * Koster 2001: the permutation whose diagonal has the largest product of magnitudes, found on the host in
 * O(nnz) for most matrices, at worst O(n nnz log n)): apply computes x = D^{-1} (P b) with D the diagonal
 * blocks of P A, so D^{-1} P approximates A^{-1}. Everything reported (blocks, zero diagonal rows, singular
 * blocks, condition numbers) then refers to the rows of P A; get_row_permutation() gives P. The apply
 * gathers b by P into a workspace kept with the preconditioner (one gather pass more; applies of one
 * preconditioner from several threads are serialized).
 *
 * Zero diagonal rule (scalar Jacobi and fallback blocks): a diagonal entry a(i, i) whose reciprocal is not
 * a finite number (zero, missing, NaN, or subnormal so that 1 / a(i, i) overflows) gives D^{-1}(i, i) = 1,
 * i.e. that row of the residual is passed through unscaled instead of scaled by Inf or NaN. The rows
 * concerned are reported by get_zero_diagonal_rows().
 *
 * Runs on reference, omp, cuda and hip.
 *
 *     auto jacobi = preconditioner::BlockJacobi<double>::build().with_max_block_size(32).on(exec)->generate(A);
 */
template <typename V, typename I = std::int32_t>
class BlockJacobi : public LinOp,
                    public log::ReportsToLoggers,
                    public ApplyWithDot<V>,
                    public DiagonalScaling<V> {
public:
    static_assert(is_instantiated_value_type<V>, LARCH_VALUE_TYPE_MESSAGE);
    static_assert(is_instantiated_index_type<I>, LARCH_INDEX_TYPE_MESSAGE);
    using value_type = V;
    using index_type = I;

    class Factory;
    struct parameters_type : enable_parameters<parameters_type, Factory> {
        /// The largest diagonal block; 1 = scalar Jacobi. At most 32 on cuda and hip.
        size_type max_block_size = 1;
        /// Row offsets of the blocks (num_blocks + 1 entries, 0 to n, ascending); empty = detect blocks.
        std::vector<I> block_pointers{};
        BlockJacobiAlgorithm algorithm = BlockJacobiAlgorithm::gauss_jordan;
        BlockJacobiStorage storage_precision = BlockJacobiStorage::working;
        /// The accuracy of adaptive storage: u * cond_inf(block) must stay below it; in (0, 1].
        double accuracy = 1e-1;
        SingularBlockPolicy on_singular_block = SingularBlockPolicy::fallback;
        /// The GPU extraction of the Gauss-Jordan generation kernel. `cached` is the default: on the H100 at
        /// 1,000,000 rows it generated faster at bound 32 on all four test structures (0.89-1.36 ms against
        /// 1.01-1.51 ms for `shared`; at bound 8 the two are within 6%; benchmark/results/block_jacobi_h100.json).
        BlockJacobiExtraction extraction = BlockJacobiExtraction::cached;
        BlockJacobiRowMatching row_matching = BlockJacobiRowMatching::automatic;

        parameters_type& with_max_block_size(size_type value)
        {
            max_block_size = value;
            return *this;
        }
        parameters_type& with_block_pointers(std::vector<I> value)
        {
            block_pointers = std::move(value);
            return *this;
        }
        parameters_type& with_algorithm(BlockJacobiAlgorithm value)
        {
            algorithm = value;
            return *this;
        }
        parameters_type& with_storage_precision(BlockJacobiStorage value)
        {
            storage_precision = value;
            return *this;
        }
        parameters_type& with_accuracy(double value)
        {
            accuracy = value;
            return *this;
        }
        parameters_type& with_on_singular_block(SingularBlockPolicy value)
        {
            on_singular_block = value;
            return *this;
        }
        parameters_type& with_extraction(BlockJacobiExtraction value)
        {
            extraction = value;
            return *this;
        }
        parameters_type& with_row_matching(BlockJacobiRowMatching value)
        {
            row_matching = value;
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
     * `exec` if it lives elsewhere). Throws BadInput (max_block_size 0, invalid block_pointers, accuracy
     * outside (0, 1], a singular block with on_singular_block = throw_error, row_matching = maximum_product
     * for scalar Jacobi), NotSupported (another matrix
     * type, a block above 32 rows on a GPU), DimensionMismatch (not square).
     */
    static std::unique_ptr<BlockJacobi> create(std::shared_ptr<const Executor> exec,
                                               const parameters_type& parameters,
                                               std::shared_ptr<const LinOp> system_matrix);

    const parameters_type& get_parameters() const noexcept { return parameters_; }
    /// The scalar Jacobi D^{-1} (num_rows entries on the executor), used by max_block_size 1 and by the
    /// rows of fallback blocks.
    const array<V>& get_inverse_diagonal() const noexcept { return inverse_diagonal_; }
    // The reports below stay on the executor during generation and are copied to the host on the first
    // query (thread-safe); the references they return live as long as the preconditioner.

    /// Rows whose diagonal entry is zero, missing, NaN or subnormal (their D^{-1} entry is 1), ascending.
    const std::vector<I>& get_zero_diagonal_rows() const { return report().zero_diagonal_rows; }
    size_type get_num_zero_diagonal_rows() const { return report().zero_diagonal_rows.size(); }

    /// The row matching P (host copy): row k of P A is row get_row_permutation()[k] of A; empty when the
    /// blocks are those of A.
    const std::vector<I>& get_row_permutation() const { return report().row_permutation; }
    /// Number of diagonal blocks (num_rows for scalar Jacobi).
    size_type get_num_blocks() const noexcept { return num_blocks_; }
    /// Row offsets of the blocks, num_blocks + 1 entries (host copy).
    const std::vector<I>& get_block_pointers() const { return report().block_pointers; }
    /// The blocks as detected (supervariable blocking) or given, before singular blocks were split (host copy).
    const std::vector<I>& get_detected_block_pointers() const { return report().detected_block_pointers; }
    /// How many singular blocks were split in halves during generation.
    size_type get_num_split_blocks() const noexcept { return num_split_blocks_; }
    /// Blocks still singular at one row (zero diagonal; scalar Jacobi with the zero diagonal rule), ascending;
    /// with max_block_size 1 the blocks are the rows, so these are get_zero_diagonal_rows().
    const std::vector<size_type>& get_singular_blocks() const { return report().singular_blocks; }
    size_type get_num_singular_blocks() const { return report().singular_blocks.size(); }
    /// cond_inf of every block (+inf for a singular one; |a_ii| / |a_ii| = 1 for scalar Jacobi rows).
    const std::vector<double>& get_condition_numbers() const { return report().condition_numbers; }
    /// Storage precision of every block (a fallback block is stored as its diagonal in V).
    const std::vector<BlockPrecision>& get_block_precisions() const { return report().precisions; }
    /// Bytes the stored blocks take (the block values only; with max_block_size 1, the diagonal).
    size_type get_storage_bytes() const noexcept;
    /// Scalar Jacobi (max_block_size 1) fuses its apply with the dot products r^T z (ApplyWithDot).
    bool has_apply_with_dot() const noexcept override { return kinds_.get_size() == 0; }
    void apply_with_dot(const matrix::Dense<V>& r, matrix::Dense<V>& z, array<V>& dots,
                        array<V>& workspace) const override;
    /// Scalar Jacobi (max_block_size 1) is the scaling by its inverse diagonal (DiagonalScaling).
    const array<V>* get_scaling_diagonal() const noexcept override
    {
        return kinds_.get_size() == 0 ? &inverse_diagonal_ : nullptr;
    }
    /// The fallback blocks, splits and zero diagonal rows, for a solver's loggers (log::Convergence).
    log::PreconditionerReport get_logger_report() const override;

    std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const override;
    std::string get_type_name() const override;

protected:
    BlockJacobi(std::shared_ptr<const Executor> exec, const parameters_type& parameters,
                const matrix::Csr<V, I>& system_matrix);
    BlockJacobi(std::shared_ptr<const Executor> exec, const BlockJacobi& other);

    void apply_impl(const LinOp& b, LinOp& x) const override;
    void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const override;

private:
    /// What the queries report, copied from the executor on first use.
    struct Report {
        std::vector<I> zero_diagonal_rows;
        std::vector<I> block_pointers;
        std::vector<I> detected_block_pointers;
        std::vector<size_type> singular_blocks;
        std::vector<double> condition_numbers;
        std::vector<BlockPrecision> precisions;
        std::vector<I> row_permutation;
    };

    static BlockPrecision working_precision();
    bool uses_row_matching() const;
    void generate_blocks(const matrix::Csr<V, I>& system_matrix);
    [[noreturn]] void throw_singular_block(size_type block) const;
    /// Splits every singular block of more than one row in halves; false if there is none.
    bool split_singular_blocks();
    const Report& report() const;
    Report make_report() const;

    parameters_type parameters_;
    array<V> inverse_diagonal_;
    array<I> zero_diagonal_;  // 1 where the diagonal entry is zero or missing, per row
    size_type num_blocks_ = 0;
    size_type largest_block_ = 1;
    size_type num_split_blocks_ = 0;
    // The block storage (empty for scalar Jacobi): block b's entries in precision precision_codes_[b],
    // kind kinds_[b] (see core/preconditioner/block_jacobi_kernels.hpp), from byte byte_offsets_[b].
    array<I> device_block_pointers_;
    array<I> detected_block_pointers_;  // empty unless singular blocks were split
    array<V> block_cond_;
    array<std::uint8_t> precision_codes_;
    array<std::uint8_t> kinds_;
    array<std::int64_t> byte_offsets_;
    array<std::uint8_t> storage_;
    array<std::int32_t> pivots_;
    array<I> row_permutation_;  // empty without row matching
    // P b during an apply with row matching, kept between applies (guarded by gather_mutex_)
    mutable std::unique_ptr<matrix::Dense<V>> gathered_b_;
    mutable std::mutex gather_mutex_;
    mutable std::mutex report_mutex_;
    mutable std::unique_ptr<const Report> report_;
};

}  // namespace preconditioner
}  // namespace larch
