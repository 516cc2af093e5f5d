// Matrix Market reader on malformed input: every case throws BadInput naming the line and what was
// expected there, and random mutations of valid files never crash, hang or throw anything else.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "larch/io/matrix_market.hpp"

namespace {

namespace io = larch::io;

struct MalformedCase {
    const char* description;
    std::string text;
    int line;                   // the line the message must name
    const char* expected_text;  // a fragment of the message saying what is wrong
};

const std::string general = "%%MatrixMarket matrix coordinate real general\n";
const std::string symmetric = "%%MatrixMarket matrix coordinate real symmetric\n";
const std::string skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n";
const std::string array = "%%MatrixMarket matrix array real general\n";

const std::vector<MalformedCase> malformed_cases{
    {"empty input", "", 1, "the input is empty; expected the banner"},
    {"no banner", "3 3 1\n1 1 1\n", 1, "expected the banner '%%MatrixMarket matrix"},
    {"banner glued to text", "%%MatrixMarketmatrix coordinate real general\n", 1, "expected the banner"},
    {"vector object", "%%MatrixMarket vector coordinate real general\n", 1,
     "unknown object 'vector' in the banner; expected 'matrix'"},
    {"unknown format", "%%MatrixMarket matrix sparse real general\n", 1,
     "unknown format 'sparse' in the banner; expected 'coordinate' or 'array'"},
    {"unknown field", "%%MatrixMarket matrix coordinate quaternion general\n", 1,
     "unknown field 'quaternion'"},
    {"complex field", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
     "complex matrices are not supported"},
    {"hermitian symmetry", "%%MatrixMarket matrix coordinate real hermitian\n", 1,
     "complex matrices are not supported (symmetry 'hermitian')"},
    {"unknown symmetry", "%%MatrixMarket matrix coordinate real diagonal\n", 1,
     "unknown symmetry 'diagonal'"},
    {"banner without symmetry", "%%MatrixMarket matrix coordinate real\n", 1,
     "the banner ends before its symmetry"},
    {"text after the banner", "%%MatrixMarket matrix coordinate real general extra\n", 1,
     "unexpected text 'extra' after the banner's symmetry"},
    {"pattern array", "%%MatrixMarket matrix array pattern general\n", 1,
     "'pattern' is only valid in coordinate files"},
    // a pattern has no values to negate; the Matrix Market specification defines no skew-symmetric pattern
    {"skew-symmetric pattern", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 1\n2 1\n", 1,
     "field 'pattern' cannot be skew-symmetric"},
    {"no size line", general + "% only a comment\n", 2, "the input ends before the size line"},
    {"lines ended by CR alone", "%%MatrixMarket matrix coordinate real general\r1 1 1\r1 1 1\r", 1,
     "the banner line holds a carriage return (CR) before its end; Matrix Market lines end in LF or CR LF"},
    {"byte order mark before a comment", "\xEF\xBB\xBF% comment\n", 1, "expected the banner"},
    {"size line with a word", general + "3 x 1\n", 2,
     "expected the number of columns (a non-negative integer)"},
    {"negative size", general + "3 -3 1\n", 2, "the number of columns on the size line is negative (-3)"},
    {"size line too short", general + "3 3\n", 2, "the size line ends before the number of entries"},
    {"size line too long", general + "3 3 1 4\n", 2, "unexpected text '4' after the size line"},
    {"array size line with a count", array + "2 2 4\n", 2,
     "unexpected text '4' after the size line 'rows columns'"},
    {"size beyond int32", general + "3000000000 1 0\n", 2, "does not fit the index type int32"},
    // CSR's row pointers need one more than the row count
    {"size at the int32 maximum", general + "2147483647 1 0\n", 2,
     "does not fit the index type int32 (fewer than 2147483647 rows and columns)"},
    {"entry count beyond int32", general + "2 2 3000000000\n1 1 1\n", 2,
     "the entry count 3000000000 does not fit the index type int32"},
    {"line too long", general + "3 3 1\n1 1 " + std::string(70000, '1') + "\n", 3,
     "the line is longer than 65536 characters"},
    {"size beyond int64", general + "99999999999999999999 1 0\n", 2, "is too large"},
    {"non-square symmetric", symmetric + "3 4 1\n", 2, "must be square"},
    // beyond 2^24 rows, at least one entry per 16 of them: a corrupt size line, not a matrix
    {"rows far beyond the entries", general + "2000000000 2000000000 3\n1 1 1\n2 2 2\n3 3 3\n", 2,
     "the 2000000000 rows are far beyond the 3 entries: a matrix of more than 16777216 rows must store at least "
     "one entry per 16 rows"},
    {"one entry too few for 2^24 + 1 rows", general + "16777217 2 1048576\n", 2,
     "the 16777217 rows are far beyond the 1048576 entries"},
    {"rows of an empty array", array + "16777217 0\n", 2, "the 16777217 rows are far beyond the 0 values"},
    {"too few entries", general + "3 3 3\n1 1 1\n% comment\n2 2 2\n", 5,
     "the input ends after 2 of 3 entries"},
    {"absurd entry count", general + "2 2 2000000000\n1 1 1\n", 3,
     "the input ends after 1 of 2000000000 entries"},
    {"too many entries", general + "3 3 1\n1 1 1\n2 2 2\n", 4,
     "found more entries than the 1 declared on the size line"},
    {"row index zero", general + "3 3 1\n0 1 1\n", 3, "the row index '0' of entry 1 is out of range 1..3"},
    {"column index too large", general + "3 3 2\n1 1 1\n2 4 1\n", 4,
     "the column index '4' of entry 2 is out of range 1..3"},
    {"index beyond int64", general + "3 3 1\n1 99999999999999999999 1\n", 3, "is out of range 1..3"},
    {"fractional index", general + "3 3 1\n1.5 1 1\n", 3,
     "expected the row index of entry 1 (an integer in 1..3)"},
    {"double sign", general + "3 3 1\n+-1 1 1\n", 3, "expected the row index"},
    {"missing column", general + "3 3 1\n1\n", 3, "the line ends before the column index of entry 1"},
    {"missing value", general + "3 3 1\n1 1\n", 3, "the line ends before the value of entry (1, 1)"},
    {"word as value", general + "3 3 1\n1 1 abc\n", 3,
     "expected the value of entry (1, 1) (a real number), found 'abc'"},
    {"two points", general + "3 3 1\n1 1 1.5.3\n", 3, "found '1.5.3'"},
    {"Fortran exponent", general + "3 3 1\n1 1 1.0D+00\n", 3, "found '1.0D+00'"},
    {"text after an entry", general + "3 3 1\n1 1 1.0 7\n", 3, "unexpected text '7' after entry (1, 1)"},
    {"text after a pattern entry", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
     "unexpected text '1' after entry (1, 1)"},
    {"NaN value", general + "3 3 2\n1 1 1\n2 2 nan\n", 4, "is not a finite number"},
    {"infinite value", general + "3 3 1\n1 1 -inf\n", 3, "is not a finite number"},
    {"value beyond double", general + "3 3 1\n1 1 1e400\n", 3,
     "the value '1e400' of entry (1, 1) is too large for double"},
    {"fraction in an integer file", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3,
     "(an integer), found '1.5'"},
    {"integer beyond int64",
     "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 99999999999999999999\n", 3,
     "is too large"},
    {"skew-symmetric diagonal", skew + "3 3 2\n2 1 1\n2 2 1\n", 4, "the file stores entry (2, 2)"},
    {"both triangles", symmetric + "3 3 3\n1 1 1\n2 1 1\n% c\n1 3 1\n", 6,
     "entry (1, 3) lies above the diagonal, but line 4 stored an entry below it"},
    {"too few array values", array + "2 2\n1\n2\n3\n", 5, "the input ends after 3 of 4 values"},
    {"too many array values", array + "1 2\n1\n2\n3\n", 5, "found more values than the 2 declared"},
    {"two array values on a line", array + "2 1\n1 2\n", 3, "an array file holds one value per line"},
    {"array value beyond double", array + "1 1\n-2e308\n", 3, "is too large for double"},
    {"symmetric array of the wrong length", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n",
     6, "found more values than the 3 declared"},
};

TEST(MatrixMarketErrors, EachMalformedInputThrowsBadInputNamingTheLine)
{
    for (const auto& malformed : malformed_cases) {
        SCOPED_TRACE(malformed.description);
        std::istringstream stream{malformed.text};
        try {
            io::read_matrix_market_data<double>(stream, "'bad.mtx'");
            ADD_FAILURE() << "no exception for: " << malformed.text;
        } catch (const larch::BadInput& e) {
            const std::string message = e.what();
            const auto where = "Matrix Market 'bad.mtx', line " + std::to_string(malformed.line) + ": ";
            EXPECT_NE(message.find(where), std::string::npos) << message;
            EXPECT_NE(message.find(malformed.expected_text), std::string::npos) << message;
        }
    }
}

TEST(MatrixMarketErrors, RejectsArraysWhoseValueCountOverflowsTheIndexType)
{
    // 2^32 x 2^32 values: 2^64, which a 64-bit product wraps to 0 (an empty array)
    for (const std::string size : {"4294967296 4294967296", "6074001000 6074001000"}) {
        for (const std::string symmetry : {"general", "symmetric"}) {
            SCOPED_TRACE(size + " " + symmetry);
            std::istringstream stream{"%%MatrixMarket matrix array real " + symmetry + "\n" + size + "\n"};
            try {
                io::read_matrix_market_data<double, std::int64_t>(stream, "'big.mtx'");
                ADD_FAILURE() << "no exception";
            } catch (const larch::BadInput& e) {
                EXPECT_NE(std::string{e.what()}.find("line 2: an array of " + std::string{size.substr(0, size.find(' '))}),
                          std::string::npos)
                    << e.what();
                EXPECT_NE(std::string{e.what()}.find("holds more values than the index type int64"), std::string::npos)
                    << e.what();
            }
        }
    }
}

TEST(MatrixMarketErrors, RejectsValuesBeyondFloatWhenReadingFloat)
{
    std::istringstream stream{general + "1 1 1\n1 1 1e39\n"};

    EXPECT_THROW(io::read_matrix_market_data<float>(stream, "f"), larch::BadInput);
}

TEST(MatrixMarketErrors, RejectsDuplicatesWhoseSumOverflows)
{
    std::istringstream stream{general + "1 1 2\n1 1 3e38\n1 1 3e38\n"};

    EXPECT_THROW(io::read_matrix_market_data<float>(stream, "f"), larch::BadInput);
}

// Applies one random edit: change, insert or delete a byte, cut the text, or repeat a line.
std::string mutate(std::string text, std::mt19937& random)
{
    static const std::string interesting = "0123456789 .-+eE%\n\r\tnai";
    auto pick = [&](std::size_t bound) {
        return std::uniform_int_distribution<std::size_t>{0, bound}(random);
    };
    auto random_char = [&] {
        return pick(3) == 0 ? static_cast<char>(pick(255)) : interesting[pick(interesting.size() - 1)];
    };
    if (text.empty()) {
        return std::string(1, random_char());
    }
    const auto position = pick(text.size() - 1);
    switch (pick(4)) {
        case 0:
            text[position] = random_char();
            break;
        case 1:
            text.insert(text.begin() + static_cast<std::ptrdiff_t>(position), random_char());
            break;
        case 2:
            text.erase(position, 1);
            break;
        case 3:
            text.resize(position);
            break;
        default: {
            const auto line_start = text.rfind('\n', position);
            const auto begin = line_start == std::string::npos ? 0 : line_start + 1;
            const auto end = text.find('\n', position);
            const auto line =
                text.substr(begin, end == std::string::npos ? std::string::npos : end - begin + 1);
            text.insert(begin, line);
        }
    }
    return text;
}

TEST(MatrixMarketErrors, RandomMutationsOfValidFilesOnlyEverThrowBadInput)
{
    const std::vector<std::string> valid_files{
        general + "% comment\n3 4 4\n3 4 -2.5e1\n1 1 1.5\n2 3 0.25\n1 2 0\n",
        symmetric + "3 3 4\n1 1 4\n2 1 -1\n3 2 -2\n3 3 6\n",
        skew + "3 3 2\n2 1 3\n3 1 -0.5\n",
        "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n2 2\n1 2\n",
        "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 3\n2 1 -4\n",
        array + "2 3\n1\n2\n3\n4\n5\n0\n",
        "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
    };
    const unsigned seed = 20240611;
    std::mt19937 random{seed};
    std::size_t num_rejected = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        auto text = valid_files[trial % valid_files.size()];
        const int num_edits = 1 + static_cast<int>(random() % 3);
        for (int edit = 0; edit < num_edits; ++edit) {
            text = mutate(text, random);
        }
        std::istringstream stream{text};
        try {
            if (trial % 2 == 0) {
                io::read_matrix_market_data<double, std::int32_t>(stream, "fuzz");
            } else {
                io::read_matrix_market_data<float, std::int64_t>(stream, "fuzz");
            }
        } catch (const larch::BadInput&) {
            ++num_rejected;
        } catch (const std::exception& e) {
            FAIL() << "seed " << seed << ", trial " << trial << ": not BadInput but '" << e.what()
                   << "' for the input:\n"
                   << text;
        }
    }
    // Most single edits break a file; if almost none were rejected, the mutations are not reaching it.
    EXPECT_GT(num_rejected, 5000u) << "seed " << seed;
}

}  // namespace
