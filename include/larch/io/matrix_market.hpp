// Matrix Market I/O: reading .mtx files (coordinate and array, real/integer/pattern, all real symmetries)
// into matrix_data or straight into a matrix class, and writing matrix_data back exactly.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>

#include "larch/base/executor.hpp"
#include "larch/base/matrix_data.hpp"

namespace larch {
namespace io {

/// The two Matrix Market formats: sparse `coordinate` (i j value per line) and dense `array`
/// (one value per line, column-major).
enum class MatrixMarketFormat { coordinate, array };

/**
 * Reads a Matrix Market stream into host-side coordinate data.
 *
 * Accepted: the banner `%%MatrixMarket matrix <format> <field> <symmetry>` (case-insensitive) with
 * format `coordinate` or `array`, field `real`, `integer` or `pattern` (every value 1; coordinate only),
 * symmetry `general`, `symmetric` or `skew-symmetric` (not with `pattern`: a pattern has no values to
 * negate, and the Matrix Market specification defines no skew-symmetric pattern). Comment (`%`) and blank
 * lines are skipped anywhere after the banner; CRLF line ends and a UTF-8 byte order mark before the banner
 * are accepted. Values may use any decimal notation that std::from_chars reads, with an optional leading `+`.
 *
 * The result:
 * - symmetric and skew-symmetric files are expanded (the other triangle is added, negated for
 *   skew-symmetric). A coordinate file may store either the lower or the upper triangle, but not
 *   entries of both (that would double the off-diagonal entries on expansion);
 * - entries are sorted by row, then column; duplicate positions in a coordinate file are summed;
 *   explicit zeros are kept (an array file gives every entry, zeros included);
 * - values that underflow V become 0 or subnormal; NaN, Inf and values that overflow V are rejected
 *   (larch never hands out a NaN that was not asked for).
 *
 * Cost: O(nnz log nnz) time for the sort; memory is reserved only up to a cap and grows with the
 * entries actually read, so an absurd entry count in the header cannot exhaust memory.
 *
 * @param stream       the text to read
 * @param source_name  how error messages name the stream (e.g. its file name)
 * @throws BadInput    for any malformed input; the message names the source, the line number and what
 *                     was expected there (banner, size line, entry count, index range, number syntax,
 *                     trailing text, sizes that do not fit the index type I, a diagonal entry in a
 *                     skew-symmetric file, a skew-symmetric `pattern` banner, `complex`/`hermitian`
 *                     files, which larch does not support).
 *                     Rows and columns must be fewer than I's maximum, and the entries (an array's
 *                     values) at most that many; a line longer than 65,536 characters is rejected
 *                     before more of it is read, so a file of another kind is not read into memory.
 *                     A file may declare up to 2^24 (16,777,216) rows whatever it stores; beyond
 *                     that it must store at least one entry (an array: value) per 16 rows, so that a
 *                     corrupt size line such as `2000000000 2000000000 3` is rejected on its line
 *                     instead of making CSR or ELL allocate memory for two billion rows (real sparse
 *                     matrices have about one entry per row or more). Columns are not limited.
 */
template <typename V, typename I = std::int32_t>
matrix_data<V, I> read_matrix_market_data(std::istream& stream, const std::string& source_name);

/// Reads the Matrix Market file at `path` (see the stream overload); BadInput also if it cannot be opened
/// or is a directory.
template <typename V, typename I = std::int32_t>
matrix_data<V, I> read_matrix_market_data(const std::string& path);

/**
 * Writes `data` as `%%MatrixMarket matrix coordinate real general` (one line per entry, in the order
 * of `data.entries`, 1-based indices) or `... array real general` (every entry, column-major;
 * duplicate entries summed). Values are written in the shortest form that reads back to the same V,
 * so write -> read round-trips exactly (up to the reader's sorting and summing of duplicates).
 * NaN and Inf are refused before anything is written, since the reader rejects them.
 * @throws BadInput if an entry lies outside the matrix, if a value is NaN or Inf (the message names the
 *                  first such entry: its index in `data.entries` and 0-based position), if in array format
 *                  duplicate entries add up to Inf, if the size is one the reader rejects (rows or columns
 *                  at I's maximum, more than 2^24 rows and fewer than one entry per 16 rows, an array of
 *                  more values than I counts), or if the stream fails.
 */
template <typename V, typename I>
void write_matrix_market(std::ostream& stream, const matrix_data<V, I>& data,
                         MatrixMarketFormat format = MatrixMarketFormat::coordinate);

/// Writes `data` to the file at `path` (see the stream overload); BadInput if it cannot be written. Data the
/// stream overload refuses (an entry outside the matrix, a NaN or Inf value, array duplicates adding up to Inf,
/// a size the reader rejects) is refused before the file is opened, so an existing file stays as it was.
template <typename V, typename I>
void write_matrix_market(const std::string& path, const matrix_data<V, I>& data,
                         MatrixMarketFormat format = MatrixMarketFormat::coordinate);

namespace detail {

/// MatrixType::index_type where the class has one (sparse formats), int32 otherwise (Dense).
template <typename MatrixType, typename = void>
struct matrix_index_type {
    using type = std::int32_t;
};
template <typename MatrixType>
struct matrix_index_type<MatrixType, std::void_t<typename MatrixType::index_type>> {
    using type = typename MatrixType::index_type;
};

}  // namespace detail

/**
 * Reads the Matrix Market file at `path` into a MatrixType (matrix::Dense, Csr, Coo or Ell) on `exec`,
 * through MatrixType::create(exec, data). Example:
 * `auto A = io::read_matrix_market<matrix::Csr<double>>("A.mtx", exec);`
 * @throws BadInput as read_matrix_market_data, plus whatever MatrixType::create throws.
 */
template <typename MatrixType>
std::unique_ptr<MatrixType> read_matrix_market(const std::string& path,
                                               std::shared_ptr<const Executor> exec)
{
    using value_type = typename MatrixType::value_type;
    using index_type = typename detail::matrix_index_type<MatrixType>::type;
    return MatrixType::create(std::move(exec),
                              read_matrix_market_data<value_type, index_type>(path));
}

}  // namespace io
}  // namespace larch
