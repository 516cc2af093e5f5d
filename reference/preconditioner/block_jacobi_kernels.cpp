// Reference kernels of preconditioner::BlockJacobi: scalar Jacobi and the block kernels, the specification the
// other backends follow.
#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "core/preconditioner/block_jacobi_item_algorithms.hpp"
#include "core/preconditioner/scalar_jacobi_rule.hpp"

namespace larch {
namespace kernels {
namespace reference {
namespace block_jacobi {

template <typename V, typename I>
void extract_inverse_diagonal(const DefaultExecutor&, const matrix::Csr<V, I>& a, array<V>& inverse_diagonal,
                              array<I>& zero_diagonal)
{
    const auto row_ptrs = a.get_const_row_ptrs();
    const auto col_idxs = a.get_const_col_idxs();
    const auto values = a.get_const_values();
    for (size_type row = 0; row < a.get_size().rows; ++row) {
        V diagonal{};
        for (auto nz = row_ptrs[row]; nz < row_ptrs[row + 1]; ++nz) {
            if (static_cast<size_type>(col_idxs[nz]) == row) {
                diagonal += values[nz];
            }
        }
        const bool unscaled = jacobi_leaves_unscaled(diagonal);
        inverse_diagonal.get_data()[row] = unscaled ? V{1} : V{1} / diagonal;
        zero_diagonal.get_data()[row] = unscaled ? I{1} : I{0};
    }
}

template <typename V>
void apply_inverse_diagonal(const DefaultExecutor&, V alpha, const array<V>& inverse_diagonal,
                            const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto inverse = inverse_diagonal.get_const_data();
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            const auto scaled = alpha * inverse[row] * b.get_const_values()[row * b.get_stride() + col];
            auto& out = x.get_values()[row * x.get_stride() + col];
            out = beta == V{} ? scaled : scaled + beta * out;
        }
    }
}

template <typename V>
void apply_inverse_diagonal_dot(const DefaultExecutor&, const array<V>& inverse_diagonal, const matrix::Dense<V>& r,
                                matrix::Dense<V>& z, array<V>& dots, array<V>&)
{
    for (size_type col = 0; col < z.get_size().cols; ++col) {
        V sum{};
        for (size_type row = 0; row < z.get_size().rows; ++row) {
            const auto r_entry = r.get_const_values()[row * r.get_stride() + col];
            auto& z_entry = z.get_values()[row * z.get_stride() + col];
            z_entry = inverse_diagonal.get_const_data()[row] * r_entry;
            sum += r_entry * z_entry;
        }
        dots.get_data()[col] = sum;
    }
}

template <typename V, typename I>
void find_blocks(const DefaultExecutor&, const matrix::Csr<V, I>& a, size_type max_block_size,
                 array<I>& block_pointers, size_type& num_blocks, size_type& largest_block)
{
    const auto num_rows = a.get_size().rows;
    std::vector<std::uint8_t> starts(num_rows);
    for (size_type row = 0; row < num_rows; ++row) {
        starts[row] = row == 0 || !kernels::same_pattern_as_previous(a.get_const_row_ptrs(),
                                                                     a.get_const_col_idxs(), row);
    }
    num_blocks = block_jacobi_item::agglomerate_supervariables(starts.data(), num_rows, max_block_size,
                                                               block_pointers.get_data(), largest_block);
}

template <typename V, typename I>
void generate_inverse_blocks(const DefaultExecutor&, const matrix::Csr<V, I>& a, const array<I>& block_pointers,
                             size_type num_blocks, size_type, bool, const array<std::int64_t>& byte_offsets,
                             array<std::uint8_t>& storage, array<V>& cond, array<std::int32_t>& info,
                             array<V>& norms)
{
    std::vector<V> block;
    std::vector<V> inverse;
    std::vector<V> work;
    for (size_type b = 0; b < num_blocks; ++b) {
        block_jacobi_item::generate_inverse_block(a, b, block_pointers, byte_offsets, storage, cond, info, norms,
                                                  block, inverse, work);
    }
}

template <typename V, typename I>
void generate_factorized_blocks(const DefaultExecutor&, const matrix::Csr<V, I>& a, const array<I>& block_pointers,
                                size_type num_blocks, size_type, bool, bool transposed,
                                const array<std::int64_t>& byte_offsets, array<std::uint8_t>& storage,
                                array<std::int32_t>& pivots, array<V>& cond, array<std::int32_t>& inversion_info,
                                array<std::int32_t>& factorization_info, array<V>& norms)
{
    std::vector<V> block;
    std::vector<V> inverse;
    std::vector<V> work;
    for (size_type b = 0; b < num_blocks; ++b) {
        block_jacobi_item::generate_factorized_block(a, b, block_pointers, transposed, byte_offsets, storage, pivots,
                                                     cond, inversion_info, factorization_info, norms, block, inverse,
                                                     work);
    }
}

template <typename V, typename I>
void classify_blocks(const DefaultExecutor&, const array<I>& block_pointers, const array<V>& cond,
                     const array<std::int32_t>& inversion_info, const array<std::int32_t>& factorization_info,
                     const array<V>& norms, std::uint8_t block_kind, bool adaptive, double accuracy,
                     array<std::uint8_t>& kinds, array<std::uint8_t>& precisions, size_type& num_singular,
                     size_type& first_singular, size_type& num_reduced)
{
    const auto num_blocks = kinds.get_size();
    num_singular = 0;
    num_reduced = 0;
    first_singular = num_blocks;
    for (size_type b = 0; b < num_blocks; ++b) {
        const auto choice = block_jacobi_item::choose_block_storage(b, block_pointers.get_const_data(), cond,
                                                                    inversion_info, factorization_info, norms,
                                                                    block_kind, adaptive, accuracy);
        kinds.get_data()[b] = choice.kind;
        precisions.get_data()[b] = choice.precision;
        if (choice.kind == block_jacobi_storage::diagonal) {
            first_singular = std::min(first_singular, b);
            ++num_singular;
        }
        num_reduced += choice.precision != block_jacobi_rules::working_precision<V>();
    }
}

template <typename V, typename I>
void compute_block_bytes(const DefaultExecutor&, const array<I>& block_pointers, size_type num_blocks,
                         const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                         array<std::int64_t>& byte_offsets)
{
    const auto pointers = block_pointers.get_const_data();
    for (size_type b = 0; b < num_blocks; ++b) {
        byte_offsets.get_data()[b] = block_jacobi_item::block_bytes<V>(b, pointers, kinds, precisions);
    }
}

template <typename V, typename I>
void restore_blocks(const DefaultExecutor&, const array<std::uint8_t>& working,
                    const array<std::int64_t>& working_offsets, const array<V>& inverse_diagonal,
                    const array<I>& block_pointers, const array<std::uint8_t>& kinds,
                    const array<std::uint8_t>& precisions, const array<std::int64_t>& byte_offsets,
                    array<std::uint8_t>& storage)
{
    std::vector<V> values;
    for (size_type b = 0; b < kinds.get_size(); ++b) {
        block_jacobi_item::restore_block(b, working, working_offsets, inverse_diagonal, block_pointers, kinds,
                                         precisions, byte_offsets, storage, values);
    }
}

template <typename V, typename I>
void apply_blocks(const DefaultExecutor&, V alpha, const array<I>& block_pointers, size_type,
                  const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                  const array<std::int64_t>& byte_offsets, const array<std::uint8_t>& storage,
                  const array<std::int32_t>& pivots, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto pointers = block_pointers.get_const_data();
    const auto num_blocks = static_cast<std::int64_t>(kinds.get_size());
    for (std::int64_t block = 0; block < num_blocks; ++block) {
        std::vector<V> work;
        const auto first = static_cast<size_type>(pointers[block]);
        block_jacobi_item::apply_block(kinds.get_const_data()[block], precisions.get_const_data()[block],
                                       static_cast<size_type>(pointers[block + 1] - pointers[block]),
                                       storage.get_const_data() + byte_offsets.get_const_data()[block],
                                       pivots.get_size() > 0 ? pivots.get_const_data() + first : nullptr, x.get_size().cols, alpha,
                                       b.get_const_values() + first * b.get_stride(), b.get_stride(), beta,
                                       x.get_values() + first * x.get_stride(), x.get_stride(), work);
    }
}

LARCH_INSTANTIATE_BLOCK_JACOBI_KERNELS();

}  // namespace block_jacobi
}  // namespace reference
}  // namespace kernels
}  // namespace larch
