// OpenMP kernels of preconditioner::BlockJacobi: one row or one block per iteration of a parallel loop.
#include "core/preconditioner/block_jacobi_kernels.hpp"
#include "core/preconditioner/block_jacobi_item_algorithms.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace block_jacobi {

template <typename V, typename I>
void extract_inverse_diagonal(const DefaultExecutor&, const matrix::Csr<V, I>& a, array<V>& inverse_diagonal,
                              array<I>& zero_diagonal)
{
    const auto row_ptrs = a.get_const_row_ptrs();
    const auto col_idxs = a.get_const_col_idxs();
    const auto values = a.get_const_values();
#pragma omp parallel for
    for (size_type row = 0; row < a.get_size().rows; ++row) {
        V diagonal{};
        for (auto nz = row_ptrs[row]; nz < row_ptrs[row + 1]; ++nz) {
            if (static_cast<size_type>(col_idxs[nz]) == row) {
                diagonal += values[nz];
            }
        }
        const bool is_zero = diagonal == V{};
        inverse_diagonal.get_data()[row] = is_zero ? V{1} : V{1} / diagonal;
        zero_diagonal.get_data()[row] = is_zero ? I{1} : I{0};
    }
}

template <typename V>
void apply_inverse_diagonal(const DefaultExecutor&, V alpha, const array<V>& inverse_diagonal,
                            const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto inverse = inverse_diagonal.get_const_data();
#pragma omp parallel for
    for (size_type row = 0; row < x.get_size().rows; ++row) {
        for (size_type col = 0; col < x.get_size().cols; ++col) {
            const auto scaled = alpha * inverse[row] * b.get_const_values()[row * b.get_stride() + col];
            auto& out = x.get_values()[row * x.get_stride() + col];
            out = beta == V{} ? scaled : scaled + beta * out;
        }
    }
}

template <typename V, typename I>
void find_supervariable_starts(const DefaultExecutor&, const matrix::Csr<V, I>& a, array<std::uint8_t>& starts)
{
    const auto row_ptrs = a.get_const_row_ptrs();
    const auto col_idxs = a.get_const_col_idxs();
    const auto num_rows = a.get_size().rows;
#pragma omp parallel for
    for (size_type row = 0; row < num_rows; ++row) {
        starts.get_data()[row] =
            row == 0 || !block_jacobi_item::same_pattern_as_previous(row_ptrs, col_idxs, row) ? 1 : 0;
    }
}

template <typename V, typename I>
void extract_diagonal_blocks(const DefaultExecutor&, const matrix::Csr<V, I>& a, const array<I>& block_pointers,
                             batch::Dense<V>& blocks)
{
    const auto pointers = block_pointers.get_const_data();
    const auto num_blocks = static_cast<std::int64_t>(blocks.get_num_items());
#pragma omp parallel for
    for (std::int64_t block = 0; block < num_blocks; ++block) {
        block_jacobi_item::extract_block(a.get_const_row_ptrs(), a.get_const_col_idxs(), a.get_const_values(),
                                         pointers[block], pointers[block + 1] - pointers[block],
                                         blocks.get_values() + blocks.get_layout().get_offset(block));
    }
}

template <typename V, typename I>
void generate_inverse_blocks(const DefaultExecutor&, const matrix::Csr<V, I>& a, const array<I>& block_pointers,
                             size_type, bool, batch::Dense<V>& inverses, array<V>& cond, array<std::int32_t>& info)
{
    const auto pointers = block_pointers.get_const_data();
    const auto num_blocks = static_cast<std::int64_t>(inverses.get_num_items());
#pragma omp parallel
    {
        std::vector<V> block;
        std::vector<V> work;
#pragma omp for schedule(dynamic, 256)
        for (std::int64_t b = 0; b < num_blocks; ++b) {
            info.get_data()[b] = block_jacobi_item::invert_block(
                a.get_const_row_ptrs(), a.get_const_col_idxs(), a.get_const_values(), pointers[b],
                pointers[b + 1] - pointers[b], inverses.get_values() + inverses.get_layout().get_offset(b),
                cond.get_data()[b], block, work);
        }
    }
}

template <typename V, typename I>
void store_blocks(const DefaultExecutor&, const batch::Dense<V>& blocks, const array<V>& inverse_diagonal,
                  const array<I>& block_pointers, const array<std::uint8_t>& kinds,
                  const array<std::uint8_t>& precisions, const array<std::int64_t>& byte_offsets,
                  array<std::uint8_t>& storage)
{
    const auto pointers = block_pointers.get_const_data();
    const auto num_blocks = static_cast<std::int64_t>(kinds.get_size());
#pragma omp parallel
    {
        std::vector<V> work;
#pragma omp for
        for (std::int64_t block = 0; block < num_blocks; ++block) {
            const auto n = static_cast<size_type>(pointers[block + 1] - pointers[block]);
            const bool diagonal = kinds.get_const_data()[block] == block_jacobi_storage::diagonal;
            const V* values = diagonal ? inverse_diagonal.get_const_data() + pointers[block]
                                       : blocks.get_const_values() + blocks.get_layout().get_offset(block);
            block_jacobi_item::store_values(values, diagonal ? n : n * n, precisions.get_const_data()[block],
                                            storage.get_data() + byte_offsets.get_const_data()[block],
                                            kinds.get_const_data()[block] == block_jacobi_storage::inverse, n, work);
        }
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
#pragma omp parallel for schedule(dynamic, 16)
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
}  // namespace omp
}  // namespace kernels
}  // namespace larch
