// Matrix Market reader and writer on valid input: exact values of small hand-written files of every kind,
// write -> read round trips, and every real matrix of ../shared/matrices against its own header.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/io/matrix_market.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/errors.hpp"

namespace {

using larch::dim2;
using larch::matrix_data;
namespace io = larch::io;

template <typename V = double, typename I = std::int32_t>
matrix_data<V, I> read_text(const std::string& text)
{
    std::istringstream stream{text};
    return io::read_matrix_market_data<V, I>(stream, "'test.mtx'");
}

using entries = std::vector<matrix_data<double>::entry>;

TEST(MatrixMarketRead, ReadsCoordinateRealGeneralSkippingCommentsAndBlankLines)
{
    const auto data = read_text(
        "%%MatrixMarket matrix coordinate real general\n"
        "% a comment\n"
        "\n"
        "3 4 4\n"
        "3 4 -2.5e1\n"
        "1 1 1.5\n"
        "   % an indented comment between entries\n"
        "2 3 +0.25\n"
        "1 2 0\n");

    EXPECT_EQ(data.size, dim2(3, 4));
    // Sorted by row, then column; the explicit zero at (1, 2) is kept.
    EXPECT_EQ(data.entries, (entries{{0, 0, 1.5}, {0, 1, 0.0}, {1, 2, 0.25}, {2, 3, -25.0}}));
}

TEST(MatrixMarketRead, ReadsIntegerAndPatternFields)
{
    const auto integers =
        read_text("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 -7\n2 1 12\n");
    const auto pattern = read_text("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n2 2\n1 2\n");

    EXPECT_EQ(integers.entries, (entries{{0, 0, -7.0}, {1, 0, 12.0}}));
    EXPECT_EQ(pattern.entries, (entries{{0, 1, 1.0}, {1, 1, 1.0}}));
}

TEST(MatrixMarketRead, ExpandsTheLowerTriangleOfASymmetricFile)
{
    const auto data =
        read_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 -2\n3 3 6\n");

    EXPECT_EQ(data.entries,
              (entries{{0, 0, 4.0}, {0, 1, -1.0}, {1, 0, -1.0}, {1, 2, -2.0}, {2, 1, -2.0}, {2, 2, 6.0}}));
}

TEST(MatrixMarketRead, ExpandsTheUpperTriangleOfASymmetricPatternFile)
{
    const auto data = read_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 3\n2 2\n");

    EXPECT_EQ(data.entries, (entries{{0, 2, 1.0}, {1, 1, 1.0}, {2, 0, 1.0}}));
}

TEST(MatrixMarketRead, NegatesTheMirroredTriangleOfASkewSymmetricFile)
{
    const auto data =
        read_text("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -0.5\n");

    EXPECT_EQ(data.entries, (entries{{0, 1, -3.0}, {0, 2, 0.5}, {1, 0, 3.0}, {2, 0, -0.5}}));
}

TEST(MatrixMarketRead, ReadsAGeneralArrayColumnByColumn)
{
    // [1 3 5]
    // [2 4 0]
    const auto data = read_text("%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n0\n");

    EXPECT_EQ(data.size, dim2(2, 3));
    EXPECT_EQ(data.entries,
              (entries{{0, 0, 1.0}, {0, 1, 3.0}, {0, 2, 5.0}, {1, 0, 2.0}, {1, 1, 4.0}, {1, 2, 0.0}}));
}

TEST(MatrixMarketRead, ReadsThePackedLowerTriangleOfSymmetricArrays)
{
    // Columns of the lower triangle of [1 2 3; 2 4 5; 3 5 6]: (1 2 3), (4 5), (6).
    const auto symmetric =
        read_text("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
    // Strict lower triangle of [0 -1 -2; 1 0 -3; 2 3 0]: (1 2), (3).
    const auto skew = read_text("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");

    EXPECT_EQ(symmetric.entries, (entries{{0, 0, 1.0},
                                          {0, 1, 2.0},
                                          {0, 2, 3.0},
                                          {1, 0, 2.0},
                                          {1, 1, 4.0},
                                          {1, 2, 5.0},
                                          {2, 0, 3.0},
                                          {2, 1, 5.0},
                                          {2, 2, 6.0}}));
    EXPECT_EQ(skew.entries,
              (entries{{0, 1, -1.0}, {0, 2, -2.0}, {1, 0, 1.0}, {1, 2, -3.0}, {2, 0, 2.0}, {2, 1, 3.0}}));
}

TEST(MatrixMarketRead, AcceptsAnyCaseInTheBannerAndCrlfLineEnds)
{
    const auto data =
        read_text("%%matrixmarket MATRIX Coordinate REAL General\r\n% comment\r\n2 2 1\r\n2 1 7\r\n");

    EXPECT_EQ(data.size, dim2(2, 2));
    EXPECT_EQ(data.entries, (entries{{1, 0, 7.0}}));
}

TEST(MatrixMarketRead, SkipsAUtf8ByteOrderMarkBeforeTheBanner)
{
    const auto data = read_text("\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n2 1 7\r\n");

    EXPECT_EQ(data.size, dim2(2, 2));
    EXPECT_EQ(data.entries, (entries{{1, 0, 7.0}}));
}

TEST(MatrixMarketRead, SumsDuplicateEntries)
{
    const auto data =
        read_text("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1\n2 2 5\n1 2 0.5\n");

    EXPECT_EQ(data.entries, (entries{{0, 1, 1.5}, {1, 1, 5.0}}));
}

TEST(MatrixMarketRead, RoundsValuesBelowTheRangeOfTheValueTypeToZero)
{
    const auto doubles =
        read_text("%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 1e-400\n1 2 -1e-999\n");
    const auto floats = read_text<float>("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e-50\n");

    EXPECT_EQ(doubles.entries[0].value, 0.0);
    EXPECT_TRUE(std::signbit(doubles.entries[1].value));
    EXPECT_EQ(floats.entries[0].value, 0.0f);
}

TEST(MatrixMarketRead, ReadsIntoFloatWith64BitIndices)
{
    const auto data = read_text<float, std::int64_t>(
        "%%MatrixMarket matrix coordinate real general\n2 3000000000 1\n2 3000000000 0.1\n");

    ASSERT_EQ(data.entries.size(), 1u);
    EXPECT_EQ(data.size, dim2(2, 3000000000u));
    EXPECT_EQ(data.entries[0].col, std::int64_t{2999999999});
    EXPECT_EQ(data.entries[0].value, 0.1f);
}

TEST(MatrixMarketRead, ReadsAnEmptyMatrix)
{
    const auto data = read_text("%%MatrixMarket matrix coordinate real general\n0 5 0\n");

    EXPECT_EQ(data.size, dim2(0, 5));
    EXPECT_TRUE(data.entries.empty());
}

TEST(MatrixMarketRead, ReadsACoordinateFileDeclaringUpTo2To24RowsAndAnyColumnsWhateverItStores)
{
    const auto data = read_text("%%MatrixMarket matrix coordinate real general\n16777216 2000000000 1\n"
                                "16777216 1999999999 2.5\n");

    EXPECT_EQ(data.size, dim2(16777216, 2000000000));
    EXPECT_EQ(data.entries, (entries{{16777215, 1999999998, 2.5}}));
}

TEST(MatrixMarketRead, AcceptsASizeLineBeyond2To24RowsWithOneEntryPer16Rows)
{
    // 2^24 + 1 rows need ceil((2^24 + 1) / 16) = 1048577 entries; the size line is accepted, so the reader goes
    // on to count the entries and finds the file short of them. (One entry fewer: test/io/matrix_market_errors.)
    std::istringstream stream{"%%MatrixMarket matrix coordinate real general\n16777217 2 1048577\n1 1 1\n"};
    try {
        larch::io::read_matrix_market_data<double>(stream, "'tall.mtx'");
        ADD_FAILURE() << "no exception";
    } catch (const larch::BadInput& e) {
        EXPECT_NE(std::string{e.what()}.find("line 3: the input ends after 1 of 1048577 entries"), std::string::npos)
            << e.what();
    }
}

// A stand-in matrix class, so that read_matrix_market<MatrixType> is tested without the matrix classes.
struct RecordingMatrix {
    using value_type = double;
    using index_type = std::int64_t;
    matrix_data<double, std::int64_t> data;
    std::shared_ptr<const larch::Executor> exec;

    static std::unique_ptr<RecordingMatrix> create(std::shared_ptr<const larch::Executor> exec,
                                                   const matrix_data<double, std::int64_t>& data)
    {
        return std::unique_ptr<RecordingMatrix>{new RecordingMatrix{data, std::move(exec)}};
    }
};

std::string temp_path(const std::string& name)
{
    return (std::filesystem::path{testing::TempDir()} / name).string();
}

TEST(MatrixMarketRead, BuildsAMatrixThroughItsCreateFunction)
{
    const auto path = temp_path("larch_mm_create.mtx");
    std::ofstream{path} << "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 3\n";
    auto exec = larch::make_executor("reference");

    const auto matrix = io::read_matrix_market<RecordingMatrix>(path, exec);

    EXPECT_EQ(matrix->exec, exec);
    EXPECT_EQ(matrix->data.size, dim2(2, 2));
    ASSERT_EQ(matrix->data.entries.size(), 1u);
    EXPECT_EQ(matrix->data.entries[0].row, 1);
    EXPECT_EQ(matrix->data.entries[0].value, 3.0);
    std::remove(path.c_str());
}

TEST(MatrixMarketRead, BuildsCsrAndDenseMatricesOnAnExecutor)
{
    const auto path = temp_path("larch_mm_classes.mtx");
    std::ofstream{path} << "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 -1\n2 2 5\n";
    auto exec = larch::make_executor("reference");

    const auto csr = io::read_matrix_market<larch::matrix::Csr<double>>(path, exec);
    const auto dense = io::read_matrix_market<larch::matrix::Dense<float>>(path, exec);

    EXPECT_EQ(csr->get_size(), dim2(3, 3));
    EXPECT_EQ(csr->get_num_stored_elements(), 4u);
    EXPECT_EQ(dense->copy_to_host(), (std::vector<float>{2, 0, -1, 0, 5, 0, -1, 0, 0}));
    std::remove(path.c_str());
}

TEST(MatrixMarketRead, ThrowsBadInputNamingAFileThatCannotBeOpened)
{
    try {
        io::read_matrix_market_data<double>("/nonexistent/larch/A.mtx");
        FAIL() << "no exception";
    } catch (const larch::BadInput& e) {
        EXPECT_NE(std::string{e.what()}.find("cannot open '/nonexistent/larch/A.mtx'"), std::string::npos)
            << e.what();
    }
}

TEST(MatrixMarketRead, ThrowsBadInputNamingADirectoryGivenAsTheFile)
{
    const auto directory = ::testing::TempDir();
    try {
        io::read_matrix_market_data<double>(directory);
        FAIL() << "no exception";
    } catch (const larch::BadInput& e) {
        EXPECT_NE(std::string{e.what()}.find("'" + directory + "' is a directory"), std::string::npos) << e.what();
    }
}

template <typename V>
matrix_data<V> awkward_values()
{
    const V tiny = std::numeric_limits<V>::denorm_min();
    return matrix_data<V>{dim2(3, 2),
                          {{0, 0, V(0.1)},
                           {0, 1, V(1) / V(3)},
                           {1, 1, -std::numeric_limits<V>::max()},
                           {2, 0, tiny},
                           {2, 1, V(-12345.678901234567)}}};
}

template <typename V>
void expect_round_trip(io::MatrixMarketFormat format)
{
    const auto original = awkward_values<V>();
    std::stringstream stream;

    io::write_matrix_market(stream, original, format);
    const auto copy = io::read_matrix_market_data<V>(stream, "written");

    EXPECT_EQ(copy.size, original.size);
    if (format == io::MatrixMarketFormat::coordinate) {
        EXPECT_EQ(copy.entries, original.entries);
    } else {
        // The array holds every entry; the one not in `original`, (1, 0), is zero.
        auto expected = original;
        expected.entries.push_back({1, 0, V{0}});
        expected.sort_row_major();
        EXPECT_EQ(copy.entries, expected.entries);
    }
}

TEST(MatrixMarketWrite, CoordinateRoundTripsExactlyInDoubleAndFloat)
{
    expect_round_trip<double>(io::MatrixMarketFormat::coordinate);
    expect_round_trip<float>(io::MatrixMarketFormat::coordinate);
}

TEST(MatrixMarketWrite, ArrayRoundTripsExactlyInDoubleAndFloat)
{
    expect_round_trip<double>(io::MatrixMarketFormat::array);
    expect_round_trip<float>(io::MatrixMarketFormat::array);
}

TEST(MatrixMarketWrite, WritesTheExpectedText)
{
    const matrix_data<double> data{dim2(2, 2), {{1, 0, 2.5}, {0, 1, -1}}};
    std::ostringstream coordinate;
    std::ostringstream array;

    io::write_matrix_market(coordinate, data);
    io::write_matrix_market(array, data, io::MatrixMarketFormat::array);

    EXPECT_EQ(coordinate.str(), "%%MatrixMarket matrix coordinate real general\n2 2 2\n2 1 2.5\n1 2 -1\n");
    EXPECT_EQ(array.str(), "%%MatrixMarket matrix array real general\n2 2\n0\n2.5\n-1\n0\n");
}

TEST(MatrixMarketWrite, RoundTripsThroughAFile)
{
    const auto path = temp_path("larch_mm_round_trip.mtx");
    const auto original = awkward_values<double>();

    io::write_matrix_market(path, original);

    EXPECT_EQ(io::read_matrix_market_data<double>(path).entries, original.entries);
    std::remove(path.c_str());
}

TEST(MatrixMarketWrite, RejectsEntriesOutsideTheMatrix)
{
    const matrix_data<double> data{dim2(2, 2), {{2, 0, 1.0}}};
    std::ostringstream stream;

    EXPECT_THROW(io::write_matrix_market(stream, data), larch::BadInput);
}

TEST(MatrixMarketWrite, RefusesSizesTheReaderWouldRejectBeforeWritingAnything)
{
    // Each of these wrote a file that read_matrix_market_data then rejected on its size line.
    struct Refused {
        matrix_data<double> data;
        io::MatrixMarketFormat format;
        const char* expected;
    };
    const auto array = io::MatrixMarketFormat::array;
    const auto coordinate = io::MatrixMarketFormat::coordinate;
    const std::vector<Refused> refused{
        {matrix_data<double>{dim2(2147483647, 1)}, coordinate,
         "a 2147483647x1 matrix would not read back: the reader takes fewer than 2147483647 rows and columns"},
        {matrix_data<double>{dim2(33554432, 2), {{0, 0, 1.0}}}, coordinate,
         "the file would not read back: the 33554432 rows are far beyond the 1 entries"},
        {matrix_data<double>{dim2(33554432, 0)}, array,
         "the file would not read back: the 33554432 rows are far beyond the 0 values"},
        // 10^10 values: more than int32 counts (and 80 GB of memory for the values before anything failed)
        {matrix_data<double>{dim2(100000, 100000), {{0, 0, 1.0}}}, array,
         "a 100000x100000 array would not read back: the reader counts at most 2147483647 values"},
    };
    for (const auto& r : refused) {
        SCOPED_TRACE(r.expected);
        std::ostringstream stream;

        const auto message =
            larch::test::error_message_of([&] { io::write_matrix_market(stream, r.data, r.format); });

        larch::test::expect_contains(message, std::string{"write_matrix_market: "} + r.expected);
        EXPECT_EQ(stream.str(), "");
    }
}

TEST(MatrixMarketWrite, RefusesNaNAndInfNamingTheFirstSuchEntry)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const matrix_data<double> data{dim2(3, 3), {{0, 0, 1.0}, {1, 2, -inf}, {2, 1, nan}}};
    std::ostringstream coordinate;
    std::ostringstream array;

    const auto message = larch::test::error_message_of([&] { io::write_matrix_market(coordinate, data); });
    larch::test::expect_contains(message, "write_matrix_market: entry 1 at (1, 2) is -inf");
    EXPECT_THROW(io::write_matrix_market(array, data, io::MatrixMarketFormat::array), larch::BadInput);
    // refused before the banner, so no partial file
    EXPECT_EQ(coordinate.str(), "");
    EXPECT_EQ(array.str(), "");
}

TEST(MatrixMarketWrite, RefusesAnArrayEntryWhoseDuplicatesAddUpToInf)
{
    const double max = std::numeric_limits<double>::max();
    const matrix_data<double> data{dim2(2, 2), {{1, 0, max}, {1, 0, max}}};
    std::ostringstream stream;

    const auto message = larch::test::error_message_of(
        [&] { io::write_matrix_market(stream, data, io::MatrixMarketFormat::array); });

    larch::test::expect_contains(message, "the sum of the duplicate entries at (1, 0) is inf");
}

TEST(MatrixMarketWrite, LeavesAnExistingFileAsItWasWhenRefusingNaN)
{
    const auto path = temp_path("larch_mm_refused.mtx");
    const auto original = awkward_values<double>();
    io::write_matrix_market(path, original);
    auto with_nan = original;
    with_nan.entries[1].value = std::numeric_limits<double>::quiet_NaN();

    EXPECT_THROW(io::write_matrix_market(path, with_nan), larch::BadInput);

    EXPECT_EQ(io::read_matrix_market_data<double>(path).entries, original.entries);
    std::remove(path.c_str());
}

TEST(MatrixMarketWrite, LeavesAnExistingFileAsItWasWhenArrayDuplicatesAddUpToInf)
{
    const auto path = temp_path("larch_mm_refused_array.mtx");
    const auto original = awkward_values<double>();
    io::write_matrix_market(path, original);
    const double max = std::numeric_limits<double>::max();
    const matrix_data<double> overflowing{dim2(2, 2), {{1, 0, max}, {1, 0, max}}};

    EXPECT_THROW(io::write_matrix_market(path, overflowing, io::MatrixMarketFormat::array), larch::BadInput);

    EXPECT_EQ(io::read_matrix_market_data<double>(path).entries, original.entries);
    std::remove(path.c_str());
}

// What a file's header promises, counted independently of the reader: size and the number of distinct
// positions after expanding the symmetry.
struct HeaderCount {
    dim2 size;
    std::size_t nonzeros = 0;
};

HeaderCount count_by_header(const std::string& path)
{
    std::ifstream file{path};
    std::string line;
    std::getline(file, line);
    for (auto& c : line) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    const bool expand = line.find("general") == std::string::npos;
    do {
        std::getline(file, line);
    } while (line.empty() || line[0] == '%');
    HeaderCount count;
    std::size_t stored = 0;
    std::istringstream{line} >> count.size.rows >> count.size.cols >> stored;
    std::set<std::pair<long, long>> positions;
    long row = 0;
    long col = 0;
    for (std::size_t k = 0; k < stored && std::getline(file, line);) {
        if (line.empty() || line[0] == '%') {
            continue;
        }
        std::istringstream{line} >> row >> col;
        positions.insert({row, col});
        if (expand) {
            positions.insert({col, row});
        }
        ++k;
    }
    count.nonzeros = positions.size();
    return count;
}

TEST(MatrixMarketRead, ReadsEveryMatrixOfTheSharedCollectionAsItsHeaderSays)
{
    const std::filesystem::path directory{LARCH_MATRICES_DIR};
    if (!std::filesystem::is_directory(directory)) {
        GTEST_SKIP() << "no matrix collection at " << directory << " (LARCH_MATRICES_DIR)";
    }
    std::size_t num_files = 0;
    for (const auto& file : std::filesystem::directory_iterator{directory}) {
        if (file.path().extension() != ".mtx") {
            continue;
        }
        SCOPED_TRACE(file.path().string());
        const auto expected = count_by_header(file.path().string());

        const auto data = io::read_matrix_market_data<double>(file.path().string());

        EXPECT_EQ(data.size, expected.size);
        EXPECT_EQ(data.entries.size(), expected.nonzeros);
        ++num_files;
    }
    EXPECT_GT(num_files, 0u) << "no .mtx file in " << directory;
}

}  // namespace
