// OpenMP kernels of preconditioner::BlockJacobi: one row or one block per iteration of a parallel loop; the
// applies run on the calling thread for vectors below components::parallel_rows_threshold entries.
#include "core/preconditioner/block_jacobi_kernels.hpp"

#include <cstring>
#include <type_traits>
#include <vector>

#include "core/preconditioner/block_jacobi_item_algorithms.hpp"
#include "core/preconditioner/scalar_jacobi_rule.hpp"
#include "omp/components/contiguous.hpp"
#include "omp/components/column_sums.hpp"
#include "omp/components/parallel_rows.hpp"

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
    const auto b_values = b.get_const_values();
    const auto x_values = x.get_values();
    const auto cols = x.get_size().cols;
    const auto scale_entry = [&](size_type row, size_type b_index, size_type x_index) {
        const auto scaled = alpha * inverse[row] * b_values[b_index];
        auto& out = x_values[x_index];
        out = beta == V{} ? scaled : scaled + beta * out;
    };
    const auto rows = static_cast<std::ptrdiff_t>(x.get_size().rows);
    // A solver's n x 1 vectors: flat loops over the rows, which vectorize (beta is tested outside them).
    if (cols == 1 && components::are_contiguous(b, x)) {
        components::for_each_range(rows, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            if (beta == V{}) {
                for (auto row = begin; row < end; ++row) {
                    x_values[row] = alpha * inverse[row] * b_values[row];
                }
                return;
            }
            for (auto row = begin; row < end; ++row) {
                x_values[row] = alpha * inverse[row] * b_values[row] + beta * x_values[row];
            }
        });
        return;
    }
    components::for_each_row(rows, [&](std::ptrdiff_t signed_row) {
        const auto row = static_cast<size_type>(signed_row);
        for (size_type col = 0; col < cols; ++col) {
            scale_entry(row, row * b.get_stride() + col, row * x.get_stride() + col);
        }
    });
}

template <typename V>
void apply_inverse_diagonal_dot(const DefaultExecutor&, const array<V>& inverse_diagonal, const matrix::Dense<V>& r,
                                matrix::Dense<V>& z, array<V>& dots, array<V>&)
{
    // z is written inside the terms of compute_dot's fixed-order sum (each term is evaluated once), so the
    // sums have compute_dot's bits and r and z are walked once.
    const auto inverse = inverse_diagonal.get_const_data();
    components::fixed_order_column_sums<V>(
        static_cast<std::ptrdiff_t>(z.get_size().rows), components::all_columns(z.get_size().cols), dots.get_data(),
        [inverse](size_type, auto r_column, auto z_column) {
            return [=](std::ptrdiff_t row) {
                const auto r_entry = r_column[row];
                auto& z_entry = z_column[row];
                z_entry = inverse[row] * r_entry;
                return r_entry * z_entry;
            };
        },
        r, z);
}

template <typename V, typename I>
void find_blocks(const DefaultExecutor&, const matrix::Csr<V, I>& a, size_type max_block_size,
                 array<I>& block_pointers, size_type& num_blocks, size_type& largest_block)
{
    const auto num_rows = a.get_size().rows;
    std::vector<std::uint8_t> starts(num_rows);
#pragma omp parallel for
    for (size_type row = 0; row < num_rows; ++row) {
        starts[row] = row == 0 || !kernels::same_pattern_as_previous(a.get_const_row_ptrs(),
                                                                     a.get_const_col_idxs(), row);
    }
    // the greedy agglomeration is one pass over the starts, cheaper than the starts themselves
    num_blocks = block_jacobi_item::agglomerate_supervariables(starts.data(), num_rows, max_block_size,
                                                               block_pointers.get_data(), largest_block);
}

/// Calls generate(b, block, inverse, work) for every block in parallel, each thread with its own scratch
/// vectors (blocks differ in size and cost, hence the dynamic schedule).
template <typename V, typename Generate>
void generate_each_block(size_type num_blocks, Generate&& generate)
{
    const auto count = static_cast<std::int64_t>(num_blocks);
#pragma omp parallel
    {
        std::vector<V> block;
        std::vector<V> inverse;
        std::vector<V> work;
#pragma omp for schedule(dynamic, 256)
        for (std::int64_t b = 0; b < count; ++b) {
            generate(static_cast<size_type>(b), block, inverse, work);
        }
    }
}

template <typename V, typename I>
void generate_inverse_blocks(const DefaultExecutor&, const matrix::Csr<V, I>& a, const array<I>& block_pointers,
                             size_type num_blocks, size_type, bool, const array<std::int64_t>& byte_offsets,
                             array<std::uint8_t>& storage, array<V>& cond, array<std::int32_t>& info,
                             array<V>& norms)
{
    generate_each_block<V>(num_blocks, [&](size_type b, std::vector<V>& block, std::vector<V>& inverse,
                                           std::vector<V>& work) {
        block_jacobi_item::generate_inverse_block(a, b, block_pointers, byte_offsets, storage, cond, info, norms, block,
                                                  inverse, work);
    });
}

template <typename V, typename I>
void generate_factorized_blocks(const DefaultExecutor&, const matrix::Csr<V, I>& a, const array<I>& block_pointers,
                                size_type num_blocks, size_type, bool, bool transposed,
                                const array<std::int64_t>& byte_offsets, array<std::uint8_t>& storage,
                                array<std::int32_t>& pivots, array<V>& cond, array<std::int32_t>& inversion_info,
                                array<std::int32_t>& factorization_info, array<V>& norms)
{
    generate_each_block<V>(num_blocks, [&](size_type b, std::vector<V>& block, std::vector<V>& inverse,
                                           std::vector<V>& work) {
        block_jacobi_item::generate_factorized_block(a, b, block_pointers, transposed, byte_offsets, storage, pivots,
                                                     cond, inversion_info, factorization_info, norms, block, inverse,
                                                     work);
    });
}

template <typename V, typename I>
void classify_blocks(const DefaultExecutor&, const array<I>& block_pointers, const array<V>& cond,
                     const array<std::int32_t>& inversion_info, const array<std::int32_t>& factorization_info,
                     const array<V>& norms, std::uint8_t block_kind, bool adaptive, double accuracy,
                     array<std::uint8_t>& kinds, array<std::uint8_t>& precisions, size_type& num_singular,
                     size_type& first_singular, size_type& num_reduced)
{
    const auto num_blocks = static_cast<std::int64_t>(kinds.get_size());
    std::int64_t singular = 0;
    std::int64_t reduced = 0;
    std::int64_t first = num_blocks;
#pragma omp parallel for reduction(+ : singular, reduced) reduction(min : first)
    for (std::int64_t b = 0; b < num_blocks; ++b) {
        const auto choice = block_jacobi_item::choose_block_storage(static_cast<size_type>(b),
                                                                    block_pointers.get_const_data(), cond,
                                                                    inversion_info, factorization_info, norms,
                                                                    block_kind, adaptive, accuracy);
        kinds.get_data()[b] = choice.kind;
        precisions.get_data()[b] = choice.precision;
        if (choice.kind == block_jacobi_storage::diagonal) {
            first = std::min(first, b);
            ++singular;
        }
        reduced += choice.precision != block_jacobi_rules::working_precision<V>();
    }
    num_singular = static_cast<size_type>(singular);
    num_reduced = static_cast<size_type>(reduced);
    first_singular = static_cast<size_type>(first);
}

template <typename V, typename I>
void compute_block_bytes(const DefaultExecutor&, const array<I>& block_pointers, size_type num_blocks,
                         const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                         array<std::int64_t>& byte_offsets)
{
    const auto pointers = block_pointers.get_const_data();
    const auto count = static_cast<std::int64_t>(num_blocks);
#pragma omp parallel for
    for (std::int64_t b = 0; b < count; ++b) {
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
    const auto num_blocks = static_cast<std::int64_t>(kinds.get_size());
#pragma omp parallel
    {
        std::vector<V> values;
#pragma omp for
        for (std::int64_t b = 0; b < num_blocks; ++b) {
            block_jacobi_item::restore_block(static_cast<size_type>(b), working, working_offsets, inverse_diagonal,
                                             block_pointers, kinds, precisions, byte_offsets, storage, values);
        }
    }
}

namespace {

/// Stored value i of a block (unaligned in the byte storage, hence memcpy) widened to V.
template <typename Stored, typename V>
inline V stored_value(const std::uint8_t* stored, size_type i)
{
    Stored value;
    std::memcpy(&value, stored + i * sizeof(Stored), sizeof(Stored));
    if constexpr (std::is_same_v<Stored, half>) {
        return static_cast<V>(to_float(value));
    } else {
        return static_cast<V>(value);
    }
}

/**
 * x_b = alpha * D_b^{-1} b_b + beta * x_b for an inverse or diagonal block stored as `Stored`, read once in
 * place: the column-major inverse is applied column by column (an axpy over contiguous values per
 * right-hand side), with no copy, transpose or per-value precision branch as in the generic
 * block_jacobi_item::apply_block, which remains for the Gauss-Huard kinds. `sums` is scratch.
 */
template <typename Stored, typename V>
void apply_stored_block(std::uint8_t kind, size_type n, const std::uint8_t* stored, size_type num_cols, V alpha,
                        const V* b, size_type b_stride, V beta, V* x, size_type x_stride, std::vector<V>& sums)
{
    const auto finish = [&](size_type r, size_type col, V sum) {
        auto& out = x[r * x_stride + col];
        out = beta == V{} ? alpha * sum : alpha * sum + beta * out;
    };
    if (kind == block_jacobi_storage::diagonal) {
        for (size_type r = 0; r < n; ++r) {
            const auto d = stored_value<Stored, V>(stored, r);
            for (size_type col = 0; col < num_cols; ++col) {
                finish(r, col, d * b[r * b_stride + col]);
            }
        }
        return;
    }
    sums.assign(n * num_cols, V{});
    for (size_type col = 0; col < num_cols; ++col) {
        V* column_sums = sums.data() + col * n;
        for (size_type c = 0; c < n; ++c) {
            const V b_c = b[c * b_stride + col];
            for (size_type r = 0; r < n; ++r) {
                column_sums[r] += stored_value<Stored, V>(stored, c * n + r) * b_c;
            }
        }
        for (size_type r = 0; r < n; ++r) {
            finish(r, col, column_sums[r]);
        }
    }
}

}  // namespace

template <typename V, typename I>
void apply_blocks(const DefaultExecutor&, V alpha, const array<I>& block_pointers, size_type,
                  const array<std::uint8_t>& kinds, const array<std::uint8_t>& precisions,
                  const array<std::int64_t>& byte_offsets, const array<std::uint8_t>& storage,
                  const array<std::int32_t>& pivots, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const auto pointers = block_pointers.get_const_data();
    const auto num_blocks = static_cast<std::int64_t>(kinds.get_size());
    // `work` is each thread's scratch, reused by its blocks: one allocation per apply and thread, not per block
    const auto apply_one = [&](std::int64_t block, std::vector<V>& work) {
        const auto first = static_cast<size_type>(pointers[block]);
        const auto n = static_cast<size_type>(pointers[block + 1] - pointers[block]);
        const auto kind = kinds.get_const_data()[block];
        const auto precision = precisions.get_const_data()[block];
        const auto stored = storage.get_const_data() + byte_offsets.get_const_data()[block];
        const auto cols = x.get_size().cols;
        const auto b_rows = b.get_const_values() + first * b.get_stride();
        const auto x_rows = x.get_values() + first * x.get_stride();
        if (kind == block_jacobi_storage::inverse || kind == block_jacobi_storage::diagonal) {
            if (precision == block_jacobi_storage::double_precision) {
                apply_stored_block<double>(kind, n, stored, cols, alpha, b_rows, b.get_stride(), beta, x_rows,
                                           x.get_stride(), work);
            } else if (precision == block_jacobi_storage::single_precision) {
                apply_stored_block<float>(kind, n, stored, cols, alpha, b_rows, b.get_stride(), beta, x_rows,
                                          x.get_stride(), work);
            } else {
                apply_stored_block<half>(kind, n, stored, cols, alpha, b_rows, b.get_stride(), beta, x_rows,
                                         x.get_stride(), work);
            }
            return;
        }
        block_jacobi_item::apply_block(kind, precision, n, stored,
                                       pivots.get_size() > 0 ? pivots.get_const_data() + first : nullptr, cols,
                                       alpha, b_rows, b.get_stride(), beta, x_rows, x.get_stride(), work);
    };
    // Each thread takes the blocks of an equal share of the rows, the same on every apply (see
    // components::for_each_range_by_offsets: in a solver's loop its blocks stay in its core's cache).
    components::for_each_range_by_offsets(num_blocks, pointers,
                                          static_cast<std::ptrdiff_t>(x.get_size().rows * x.get_size().cols),
                                          [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                                              std::vector<V> work;
                                              for (auto block = begin; block < end; ++block) {
                                                  apply_one(block, work);
                                              }
                                          });
}

LARCH_INSTANTIATE_BLOCK_JACOBI_KERNELS();

}  // namespace block_jacobi
}  // namespace omp
}  // namespace kernels
}  // namespace larch
