// Matrix Market reader: a line scanner that turns every malformed line into a BadInput naming the source
// and the line, the banner and size-line parsers, and the coordinate and array entry loops.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/io/matrix_market_limits.hpp"
#include "core/io/number_parsing.hpp"
#include "larch/io/matrix_market.hpp"

namespace larch {
namespace io {
namespace {

enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct Banner {
    MatrixMarketFormat format;
    Field field;
    Symmetry symmetry;
};

const char* const banner_syntax =
    "'%%MatrixMarket matrix coordinate|array real|integer|pattern general|symmetric|skew-symmetric'";

// Never reserve more than this many entries up front: the header's count is only trusted as far as the
// entries actually present in the file (a corrupt count must not allocate gigabytes).
constexpr size_type max_reserved_entries = size_type{1} << 20;

// A Matrix Market line holds the banner, a comment, the size line or one entry. Lines are read up to this
// length, so that a file of another kind (binary, compressed, /dev/zero) is rejected at its first long
// line instead of being read into memory whole.
constexpr std::size_t max_line_length = std::size_t{1} << 16;

std::string lower_case(std::string_view text)
{
    std::string result{text};
    std::transform(result.begin(), result.end(), result.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return result;
}

// Splits a line at spaces and tabs.
class Tokens {
public:
    explicit Tokens(std::string_view line) : rest_{line} {}

    /// The next token, or an empty view at the end of the line.
    std::string_view next()
    {
        const auto first = rest_.find_first_not_of(" \t");
        if (first == std::string_view::npos) {
            rest_ = {};
            return {};
        }
        rest_.remove_prefix(first);
        const auto length = std::min(rest_.find_first_of(" \t"), rest_.size());
        const auto token = rest_.substr(0, length);
        rest_.remove_prefix(length);
        return token;
    }

    bool at_end() const { return rest_.find_first_not_of(" \t") == std::string_view::npos; }

private:
    std::string_view rest_;
};

// Reads the stream line by line and counts lines, so that every error can say where it happened.
class LineScanner {
public:
    LineScanner(std::istream& stream, const std::string& source_name)
        : stream_{stream}, source_name_{source_name}
    {
    }

    /// The next line (CR of a CRLF end removed); false at the end of the stream.
    bool next_line()
    {
        stream_.getline(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        const auto extracted = static_cast<std::size_t>(stream_.gcount());
        if (stream_.bad()) {
            fail(line_number_ == 0 ? "the input could not be read"
                                   : "the stream could not be read after this line");
        }
        if (stream_.fail()) {
            if (extracted == 0) {
                return false;  // the end of the stream
            }
            ++line_number_;
            fail("the line is longer than " + std::to_string(max_line_length) +
                 " characters, which no Matrix Market banner, comment, size line or entry needs");
        }
        ++line_number_;
        // the newline counts in `extracted` but is not stored; the last line of a file may have none
        const auto length = stream_.eof() ? extracted : extracted - 1;
        line_.assign(buffer_.data(), length);
        if (!line_.empty() && line_.back() == '\r') {
            line_.pop_back();
        }
        return true;
    }

    /// The next line that is neither blank nor a `%` comment; false at the end of the stream.
    bool next_content_line()
    {
        while (next_line()) {
            const auto first = line_.find_first_not_of(" \t");
            if (first != std::string::npos && line_[first] != '%') {
                return true;
            }
        }
        return false;
    }

    std::string_view line() const { return line_; }
    size_type line_number() const { return line_number_; }

    [[noreturn]] void fail(const std::string& message) const
    {
        LARCH_THROW(BadInput, "Matrix Market " + source_name_ + ", line " +
                                  std::to_string(std::max<size_type>(line_number_, 1)) + ": " + message);
    }

    /// Fails unless nothing but blanks follows on the line.
    void expect_line_end(Tokens& tokens, const std::string& after_what) const
    {
        if (!tokens.at_end()) {
            fail("unexpected text " + quote(tokens.next()) + " after " + after_what);
        }
    }

private:
    std::istream& stream_;
    const std::string& source_name_;
    std::vector<char> buffer_ = std::vector<char>(max_line_length + 1);
    std::string line_;
    size_type line_number_ = 0;
};

Banner parse_banner(LineScanner& scanner)
{
    if (!scanner.next_line()) {
        scanner.fail(std::string{"the input is empty; expected the banner "} + banner_syntax);
    }
    auto banner_line = scanner.line();
    // Some editors start a UTF-8 text with a byte order mark, which the user never sees; it is no part of the banner.
    constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";
    if (banner_line.substr(0, byte_order_mark.size()) == byte_order_mark) {
        banner_line.remove_prefix(byte_order_mark.size());
    }
    // A file whose lines end in CR alone (classic Mac OS) reads as one line; said so here, where the banner's
    // last word would otherwise run into the size line ('general?3').
    if (banner_line.find('\r') != std::string_view::npos) {
        scanner.fail("the banner line holds a carriage return (CR) before its end; Matrix Market lines end in LF "
                     "or CR LF, not in CR alone");
    }
    Tokens tokens{banner_line};
    if (lower_case(tokens.next()) != "%%matrixmarket") {
        scanner.fail(std::string{"expected the banner "} + banner_syntax + " on the first line, found " +
                     quote(scanner.line()));
    }
    auto next_word = [&](const char* what) {
        const auto word = tokens.next();
        if (word.empty()) {
            scanner.fail(std::string{"the banner ends before its "} + what + "; expected " + banner_syntax);
        }
        return lower_case(word);
    };
    const auto object = next_word("object");
    if (object != "matrix") {
        scanner.fail("unknown object " + quote(object) + " in the banner; expected 'matrix'");
    }
    Banner banner{};
    const auto format = next_word("format");
    if (format == "coordinate") {
        banner.format = MatrixMarketFormat::coordinate;
    } else if (format == "array") {
        banner.format = MatrixMarketFormat::array;
    } else {
        scanner.fail("unknown format " + quote(format) + " in the banner; expected 'coordinate' or 'array'");
    }
    const auto field = next_word("field");
    if (field == "real") {
        banner.field = Field::real;
    } else if (field == "integer") {
        banner.field = Field::integer;
    } else if (field == "pattern") {
        banner.field = Field::pattern;
    } else if (field == "complex") {
        scanner.fail(
            "complex matrices are not supported (field 'complex'); larch reads real, integer "
            "and pattern files");
    } else {
        scanner.fail("unknown field " + quote(field) +
                     " in the banner; expected 'real', 'integer' or 'pattern'");
    }
    const auto symmetry = next_word("symmetry");
    if (symmetry == "general") {
        banner.symmetry = Symmetry::general;
    } else if (symmetry == "symmetric") {
        banner.symmetry = Symmetry::symmetric;
    } else if (symmetry == "skew-symmetric") {
        banner.symmetry = Symmetry::skew_symmetric;
    } else if (symmetry == "hermitian") {
        scanner.fail(
            "complex matrices are not supported (symmetry 'hermitian'); larch reads general, "
            "symmetric and skew-symmetric real files");
    } else {
        scanner.fail("unknown symmetry " + quote(symmetry) +
                     " in the banner; expected 'general', 'symmetric' or 'skew-symmetric'");
    }
    scanner.expect_line_end(tokens, "the banner's symmetry");
    if (banner.format == MatrixMarketFormat::array && banner.field == Field::pattern) {
        scanner.fail("field 'pattern' is only valid in coordinate files, not in 'array' files");
    }
    // Skew symmetry is a relation between values (a_ji = -a_ij), and a pattern file has none; the Matrix Market
    // specification defines no such file, so no reading of it would be more right than another.
    if (banner.field == Field::pattern && banner.symmetry == Symmetry::skew_symmetric) {
        scanner.fail("field 'pattern' cannot be skew-symmetric: a pattern stores no values to negate; "
                     "expected symmetry 'general' or 'symmetric'");
    }
    return banner;
}

// The size line: rows, columns and (coordinate only) the number of stored entries.
struct SizeLine {
    size_type rows;
    size_type cols;
    size_type num_stored;
};

template <typename I>
SizeLine parse_size_line(LineScanner& scanner, const Banner& banner)
{
    const bool coordinate = banner.format == MatrixMarketFormat::coordinate;
    const std::string syntax = coordinate ? "'rows columns entries'" : "'rows columns'";
    if (!scanner.next_content_line()) {
        scanner.fail("the input ends before the size line " + syntax);
    }
    Tokens tokens{scanner.line()};
    auto next_count = [&](const std::string& what) {
        const auto token = tokens.next();
        if (token.empty()) {
            scanner.fail("the size line ends before the number of " + what + "; expected " + syntax);
        }
        std::int64_t value{};
        const auto status = parse_integer(token, value);
        if (status == ParseStatus::out_of_range) {
            scanner.fail("the number of " + what + " " + quote(token) + " on the size line is too large");
        }
        if (status != ParseStatus::ok) {
            scanner.fail("expected the number of " + what + " (a non-negative integer) on the size line " +
                         syntax + ", found " + quote(token));
        }
        if (value < 0) {
            scanner.fail("the number of " + what + " on the size line is negative (" + std::to_string(value) +
                         ")");
        }
        return static_cast<size_type>(value);
    };
    SizeLine size{};
    size.rows = next_count("rows");
    size.cols = next_count("columns");
    if (coordinate) {
        size.num_stored = next_count("entries");
    }
    scanner.expect_line_end(tokens, "the size line " + syntax);
    // The formats built from the data need one more than the largest index (CSR's row pointers end at
    // the count of entries, and a row count of the maximum leaves no end), so the limits are < and <=.
    const auto max_index = static_cast<size_type>(std::numeric_limits<I>::max());
    if (size.rows >= max_index || size.cols >= max_index) {
        scanner.fail("the size " + std::to_string(size.rows) + " x " + std::to_string(size.cols) +
                     " does not fit the index type " + type_name<I>() + " (fewer than " +
                     std::to_string(max_index) + " rows and columns)");
    }
    if (banner.symmetry != Symmetry::general && size.rows != size.cols) {
        scanner.fail("a symmetric or skew-symmetric matrix must be square, but the size line gives " +
                     std::to_string(size.rows) + " rows and " + std::to_string(size.cols) + " columns");
    }
    // rows x cols (or the triangle's n (n + 1)) checked against the index type before it is formed: with
    // 64-bit indices the product can overflow 64 bits
    const auto values_of = [&](size_type first, size_type second) {
        if (first != 0 && second > max_index / first) {
            scanner.fail("an array of " + std::to_string(size.rows) + " x " + std::to_string(size.cols) +
                         " holds more values than the index type " + type_name<I>() + " can count (" +
                         std::to_string(max_index) + ")");
        }
        return first * second;
    };
    if (!coordinate) {
        const auto n = size.rows;
        size.num_stored = banner.symmetry == Symmetry::general     ? values_of(size.rows, size.cols)
                          : banner.symmetry == Symmetry::symmetric ? values_of(n, n + 1) / 2
                                                                   : (n == 0 ? 0 : values_of(n, n - 1) / 2);
    } else if (size.num_stored > max_index) {
        scanner.fail("the entry count " + std::to_string(size.num_stored) + " does not fit the index type " +
                     type_name<I>() + " (at most " + std::to_string(max_index) + ")");
    }
    if (size.num_stored < min_stored_entries(size.rows)) {
        scanner.fail(too_few_entries_message(size.rows, size.num_stored, coordinate ? "entries" : "values") +
                     " (is the size line corrupt? CSR and ELL would allocate memory for every row)");
    }
    return size;
}

// Reads one value token of the file's field into V (pattern files have none: the value is 1).
template <typename V>
V parse_value(LineScanner& scanner, Tokens& tokens, Field field, const std::string& what)
{
    if (field == Field::pattern) {
        return V{1};
    }
    const auto token = tokens.next();
    if (token.empty()) {
        scanner.fail("the line ends before the value of " + what);
    }
    if (field == Field::integer) {
        std::int64_t value{};
        const auto status = parse_integer(token, value);
        if (status == ParseStatus::out_of_range) {
            scanner.fail("the integer value " + quote(token) + " of " + what + " is too large");
        }
        if (status != ParseStatus::ok) {
            scanner.fail("expected the value of " + what + " (an integer), found " + quote(token));
        }
        return static_cast<V>(value);
    }
    V value{};
    switch (parse_real(token, value)) {
        case ParseStatus::ok:
            return value;
        case ParseStatus::out_of_range:
            scanner.fail("the value " + quote(token) + " of " + what + " is too large for " + type_name<V>());
        case ParseStatus::not_finite:
            scanner.fail("the value " + quote(token) + " of " + what +
                         " is not a finite number; larch reads finite values only");
        default:
            scanner.fail("expected the value of " + what + " (a real number), found " + quote(token));
    }
}

// Reads a 1-based index token and checks it against 1..bound.
size_type parse_index(LineScanner& scanner, Tokens& tokens, const char* what, size_type bound,
                      size_type entry_number)
{
    const std::string range = "1.." + std::to_string(bound);
    const auto token = tokens.next();
    const std::string entry = "entry " + std::to_string(entry_number);
    if (token.empty()) {
        scanner.fail("the line ends before the " + std::string{what} + " index of " + entry +
                     "; expected 'row column" + "'");
    }
    std::int64_t value{};
    const auto status = parse_integer(token, value);
    if (status == ParseStatus::syntax_error) {
        scanner.fail("expected the " + std::string{what} + " index of " + entry + " (an integer in " + range +
                     "), found " + quote(token));
    }
    if (status != ParseStatus::ok || value < 1 || static_cast<size_type>(value) > bound) {
        scanner.fail("the " + std::string{what} + " index " + quote(token) + " of " + entry +
                     " is out of range " + range);
    }
    return static_cast<size_type>(value - 1);
}

[[noreturn]] void fail_early_end(LineScanner& scanner, size_type num_read, size_type num_expected,
                                 const char* what)
{
    scanner.fail("the input ends after " + std::to_string(num_read) + " of " + std::to_string(num_expected) +
                 " " + what + " (the size line declares " + std::to_string(num_expected) + ")");
}

void expect_no_more_entries(LineScanner& scanner, size_type num_expected, const char* what)
{
    if (scanner.next_content_line()) {
        scanner.fail("found more " + std::string{what} + " than the " + std::to_string(num_expected) +
                     " declared on the size line, starting with " + quote(scanner.line()));
    }
}

template <typename V, typename I>
void read_coordinate_entries(LineScanner& scanner, const Banner& banner, const SizeLine& size,
                             matrix_data<V, I>& data)
{
    // Stored off-diagonal entries of a (skew-)symmetric file must all lie in one triangle; remember
    // where the first one was seen to name it if the other triangle shows up.
    size_type first_lower_line = 0;
    size_type first_upper_line = 0;
    for (size_type k = 0; k < size.num_stored; ++k) {
        if (!scanner.next_content_line()) {
            fail_early_end(scanner, k, size.num_stored, "entries");
        }
        Tokens tokens{scanner.line()};
        const auto row = parse_index(scanner, tokens, "row", size.rows, k + 1);
        const auto col = parse_index(scanner, tokens, "column", size.cols, k + 1);
        const std::string position =
            "entry (" + std::to_string(row + 1) + ", " + std::to_string(col + 1) + ")";
        const auto value = parse_value<V>(scanner, tokens, banner.field, position);
        scanner.expect_line_end(tokens, position);
        data.entries.push_back({static_cast<I>(row), static_cast<I>(col), value});
        if (banner.symmetry == Symmetry::general) {
            continue;
        }
        if (row == col) {
            if (banner.symmetry == Symmetry::skew_symmetric) {
                scanner.fail(
                    "a skew-symmetric matrix has a zero diagonal that is not stored, but the "
                    "file stores " +
                    position);
            }
            continue;
        }
        auto& this_triangle = row > col ? first_lower_line : first_upper_line;
        const auto other_triangle = row > col ? first_upper_line : first_lower_line;
        if (other_triangle != 0) {
            scanner.fail(position + " lies " + (row > col ? "below" : "above") + " the diagonal, but line " +
                         std::to_string(other_triangle) + " stored an entry " +
                         (row > col ? "above" : "below") + " it; a symmetric file stores one triangle only");
        }
        if (this_triangle == 0) {
            this_triangle = scanner.line_number();
        }
        const auto mirrored = banner.symmetry == Symmetry::symmetric ? value : -value;
        data.entries.push_back({static_cast<I>(col), static_cast<I>(row), mirrored});
    }
    expect_no_more_entries(scanner, size.num_stored, "entries");
    data.sum_duplicates();
    for (const auto& e : data.entries) {
        if (!std::isfinite(e.value)) {
            scanner.fail("the duplicate entries at (" + std::to_string(e.row + 1) + ", " +
                         std::to_string(e.col + 1) + ") add up to a value too large for " + type_name<V>());
        }
    }
}

template <typename V, typename I>
void read_array_entries(LineScanner& scanner, const Banner& banner, const SizeLine& size,
                        matrix_data<V, I>& data)
{
    // Column-major; (skew-)symmetric files hold the lower triangle only (without the diagonal for
    // skew-symmetric). One counter drives the loop so that an empty matrix of huge width costs nothing.
    const size_type first_row_offset = banner.symmetry == Symmetry::skew_symmetric ? 1 : 0;
    size_type row = first_row_offset;
    size_type col = 0;
    for (size_type k = 0; k < size.num_stored; ++k) {
        if (!scanner.next_content_line()) {
            fail_early_end(scanner, k, size.num_stored, "values");
        }
        Tokens tokens{scanner.line()};
        const std::string position =
            "entry (" + std::to_string(row + 1) + ", " + std::to_string(col + 1) + ")";
        const auto value = parse_value<V>(scanner, tokens, banner.field, position);
        scanner.expect_line_end(tokens,
                                "the value of " + position + " (an array file holds one value per line)");
        data.entries.push_back({static_cast<I>(row), static_cast<I>(col), value});
        if (banner.symmetry != Symmetry::general && row != col) {
            const auto mirrored = banner.symmetry == Symmetry::symmetric ? value : -value;
            data.entries.push_back({static_cast<I>(col), static_cast<I>(row), mirrored});
        }
        if (++row == size.rows) {
            ++col;
            row = banner.symmetry == Symmetry::general ? 0 : col + first_row_offset;
        }
    }
    expect_no_more_entries(scanner, size.num_stored, "values");
    data.sort_row_major();
}

}  // namespace

template <typename V, typename I>
matrix_data<V, I> read_matrix_market_data(std::istream& stream, const std::string& source_name)
{
    LineScanner scanner{stream, source_name};
    const auto banner = parse_banner(scanner);
    const auto size = parse_size_line<I>(scanner, banner);
    matrix_data<V, I> data{dim2{size.rows, size.cols}};
    const auto expanded = banner.symmetry == Symmetry::general ? size.num_stored : 2 * size.num_stored;
    data.entries.reserve(std::min(expanded, max_reserved_entries));
    if (banner.format == MatrixMarketFormat::coordinate) {
        read_coordinate_entries(scanner, banner, size, data);
    } else {
        read_array_entries(scanner, banner, size, data);
    }
    return data;
}

template <typename V, typename I>
matrix_data<V, I> read_matrix_market_data(const std::string& path)
{
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored)) {
        // a directory opens as a stream whose first read fails
        LARCH_THROW(BadInput, "read_matrix_market_data: '" + path + "' is a directory, not a Matrix Market file");
    }
    std::ifstream file{path};
    if (!file) {
        LARCH_THROW(BadInput, "read_matrix_market_data: cannot open '" + path +
                                  "' for reading: " + std::strerror(errno));
    }
    return read_matrix_market_data<V, I>(file, "'" + path + "'");
}

#define LARCH_INSTANTIATE_MATRIX_MARKET_READER(V, I)                                             \
    template matrix_data<V, I> read_matrix_market_data<V, I>(std::istream&, const std::string&); \
    template matrix_data<V, I> read_matrix_market_data<V, I>(const std::string&)

LARCH_INSTANTIATE_MATRIX_MARKET_READER(float, std::int32_t);
LARCH_INSTANTIATE_MATRIX_MARKET_READER(float, std::int64_t);
LARCH_INSTANTIATE_MATRIX_MARKET_READER(double, std::int32_t);
LARCH_INSTANTIATE_MATRIX_MARKET_READER(double, std::int64_t);
#undef LARCH_INSTANTIATE_MATRIX_MARKET_READER

}  // namespace io
}  // namespace larch
