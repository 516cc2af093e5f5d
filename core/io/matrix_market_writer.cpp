// Matrix Market writer: `coordinate real general` or `array real general`, values in the shortest
// decimal form that reads back to the same floating-point number.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "core/io/matrix_market_limits.hpp"
#include "larch/io/matrix_market.hpp"

namespace larch {
namespace io {
namespace {

// Appends the shortest round-trip decimal form of `value` (std::to_chars without a precision).
template <typename V>
void append_value(std::string& line, V value)
{
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    line.append(buffer, result.ptr);
}

// The reader rejects NaN and Inf, so a file holding them would not read back: refused before anything is
// written. `entry` names the entry, e.g. "entry 3 at (2, 5)".
template <typename V>
[[noreturn]] void fail_non_finite(V value, const std::string& entry)
{
    std::string text;
    append_value(text, value);
    LARCH_THROW(BadInput, "write_matrix_market: " + entry + " is " + text +
                              "; Matrix Market files hold finite values only (the reader rejects NaN and Inf)");
}

std::string position(size_type row, size_type col)
{
    return "(" + std::to_string(row) + ", " + std::to_string(col) + ")";
}

/// BadInput for data the reader could not read back: a size it rejects (rows or columns at I's maximum, or far
/// more rows than stored entries), an entry outside the matrix or a NaN or Inf value.
template <typename V, typename I>
void check_writable(const matrix_data<V, I>& data, MatrixMarketFormat format)
{
    data.validate("write_matrix_market");
    const auto max_index = static_cast<size_type>(std::numeric_limits<I>::max());
    if (data.size.rows >= max_index || data.size.cols >= max_index) {
        LARCH_THROW(BadInput, "write_matrix_market: a " + to_string(data.size) + " matrix would not read back: " +
                                  "the reader takes fewer than " + std::to_string(max_index) +
                                  " rows and columns with the index type " + type_name<I>());
    }
    const bool coordinate = format == MatrixMarketFormat::coordinate;
    if (!coordinate && data.size.cols != 0 && data.size.rows > max_index / data.size.cols) {
        LARCH_THROW(BadInput, "write_matrix_market: a " + to_string(data.size) + " array would not read back: " +
                                  "the reader counts at most " + std::to_string(max_index) +
                                  " values with the index type " + type_name<I>() +
                                  "; write it in coordinate format");
    }
    // an array's rows x cols values are at least its rows unless it has no columns
    const auto num_stored = coordinate ? data.entries.size() : (data.size.cols == 0 ? 0 : data.size.rows);
    if (num_stored < min_stored_entries(data.size.rows)) {
        LARCH_THROW(BadInput, "write_matrix_market: the file would not read back: " +
                                  too_few_entries_message(data.size.rows, num_stored,
                                                          coordinate ? "entries" : "values"));
    }
    for (size_type k = 0; k < data.entries.size(); ++k) {
        const auto& e = data.entries[k];
        if (!std::isfinite(e.value)) {
            fail_non_finite(e.value, "entry " + std::to_string(k) + " at " + position(e.row, e.col));
        }
    }
}

template <typename V, typename I>
void write_coordinate(std::ostream& stream, const matrix_data<V, I>& data)
{
    stream << "%%MatrixMarket matrix coordinate real general\n"
           << data.size.rows << ' ' << data.size.cols << ' ' << data.entries.size() << '\n';
    std::string line;
    for (const auto& e : data.entries) {
        line = std::to_string(static_cast<long long>(e.row) + 1) + ' ' +
               std::to_string(static_cast<long long>(e.col) + 1) + ' ';
        append_value(line, e.value);
        line += '\n';
        stream << line;
    }
}

/// The array format's values: every entry, column-major, duplicates summed; BadInput where the array does not
/// fit in memory or a sum is NaN or Inf (the reader would reject it).
template <typename V, typename I>
std::vector<V> column_major_values(const matrix_data<V, I>& data)
{
    const auto rows = data.size.rows;
    const auto cols = data.size.cols;
    if (rows != 0 && cols > std::numeric_limits<size_type>::max() / sizeof(V) / rows) {
        LARCH_THROW(BadInput, "write_matrix_market: a dense " + to_string(data.size) +
                                  " array does not fit in memory; write it in coordinate format");
    }
    std::vector<V> column_major(rows * cols, V{0});
    for (const auto& e : data.entries) {
        column_major[static_cast<size_type>(e.col) * rows + static_cast<size_type>(e.row)] += e.value;
    }
    for (size_type k = 0; k < column_major.size(); ++k) {
        if (!std::isfinite(column_major[k])) {
            fail_non_finite(column_major[k], "the sum of the duplicate entries at " + position(k % rows, k / rows));
        }
    }
    return column_major;
}

template <typename V>
void write_array(std::ostream& stream, dim2 size, const std::vector<V>& column_major)
{
    stream << "%%MatrixMarket matrix array real general\n" << size.rows << ' ' << size.cols << '\n';
    std::string line;
    for (const auto value : column_major) {
        line.clear();
        append_value(line, value);
        line += '\n';
        stream << line;
    }
}

/**
 * Writes checked data: `column_major` holds the array format's values (column_major_values), and is empty
 * for the coordinate format. Every check has run before, so that the path overload refuses data before it
 * opens (and truncates) the file.
 */
template <typename V, typename I>
void write_checked(std::ostream& stream, const matrix_data<V, I>& data, MatrixMarketFormat format,
                   const std::vector<V>& column_major)
{
    if (format == MatrixMarketFormat::coordinate) {
        write_coordinate(stream, data);
    } else {
        write_array(stream, data.size, column_major);
    }
    stream.flush();
    if (!stream) {
        LARCH_THROW(BadInput, "write_matrix_market: the output stream failed while writing a " +
                                  to_string(data.size) + " matrix");
    }
}

/// check_writable, and for the array format its values (empty for coordinate).
template <typename V, typename I>
std::vector<V> checked_values(const matrix_data<V, I>& data, MatrixMarketFormat format)
{
    check_writable(data, format);
    return format == MatrixMarketFormat::coordinate ? std::vector<V>{} : column_major_values(data);
}

}  // namespace

template <typename V, typename I>
void write_matrix_market(std::ostream& stream, const matrix_data<V, I>& data, MatrixMarketFormat format)
{
    write_checked(stream, data, format, checked_values(data, format));
}

template <typename V, typename I>
void write_matrix_market(const std::string& path, const matrix_data<V, I>& data, MatrixMarketFormat format)
{
    // checked before opening, so that refused data leaves an existing file as it was
    const auto column_major = checked_values(data, format);
    std::ofstream file{path};
    if (!file) {
        LARCH_THROW(BadInput,
                    "write_matrix_market: cannot open '" + path + "' for writing: " + std::strerror(errno));
    }
    write_checked(file, data, format, column_major);
}

#define LARCH_INSTANTIATE_MATRIX_MARKET_WRITER(V, I)                                                      \
    template void write_matrix_market<V, I>(std::ostream&, const matrix_data<V, I>&, MatrixMarketFormat); \
    template void write_matrix_market<V, I>(const std::string&, const matrix_data<V, I>&, MatrixMarketFormat)

LARCH_INSTANTIATE_MATRIX_MARKET_WRITER(float, std::int32_t);
LARCH_INSTANTIATE_MATRIX_MARKET_WRITER(float, std::int64_t);
LARCH_INSTANTIATE_MATRIX_MARKET_WRITER(double, std::int32_t);
LARCH_INSTANTIATE_MATRIX_MARKET_WRITER(double, std::int64_t);
#undef LARCH_INSTANTIATE_MATRIX_MARKET_WRITER

}  // namespace io
}  // namespace larch
