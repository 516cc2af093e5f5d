// OpenMP kernels of matrix::Csr: SpMV and conversions in parallel over rows (SpMV on the calling thread below
// components::parallel_rows_threshold stored entries); transpose by a counting sort over blocks of rows (one
// block per thread).
#include "core/matrix/csr_kernels.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "core/components/prefix_sum_kernels.hpp"
#include "core/matrix/csr_row_pattern.hpp"
#include "omp/components/parallel_rows.hpp"

namespace larch {
namespace kernels {
namespace omp {
namespace csr {

namespace {

/// What the SpMV row loop reads and writes, as plain values: a copy of them in the loop's own frame stays
/// in registers, where values captured by reference were reloaded at every row (a double written to x
/// might alias alpha or beta), which cost about 4 cycles per row, 30% of the time on rows of 5 entries
/// (bentpipe2d100: 45 -> 31 us).
template <typename V, typename I>
struct SpmvOperands {
    V alpha;
    const I* row_ptrs;
    const I* col_idxs;
    const V* values;
    const V* b;
    size_type b_stride;
    V beta;
    V* x;
    size_type x_stride;
};

/**
 * Rows that share their column indices with the next row (same_as_next[row] != 0): consecutive rows of one
 * pattern, as FEM matrices with several unknowns per node have (PETSc's "inodes"). The SpMV multiplies up to
 * max_group_rows such rows side by side and reads their column indices and b's entries once for all of
 * them: the row loop is bound by its loads (a value, a column index and an entry of b per nonzero), so
 * a group of g rows loads 1 + 2 / g values per nonzero instead of 3. Kept in the matrix's SpMV cache
 * (Csr::get_spmv_cache), made by the first apply; same_as_next stays empty where too few rows share a
 * pattern to pay.
 */
struct SamePatternRows {
    static constexpr int max_group_rows = 4;
    std::vector<unsigned char> same_as_next;
};

template <typename V, typename I>
std::shared_ptr<SamePatternRows> same_pattern_rows(const matrix::Csr<V, I>& a)
{
    const auto rows = static_cast<std::ptrdiff_t>(a.get_size().rows);
    const auto row_ptrs = a.get_const_row_ptrs();
    const auto col_idxs = a.get_const_col_idxs();
    std::vector<unsigned char> same_as_next(static_cast<size_type>(rows), 0);
    auto flags = same_as_next.data();
    components::for_each_row(rows - 1, [=](std::ptrdiff_t row) {
        flags[row] = same_pattern_as_previous(row_ptrs, col_idxs, static_cast<size_type>(row + 1));
    });
    auto groups = std::make_shared<SamePatternRows>();
    // Worth a byte per row only where at least one row in eight starts or continues a group.
    const auto shared = std::count(same_as_next.begin(), same_as_next.end(), 1);
    if (shared > 0 && 8 * shared >= rows) {
        groups->same_as_next = std::move(same_as_next);
    }
    return groups;
}

/// x(row, j) = alpha (A b)(row, j) + beta x(row, j) for the num_rhs columns of b, row by row, each row summed
/// from its first entry to its last, as on the reference executor (the same bits). unit_stride (b is one
/// column of stride 1, a solver's vector) makes the stride a constant: the inner loops then have no
/// multiplication per entry and enough registers for their bounds.
template <bool unit_stride, typename V, typename I>
struct RowProducts {
    SpmvOperands<V, I> op;
    size_type num_rhs;

    size_type cols() const { return unit_stride ? size_type{1} : num_rhs; }
    const V& b(I col, size_type j) const { return op.b[col * (unit_stride ? size_type{1} : op.b_stride) + j]; }
    V product(I k, size_type j) const { return op.values[k] * b(op.col_idxs[k], j); }
    void store(std::ptrdiff_t row, size_type j, V sum) const
    {
        auto& entry = op.x[row * op.x_stride + j];
        entry = op.beta == V{} ? op.alpha * sum : op.alpha * sum + op.beta * entry;
    }

    void single(std::ptrdiff_t row) const
    {
        for (size_type j = 0; j < cols(); ++j) {
            V sum{};
            for (auto k = op.row_ptrs[row]; k < op.row_ptrs[row + 1]; ++k) {
                sum += product(k, j);
            }
            store(row, j, sum);
        }
    }

    /// Rows `row` and `row + 1` side by side over the length of the shorter one: a row's sum is a chain of
    /// dependent additions, and two independent chains let the core overlap them (e05r0500, 25 entries per
    /// row: 3.6 -> 2.9 us per product; rows of 4-7 entries gain up to 7%; four rows side by side were
    /// slower).
    void pair(std::ptrdiff_t row) const
    {
        const auto first = op.row_ptrs[row];
        const auto second = op.row_ptrs[row + 1];
        const auto last = op.row_ptrs[row + 2];
        const auto common = std::min(second - first, last - second);
        for (size_type j = 0; j < cols(); ++j) {
            V first_sum{};
            V second_sum{};
            for (I k = 0; k < common; ++k) {
                first_sum += product(first + k, j);
                second_sum += product(second + k, j);
            }
            for (auto k = first + common; k < second; ++k) {
                first_sum += product(k, j);
            }
            for (auto k = second + common; k < last; ++k) {
                second_sum += product(k, j);
            }
            store(row, j, first_sum);
            store(row + 1, j, second_sum);
        }
    }

    /// Columns j0, ..., j0 + width - 1 of row `row`: each entry's value and column index loaded once for all
    /// of them, whose sums are `width` independent chains over contiguous entries of a row of b (one column
    /// after the other, the chains were the row's length, and each entry was loaded once per column).
    template <size_type width>
    void columns(std::ptrdiff_t row, size_type j0) const
    {
        V sums[width]{};
        for (auto k = op.row_ptrs[row]; k < op.row_ptrs[row + 1]; ++k) {
            const auto value = op.values[k];
            const auto b_row = op.b + op.col_idxs[k] * op.b_stride + j0;
            for (size_type j = 0; j < width; ++j) {
                sums[j] += value * b_row[j];
            }
        }
        for (size_type j = 0; j < width; ++j) {
            store(row, j0 + j, sums[j]);
        }
    }

    /// Every column of row `row`, 8 at a time, then the rest one by one. Each sum still adds the row's
    /// products from its first entry to its last (the reference's bits).
    void every_column(std::ptrdiff_t row) const
    {
        constexpr size_type width = 8;
        size_type j0 = 0;
        for (; j0 + width <= num_rhs; j0 += width) {
            columns<width>(row, j0);
        }
        for (; j0 < num_rhs; ++j0) {
            columns<1>(row, j0);
        }
    }

    /// `count` rows from `row` on, all of the pattern of `row` (SamePatternRows): each column index and
    /// entry of b loaded once for all of them.
    template <int count>
    void same_pattern(std::ptrdiff_t row) const
    {
        const auto first = op.row_ptrs[row];
        const auto length = op.row_ptrs[row + 1] - first;
        for (size_type j = 0; j < cols(); ++j) {
            V sums[count]{};
            for (I k = 0; k < length; ++k) {
                const auto b_entry = b(op.col_idxs[first + k], j);
                for (int r = 0; r < count; ++r) {
                    sums[r] += op.values[first + r * length + k] * b_entry;
                }
            }
            for (int r = 0; r < count; ++r) {
                store(row + r, j, sums[r]);
            }
        }
    }
};

/// The rows in [begin, end), in pairs.
template <bool unit_stride, typename V, typename I>
void spmv_rows(RowProducts<unit_stride, V, I> rows, std::ptrdiff_t begin, std::ptrdiff_t end)
{
    auto row = begin;
    for (; row + 1 < end; row += 2) {
        rows.pair(row);
    }
    if (row < end) {
        rows.single(row);
    }
}

/// The rows in [begin, end) of a matrix with row groups (SamePatternRows::same_as_next): each group of up to
/// max_group_rows rows side by side, the other rows one at a time. A separate loop from spmv_rows, which
/// matrices without groups keep: looking for groups there made them 18-21% slower (BiCGSTAB iterations on
/// orsirr_1, sherman3, bentpipe2d100 and watt_1, one thread).
template <bool unit_stride, typename V, typename I>
void spmv_grouped_rows(RowProducts<unit_stride, V, I> rows, const unsigned char* same_as_next,
                       std::ptrdiff_t begin, std::ptrdiff_t end)
{
    for (auto row = begin; row < end;) {
        std::ptrdiff_t count = 1;
        while (count < SamePatternRows::max_group_rows && row + count < end && same_as_next[row + count - 1]) {
            ++count;
        }
        switch (count) {
        case 4:
            rows.template same_pattern<4>(row);
            break;
        case 3:
            rows.template same_pattern<3>(row);
            break;
        case 2:
            rows.template same_pattern<2>(row);
            break;
        default:
            rows.single(row);
        }
        row += count;
    }
}

template <bool unit_stride, typename V, typename I>
void spmv_range(RowProducts<unit_stride, V, I> rows, const unsigned char* same_as_next,
                std::ptrdiff_t begin, std::ptrdiff_t end)
{
    if (rows.num_rhs > 1) {
        for (auto row = begin; row < end; ++row) {
            rows.every_column(row);
        }
    } else if (same_as_next) {
        spmv_grouped_rows(rows, same_as_next, begin, end);
    } else {
        spmv_rows(rows, begin, end);
    }
}

}  // namespace

template <typename V, typename I>
void spmv(const DefaultExecutor&, V alpha, const matrix::Csr<V, I>& a, const matrix::Dense<V>& b,
          V beta, matrix::Dense<V>& x)
{
    const SpmvOperands<V, I> operands{alpha,           a.get_const_row_ptrs(), a.get_const_col_idxs(),
                                      a.get_const_values(), b.get_const_values(), b.get_stride(),
                                      beta,            x.get_values(),         x.get_stride()};
    const auto num_rhs = b.get_size().cols;
    const auto entries = static_cast<std::ptrdiff_t>(a.get_num_stored_elements() * num_rhs);
    // The row groups, found once, on the first apply.
    auto groups = std::static_pointer_cast<const SamePatternRows>(a.get_spmv_cache());
    if (!groups) {
        auto found = same_pattern_rows(a);
        a.set_spmv_cache(found);
        groups = std::move(found);
    }
    const unsigned char* same_as_next = groups->same_as_next.empty() ? nullptr : groups->same_as_next.data();
    const bool unit_stride = num_rhs == 1 && operands.b_stride == 1;
    const auto rows = static_cast<std::ptrdiff_t>(a.get_size().rows);
    components::for_each_range_by_offsets(rows, a.get_const_row_ptrs(), entries,
                                          [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                                              if (unit_stride) {
                                                  spmv_range(RowProducts<true, V, I>{operands, num_rhs},
                                                             same_as_next, begin, end);
                                              } else {
                                                  spmv_range(RowProducts<false, V, I>{operands, num_rhs},
                                                             same_as_next, begin, end);
                                              }
                                          });
}

template <typename V, typename I>
void convert_to_coo(const DefaultExecutor&, const matrix::Csr<V, I>& source,
                    matrix::Coo<V, I>& result)
{
    const auto row_ptrs = source.get_const_row_ptrs();
    const auto rows = static_cast<std::ptrdiff_t>(source.get_size().rows);
#pragma omp parallel for
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        std::fill(result.get_row_idxs() + row_ptrs[row], result.get_row_idxs() + row_ptrs[row + 1],
                  static_cast<I>(row));
    }
}

template <typename V, typename I>
void compute_max_row_nnz(const DefaultExecutor&, const matrix::Csr<V, I>& source, size_type& result)
{
    const auto row_ptrs = source.get_const_row_ptrs();
    const auto rows = static_cast<std::ptrdiff_t>(source.get_size().rows);
    size_type max_row_nnz = 0;
#pragma omp parallel for reduction(max : max_row_nnz)
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        max_row_nnz = std::max(max_row_nnz, static_cast<size_type>(row_ptrs[row + 1] - row_ptrs[row]));
    }
    result = max_row_nnz;
}

template <typename V, typename I>
void convert_to_ell(const DefaultExecutor&, const matrix::Csr<V, I>& source,
                    matrix::Ell<V, I>& result)
{
    const auto row_ptrs = source.get_const_row_ptrs();
    const auto stride = result.get_stride();
    const auto rows = static_cast<std::ptrdiff_t>(source.get_size().rows);
#pragma omp parallel for
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        size_type slot = 0;
        for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k, ++slot) {
            result.get_col_idxs()[slot * stride + row] = source.get_const_col_idxs()[k];
            result.get_values()[slot * stride + row] = source.get_const_values()[k];
        }
        for (; slot < result.get_num_stored_per_row(); ++slot) {
            result.get_col_idxs()[slot * stride + row] = matrix::Ell<V, I>::invalid_index;
            result.get_values()[slot * stride + row] = V{};
        }
    }
}

template <typename V, typename I>
void convert_to_dense(const DefaultExecutor&, const matrix::Csr<V, I>& source,
                      matrix::Dense<V>& result)
{
    const auto row_ptrs = source.get_const_row_ptrs();
    const auto rows = static_cast<std::ptrdiff_t>(source.get_size().rows);
#pragma omp parallel for
    for (std::ptrdiff_t row = 0; row < rows; ++row) {
        for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
            result.get_values()[row * result.get_stride() + source.get_const_col_idxs()[k]] =
                source.get_const_values()[k];
        }
    }
}

template <typename V, typename I>
void transpose(const DefaultExecutor& exec, const matrix::Csr<V, I>& source,
               matrix::Csr<V, I>& result)
{
    // A counting sort by column over blocks of consecutive rows: each block counts its entries per
    // column, the counts are turned into each block's first position in every new row, and each block
    // scatters its rows in order. Blocks are ordered by row, so every new row comes out sorted.
    // block_next holds blocks x cols counters; limiting the blocks to nnz / cols keeps it no larger
    // than the matrix.
    const auto rows = source.get_size().rows;
    const auto cols = source.get_size().cols;
    const auto nnz = source.get_num_stored_elements();
    const auto row_ptrs = source.get_const_row_ptrs();
    const auto col_idxs = source.get_const_col_idxs();
    const auto num_blocks = static_cast<std::ptrdiff_t>(std::max<size_type>(
        1, std::min<size_type>(exec.get_num_threads(), nnz / std::max<size_type>(cols, 1))));
    auto block_first_row = [&](std::ptrdiff_t block) { return rows * block / num_blocks; };
    std::vector<I> block_next(num_blocks * cols, I{});
#pragma omp parallel for schedule(static, 1)
    for (std::ptrdiff_t block = 0; block < num_blocks; ++block) {
        auto counts = block_next.data() + block * cols;
        for (auto row = block_first_row(block); row < block_first_row(block + 1); ++row) {
            for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
                ++counts[col_idxs[k]];
            }
        }
    }
    auto result_row_ptrs = result.get_row_ptrs();
    const auto signed_cols = static_cast<std::ptrdiff_t>(cols);
#pragma omp parallel for
    for (std::ptrdiff_t col = 0; col < signed_cols; ++col) {
        I column_nnz{};
        for (std::ptrdiff_t block = 0; block < num_blocks; ++block) {
            column_nnz += block_next[block * cols + col];
        }
        result_row_ptrs[col] = column_nnz;
    }
    components::prefix_sum(exec, result_row_ptrs, cols + 1);
#pragma omp parallel for
    for (std::ptrdiff_t col = 0; col < signed_cols; ++col) {
        auto next = result_row_ptrs[col];
        for (std::ptrdiff_t block = 0; block < num_blocks; ++block) {
            const auto count = block_next[block * cols + col];
            block_next[block * cols + col] = next;
            next += count;
        }
    }
#pragma omp parallel for schedule(static, 1)
    for (std::ptrdiff_t block = 0; block < num_blocks; ++block) {
        auto next = block_next.data() + block * cols;
        for (auto row = block_first_row(block); row < block_first_row(block + 1); ++row) {
            for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
                const auto position = next[col_idxs[k]]++;
                result.get_col_idxs()[position] = static_cast<I>(row);
                result.get_values()[position] = source.get_const_values()[k];
            }
        }
    }
}

LARCH_INSTANTIATE_CSR_KERNELS();

}  // namespace csr
}  // namespace omp
}  // namespace kernels
}  // namespace larch
