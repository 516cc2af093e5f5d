// Matrix Market reader on thousands of seeded random mutations of small valid files, each written to a file: a
// mutant either reads as its own text says (checked against an independent reading of the text by the rules the
// reader documents) or throws BadInput naming the file, alone and as an item of a batch; edits that keep the
// meaning (CRLF, tabs, blank and comment lines, a leading '+') read exactly as the original file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/io/batch_matrix_market.hpp"
#include "larch/io/matrix_market.hpp"

namespace {

using larch::dim2;
using larch::matrix_data;
namespace io = larch::io;
using Data = matrix_data<double, std::int32_t>;

struct ValidFile {
    std::string text;
    Data expected;
};

// One file of every kind the reader supports: coordinate general / symmetric / skew-symmetric in real, pattern and
// integer (and one without entries), array general / symmetric / skew-symmetric (and an empty one). The values are
// sums of powers of two, so that duplicated lines add up exactly in any order.
const std::vector<ValidFile> valid_files{
    {"%%MatrixMarket matrix coordinate real general\n% a comment\n3 4 5\n1 1 1.5\n2 3 -2.25e1\n3 4 7\n"
     "1 4 0\n3 1 0.125\n",
     {dim2{3, 4}, {{0, 0, 1.5}, {0, 3, 0.0}, {1, 2, -22.5}, {2, 0, 0.125}, {2, 3, 7.0}}}},
    {"%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 -2.5\n3 3 6\n",
     {dim2{3, 3}, {{0, 0, 4.0}, {0, 1, -1.0}, {1, 0, -1.0}, {1, 2, -2.5}, {2, 1, -2.5}, {2, 2, 6.0}}}},
    {"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -0.5\n",
     {dim2{3, 3}, {{0, 1, -3.0}, {0, 2, 0.5}, {1, 0, 3.0}, {2, 0, -0.5}}}},
    {"%%MatrixMarket matrix coordinate pattern general\n2 3 3\n2 2\n1 3\n2 1\n",
     {dim2{2, 3}, {{0, 2, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}}}},
    {"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n3 1\n2 2\n",
     {dim2{3, 3}, {{0, 2, 1.0}, {1, 1, 1.0}, {2, 0, 1.0}}}},
    {"%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 -7\n2 1 12\n2 2 40\n",
     {dim2{2, 2}, {{0, 0, -7.0}, {1, 0, 12.0}, {1, 1, 40.0}}}},
    {"%%MatrixMarket matrix coordinate real general\n2 3 0\n", {dim2{2, 3}, {}}},
    {"%%MatrixMarket matrix array real general\n2 3\n1\n2\n3.5\n4\n-5\n0\n",
     {dim2{2, 3}, {{0, 0, 1.0}, {0, 1, 3.5}, {0, 2, -5.0}, {1, 0, 2.0}, {1, 1, 4.0}, {1, 2, 0.0}}}},
    {"%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n",
     {dim2{2, 2}, {{0, 0, 1.0}, {0, 1, 2.0}, {1, 0, 2.0}, {1, 1, 3.0}}}},
    {"%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n",
     {dim2{3, 3}, {{0, 1, -1.0}, {0, 2, -2.0}, {1, 0, 1.0}, {1, 2, -3.0}, {2, 0, 2.0}, {2, 1, 3.0}}}},
    {"%%MatrixMarket matrix array real general\n0 3\n", {dim2{0, 3}, {}}},
};

// An independent reading of a Matrix Market text by the rules read_matrix_market_data documents, written for
// clarity rather than speed: the matrix (index type int32), or nothing where the reader must throw BadInput.
class Oracle {
public:
    static std::optional<Data> read(const std::string& text)
    {
        try {
            return Oracle{text}.data_;
        } catch (const Invalid&) {
            return std::nullopt;
        }
    }

private:
    struct Invalid {};
    enum class Symmetry { general, symmetric, skew };

    explicit Oracle(const std::string& text)
    {
        const auto lines = split_lines(text);
        check(!lines.empty());
        for (const auto& line : lines) {
            check(line.size() <= 65536);
        }
        const std::string byte_order_mark = "\xEF\xBB\xBF";
        const auto banner =
            tokens_of(lines[0].rfind(byte_order_mark, 0) == 0 ? lines[0].substr(byte_order_mark.size()) : lines[0]);
        check(banner.size() == 5 && lower(banner[0]) == "%%matrixmarket" && lower(banner[1]) == "matrix");
        const auto format = lower(banner[2]);
        const auto field = lower(banner[3]);
        const auto symmetry = lower(banner[4]);
        check(format == "coordinate" || format == "array");
        check(field == "real" || field == "integer" || (field == "pattern" && format == "coordinate"));
        check(symmetry == "general" || symmetry == "symmetric" || symmetry == "skew-symmetric");
        check(field != "pattern" || symmetry != "skew-symmetric");  // a pattern has no values to negate
        field_ = field;
        symmetry_ = symmetry == "general" ? Symmetry::general
                    : symmetry == "symmetric" ? Symmetry::symmetric
                                              : Symmetry::skew;
        std::vector<std::vector<std::string>> content;  // the lines after the banner that are not blank or `%`
        for (std::size_t k = 1; k < lines.size(); ++k) {
            auto tokens = tokens_of(lines[k]);
            if (!tokens.empty() && tokens[0][0] != '%') {
                content.push_back(std::move(tokens));
            }
        }
        check(!content.empty());
        const bool coordinate = format == "coordinate";
        const auto& size = content[0];
        check(size.size() == (coordinate ? 3u : 2u));
        const auto rows = count(size[0]);
        const auto cols = count(size[1]);
        const auto int32_max = std::numeric_limits<std::int32_t>::max();
        check(rows < int32_max && cols < int32_max);
        check(symmetry_ == Symmetry::general || rows == cols);
        data_.size = dim2{static_cast<larch::size_type>(rows), static_cast<larch::size_type>(cols)};
        const std::size_t num_entries = content.size() - 1;
        // beyond 2^24 rows, at least one stored entry (or array value) per 16 rows
        const auto enough_entries = [&](std::int64_t stored) {
            return rows <= (std::int64_t{1} << 24) || stored >= (rows + 15) / 16;
        };
        if (coordinate) {
            const auto declared = count(size[2]);
            check(declared <= int32_max && static_cast<std::size_t>(declared) == num_entries);
            check(enough_entries(declared));
            for (std::size_t k = 1; k < content.size(); ++k) {
                read_coordinate_entry(content[k]);
            }
        } else {
            // Rows and columns are below 2^31, so the product fits 64 bits. The reader also rejects an array of
            // more values than int32 counts; no small file holds that many, so the count check covers it here.
            const auto declared = symmetry_ == Symmetry::general     ? rows * cols
                                  : symmetry_ == Symmetry::symmetric ? rows * (rows + 1) / 2
                                                                     : rows * (rows - 1) / 2;
            check(static_cast<std::size_t>(declared) == num_entries);
            check(enough_entries(declared));
            read_array_entries(content);
        }
        for (const auto& [position, terms] : sums_) {
            double sum = 0;
            for (const auto term : terms) {
                sum += term;
            }
            check(std::isfinite(sum));
            data_.entries.push_back({static_cast<std::int32_t>(position.first),
                                     static_cast<std::int32_t>(position.second), sum});
        }
    }

    static void check(bool condition)
    {
        if (!condition) {
            throw Invalid{};
        }
    }

    // Lines end at '\n' (one '\r' before it is part of the line end); a last line without one counts.
    static std::vector<std::string> split_lines(const std::string& text)
    {
        std::vector<std::string> lines;
        std::size_t begin = 0;
        while (begin < text.size()) {
            auto end = text.find('\n', begin);
            end = end == std::string::npos ? text.size() : end;
            auto line = text.substr(begin, end - begin);
            if (!line.empty() && line.back() == '\r') {
                line.pop_back();
            }
            lines.push_back(line);
            begin = end + 1;
        }
        return lines;
    }

    static std::vector<std::string> tokens_of(const std::string& line)
    {
        std::vector<std::string> tokens;
        std::size_t begin = 0;
        while ((begin = line.find_first_not_of(" \t", begin)) != std::string::npos) {
            const auto end = std::min(line.find_first_of(" \t", begin), line.size());
            tokens.push_back(line.substr(begin, end - begin));
            begin = end;
        }
        return tokens;
    }

    static std::string lower(std::string word)
    {
        for (auto& c : word) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        return word;
    }

    // A decimal integer with an optional sign (one leading '+' allowed), within int64.
    static std::int64_t integer(const std::string& token)
    {
        check(!token.empty() && token.find_first_not_of("+-0123456789") == std::string::npos);
        check(token.find_first_of("+-", 1) == std::string::npos && token != "+" && token != "-");
        errno = 0;
        char* end = nullptr;
        const auto value = std::strtoll(token.c_str(), &end, 10);
        check(errno == 0 && end == token.c_str() + token.size());
        return value;
    }

    static std::int64_t count(const std::string& token)
    {
        const auto value = integer(token);
        check(value >= 0);
        return value;
    }

    static std::int64_t index(const std::string& token, std::size_t bound)
    {
        const auto value = integer(token);
        check(value >= 1 && static_cast<std::size_t>(value) <= bound);
        return value - 1;
    }

    // A finite decimal real (std::strtod without its hexadecimal form); values below double's range round to
    // zero or a subnormal as strtod rounds them.
    static double real(std::string token)
    {
        if (!token.empty() && token[0] == '+') {
            token.erase(0, 1);
            check(token.empty() || (token[0] != '+' && token[0] != '-'));
        }
        // strtod also skips leading white space and reads hexadecimal
        check(!token.empty() && !std::isspace(static_cast<unsigned char>(token[0])) &&
              token.find_first_of("xX") == std::string::npos);
        char* end = nullptr;
        const double value = std::strtod(token.c_str(), &end);
        // an overflow gives infinity
        check(end == token.c_str() + token.size() && std::isfinite(value));
        return value;
    }

    double value(const std::string& token) const
    {
        return field_ == "integer" ? static_cast<double>(integer(token)) : real(token);
    }

    // Stores the entry, mirrored by the file's symmetry.
    void add(std::int64_t row, std::int64_t col, double value)
    {
        sums_[{row, col}].push_back(value);
        if (symmetry_ != Symmetry::general && row != col) {
            sums_[{col, row}].push_back(symmetry_ == Symmetry::symmetric ? value : -value);
        }
    }

    void read_coordinate_entry(const std::vector<std::string>& tokens)
    {
        check(tokens.size() == (field_ == "pattern" ? 2u : 3u));
        const auto row = index(tokens[0], data_.size.rows);
        const auto col = index(tokens[1], data_.size.cols);
        check(symmetry_ != Symmetry::skew || row != col);
        // a (skew-)symmetric file stores one triangle, either one
        if (symmetry_ != Symmetry::general && row != col) {
            (row > col ? has_lower_ : has_upper_) = true;
            check(!(has_lower_ && has_upper_));
        }
        add(row, col, field_ == "pattern" ? 1.0 : value(tokens[2]));
    }

    // Column-major; a (skew-)symmetric array holds the lower triangle (without the diagonal if skew).
    void read_array_entries(const std::vector<std::vector<std::string>>& content)
    {
        const auto first_row = [&](std::int64_t col) {
            return symmetry_ == Symmetry::general ? 0 : symmetry_ == Symmetry::symmetric ? col : col + 1;
        };
        std::int64_t col = 0;
        std::int64_t row = first_row(col);
        for (std::size_t k = 1; k < content.size(); ++k) {
            check(content[k].size() == 1);
            add(row, col, value(content[k][0]));
            if (++row == static_cast<std::int64_t>(data_.size.rows)) {
                ++col;
                row = first_row(col);
            }
        }
    }

    std::string field_;
    Symmetry symmetry_ = Symmetry::general;
    bool has_lower_ = false;
    bool has_upper_ = false;
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<double>> sums_;  // in file order, per position
    Data data_;
};

enum class Edit {
    // edits that keep the file's meaning
    crlf_line_ends,
    tabs_for_spaces,
    blank_line,
    comment_line,
    leading_plus,
    // edits that may change or break it
    replace_byte,
    insert_byte,
    delete_byte,
    truncate,
    duplicate_line,
    swap_lines,
    delete_line,
    extra_entry,
    replace_number,
};
constexpr int num_meaning_keeping_edits = 5;
constexpr int num_edits = 14;

class Mutator {
public:
    explicit Mutator(unsigned seed) : random_{seed} {}

    std::size_t pick(std::size_t bound) { return std::uniform_int_distribution<std::size_t>{0, bound}(random_); }

    /// Applies `edit` to `text`.
    std::string apply(Edit edit, std::string text)
    {
        if (text.empty()) {
            return std::string(1, random_byte());
        }
        auto lines = split_keeping_ends(text);
        const auto random_line = [&] { return pick(lines.size() - 1); };
        const auto after_banner = [&] { return 1 + pick(lines.size() - 1); };  // a position in 1..size
        switch (edit) {
            case Edit::crlf_line_ends:
                for (auto& line : lines) {
                    if (line.size() >= 2 && line.back() == '\n' && line[line.size() - 2] != '\r') {
                        line.insert(line.size() - 1, "\r");
                    }
                }
                return join(lines);
            case Edit::tabs_for_spaces:
                for (auto& c : text) {
                    c = c == ' ' ? '\t' : c;
                }
                return text;
            case Edit::blank_line:
                lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(after_banner()), pick(1) ? "\n" : " \t\n");
                return join(lines);
            case Edit::comment_line:
                lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(after_banner()), "% 1 1 1\n");
                return join(lines);
            case Edit::leading_plus: {
                const auto numbers = number_positions(text);
                if (!numbers.empty()) {
                    const auto position = numbers[pick(numbers.size() - 1)].first;
                    if (text[position] != '+' && text[position] != '-') {
                        text.insert(position, "+");
                    }
                }
                return text;
            }
            case Edit::replace_byte:
                text[pick(text.size() - 1)] = random_byte();
                return text;
            case Edit::insert_byte:
                text.insert(pick(text.size()), 1, random_byte());
                return text;
            case Edit::delete_byte:
                text.erase(pick(text.size() - 1), 1);
                return text;
            case Edit::truncate:
                text.resize(pick(text.size() - 1));
                return text;
            case Edit::duplicate_line: {
                const auto k = random_line();
                lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(k), lines[k]);
                return join(lines);
            }
            case Edit::swap_lines:
                std::swap(lines[random_line()], lines[random_line()]);
                return join(lines);
            case Edit::delete_line:
                lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(random_line()));
                return join(lines);
            case Edit::extra_entry: {
                static const std::vector<std::string> entries{"1 1 1\n", "2 1 -3.5\n", "1 2\n", "4\n", "3 3 3 3\n"};
                lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(after_banner()),
                             entries[pick(entries.size() - 1)]);
                return join(lines);
            }
            case Edit::replace_number: {
                static const std::vector<std::string> numbers{
                    "1e400", "99999999999999999999", "-1", "0", "-0", "nan", "inf", "-inf", "NaN", "1e-400",
                    "4.9e-324", "2147483647", "2147483646", "100000000", "1.7976931348623157e308", "+1", "3"};
                const auto tokens = number_positions(text);
                if (!tokens.empty()) {
                    const auto [position, length] = tokens[pick(tokens.size() - 1)];
                    text.replace(position, length, numbers[pick(numbers.size() - 1)]);
                }
                return text;
            }
        }
        return text;
    }

private:
    char random_byte()
    {
        static const std::string interesting = "0123456789 .-+eE%\n\r\t";
        return pick(3) == 0 ? static_cast<char>(pick(255)) : interesting[pick(interesting.size() - 1)];
    }

    // The lines, each with its '\n' (the last one may have none).
    static std::vector<std::string> split_keeping_ends(const std::string& text)
    {
        std::vector<std::string> lines;
        std::size_t begin = 0;
        while (begin < text.size()) {
            const auto end = std::min(text.find('\n', begin), text.size() - 1);
            lines.push_back(text.substr(begin, end - begin + 1));
            begin = end + 1;
        }
        return lines;
    }

    static std::string join(const std::vector<std::string>& lines)
    {
        std::string text;
        for (const auto& line : lines) {
            text += line;
        }
        return text;
    }

    // (offset, length) of every token after the first line that starts like a number.
    static std::vector<std::pair<std::size_t, std::size_t>> number_positions(const std::string& text)
    {
        std::vector<std::pair<std::size_t, std::size_t>> positions;
        std::size_t begin = text.find('\n');
        while (begin != std::string::npos &&
               (begin = text.find_first_not_of(" \t\r\n", begin)) != std::string::npos) {
            const auto end = std::min(text.find_first_of(" \t\r\n", begin), text.size());
            if (std::string{"0123456789+-."}.find(text[begin]) != std::string::npos) {
                positions.emplace_back(begin, end - begin);
            }
            begin = end;
        }
        return positions;
    }

    std::mt19937 random_;
};

// A folder of its own under the test's temporary folder (ctest runs the tests of this file side by side),
// removed at the end.
class ScratchFolder {
public:
    ScratchFolder()
        : path_{std::filesystem::path{::testing::TempDir()} /
                ("larch_mm_mutation_" +
                 std::string{::testing::UnitTest::GetInstance()->current_test_info()->name()})}
    {
        std::filesystem::create_directories(path_);
    }
    ~ScratchFolder()
    {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }

    std::string write(const std::string& name, const std::string& text) const
    {
        const auto path = (path_ / name).string();
        std::ofstream{path, std::ios::binary} << text;
        return path;
    }

private:
    std::filesystem::path path_;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string describe(unsigned seed, int trial, const std::string& text)
{
    return "seed " + std::to_string(seed) + ", mutant " + std::to_string(trial) + ":\n" + text;
}

constexpr unsigned seed = 20250611;
constexpr int num_mutants = 4000;

TEST(MatrixMarketMutation, TheIndependentReadingAgreesWithTheExpectedMatrixOfEveryValidFile)
{
    for (const auto& file : valid_files) {
        SCOPED_TRACE(file.text);
        const auto read = Oracle::read(file.text);
        ASSERT_TRUE(read.has_value());
        EXPECT_EQ(read->size, file.expected.size);
        EXPECT_EQ(read->entries, file.expected.entries);
    }
}

// For every mutant: BadInput naming the file where the independent reading rejects it, else exactly the matrix
// it describes (its sizes, indices within range, as many entries as declared, symmetric files expanded,
// duplicates summed); edits that keep the meaning give the original's matrix. Anything else (another exception,
// a crash, a hang, std::bad_alloc from a huge declared size) fails the test.
TEST(MatrixMarketMutation, EveryMutantReadsAsItsTextSaysOrThrowsBadInputNamingTheFile)
{
    const ScratchFolder folder;
    Mutator mutator{seed};
    int num_read = 0;
    int num_rejected = 0;
    for (int trial = 0; trial < num_mutants; ++trial) {
        const auto& original = valid_files[static_cast<std::size_t>(trial) % valid_files.size()];
        auto text = original.text;
        bool keeps_meaning = true;
        for (auto edit = 1 + mutator.pick(2); edit > 0; --edit) {
            const auto kind = static_cast<Edit>(mutator.pick(num_edits - 1));
            keeps_meaning = keeps_meaning && static_cast<int>(kind) < num_meaning_keeping_edits;
            text = mutator.apply(kind, text);
        }
        const auto path = folder.write("mutant" + std::to_string(trial) + ".mtx", text);
        const auto expected = Oracle::read(text);
        try {
            const auto data = io::read_matrix_market_data<double, std::int32_t>(path);
            ++num_read;
            ASSERT_TRUE(expected.has_value()) << "read a file it should reject, " << describe(seed, trial, text);
            ASSERT_EQ(data.size, expected->size) << describe(seed, trial, text);
            ASSERT_EQ(data.entries, expected->entries) << describe(seed, trial, text);
            if (keeps_meaning) {
                ASSERT_EQ(data.size, original.expected.size) << describe(seed, trial, text);
                ASSERT_EQ(data.entries, original.expected.entries) << describe(seed, trial, text);
            }
        } catch (const larch::BadInput& e) {
            ++num_rejected;
            ASSERT_FALSE(expected.has_value()) << e.what() << "\nfor a valid file, " << describe(seed, trial, text);
            ASSERT_TRUE(contains(e.what(), "'" + path + "', line ")) << e.what();
        } catch (const std::exception& e) {
            FAIL() << "not BadInput but " << typeid(e).name() << " '" << e.what() << "', "
                   << describe(seed, trial, text);
        }
        std::filesystem::remove(path);
    }
    // If almost every mutant were read, or rejected, the mutations would not be reaching the reader's checks.
    EXPECT_GT(num_read, num_mutants / 10);
    EXPECT_GT(num_rejected, num_mutants / 3);
}

// Each mutant as the second item of a batch (batch::Csr, Coo and Ell in turn), after a valid first item: a
// mutant the reader rejects, or an empty matrix (no batch item may be), gives BadInput naming the mutant's file;
// any other is the batch's item 1, entry for entry. Valid mutants of more than 2^16 rows or columns are left to the
// test above: a batch holds row pointers (CSR) or row counts (ELL) for every row the file declares.
TEST(MatrixMarketMutation, EveryMutantIsABatchItemAsItsTextSaysOrThrowsBadInputNamingTheFile)
{
    const ScratchFolder folder;
    const auto exec = larch::make_executor("reference");
    Mutator mutator{seed + 1};
    for (int trial = 0; trial < num_mutants; ++trial) {
        const auto& original = valid_files[static_cast<std::size_t>(trial) % valid_files.size()];
        auto text = original.text;
        for (auto edit = 1 + mutator.pick(2); edit > 0; --edit) {
            text = mutator.apply(static_cast<Edit>(mutator.pick(num_edits - 1)), text);
        }
        const auto expected = Oracle::read(text);
        if (expected && (expected->size.rows > (1u << 16) || expected->size.cols > (1u << 16))) {
            continue;
        }
        const std::vector<std::string> paths{folder.write("first.mtx", valid_files[0].text),
                                             folder.write("mutant" + std::to_string(trial) + ".mtx", text)};
        try {
            std::vector<Data> items;
            switch (trial % 3) {
                case 0:
                    items = io::read_batch_matrix_market<larch::batch::Csr<double>>(paths, exec)->to_data();
                    break;
                case 1:
                    items = io::read_batch_matrix_market<larch::batch::Coo<double>>(paths, exec)->to_data();
                    break;
                default:
                    items = io::read_batch_matrix_market<larch::batch::Ell<double>>(paths, exec)->to_data();
            }
            ASSERT_TRUE(expected && expected->size.rows > 0 && expected->size.cols > 0)
                << "made a batch item of " << describe(seed + 1, trial, text);
            ASSERT_EQ(items.size(), 2u);
            ASSERT_EQ(items[1].size, expected->size) << describe(seed + 1, trial, text);
            ASSERT_EQ(items[1].entries, expected->entries) << describe(seed + 1, trial, text);
        } catch (const larch::BadInput& e) {
            ASSERT_TRUE(!expected || expected->size.rows == 0 || expected->size.cols == 0)
                << e.what() << "\nfor a valid item, " << describe(seed + 1, trial, text);
            ASSERT_TRUE(contains(e.what(), "'" + paths[1] + "'")) << e.what();
        } catch (const std::exception& e) {
            FAIL() << "not BadInput but " << typeid(e).name() << " '" << e.what() << "', "
                   << describe(seed + 1, trial, text);
        }
        std::filesystem::remove(paths[1]);
    }
}

}  // namespace
