// batch::Csr, batch::Coo and batch::Ell on the reference executor with hand-checked values: creation
// (empty rows, a one-row item, items of different sizes, shared patterns), copies back, conversions,
// both applies, and bad input rejected with a message naming the item and the entry.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/io/batch_matrix_market.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/matrix/ell.hpp"
#include "test/batch/batch_sparse_test_helpers.hpp"
#include "test/utils/errors.hpp"

namespace {

using larch::dim2;
using larch::matrix_data;
using larch::size_type;
using larch::batch::PatternSharing;
using larch::batch::Vector;

/**
 * Item 0 (3 x 3, an empty middle row): [1 0 2; 0 0 0; 0 3 4]; item 1 (1 x 2, one row): [5 6];
 * item 2 (2 x 2): [0 7; 8 0].
 */
std::vector<matrix_data<double>> small_items()
{
    return {matrix_data<double>{dim2{3, 3}, {{0, 0, 1.0}, {0, 2, 2.0}, {2, 1, 3.0}, {2, 2, 4.0}}},
            matrix_data<double>{dim2{1, 2}, {{0, 0, 5.0}, {0, 1, 6.0}}},
            matrix_data<double>{dim2{2, 2}, {{0, 1, 7.0}, {1, 0, 8.0}}}};
}

/// b = ([1 2 3], [1 -1], [2 3]) in the first column and twice that in the second.
std::unique_ptr<Vector<double>> small_b(std::shared_ptr<const larch::Executor> exec)
{
    return Vector<double>::create(exec, {3, 2, 2}, 2, {1, 2, 2, 4, 3, 6, 1, 2, -1, -2, 2, 4, 3, 6});
}

/// A x b by hand: item 0: [1*1 + 2*3, 0, 3*2 + 4*3] = [7, 0, 18]; item 1: [5 - 6] = [-1];
/// item 2: [7*3, 8*2] = [21, 16]; second column twice the first.
const std::vector<double> small_product{7, 14, 0, 0, 18, 36, -1, -2, 21, 42, 16, 32};

template <typename Batch>
class BatchSparseReference : public ::testing::Test {
protected:
    std::shared_ptr<const larch::Executor> ref = larch::make_executor("reference");
};

using Formats = ::testing::Types<larch::batch::Csr<double>, larch::batch::Coo<double>,
                                 larch::batch::Ell<double>>;
TYPED_TEST_SUITE(BatchSparseReference, Formats);

TYPED_TEST(BatchSparseReference, KeepsSizesAndNonzerosOfItemsOfDifferentSizes)
{
    const auto a = TypeParam::create(this->ref, small_items());

    ASSERT_EQ(a->get_num_items(), 3u);
    EXPECT_EQ(a->get_item_size(0), (dim2{3, 3}));
    EXPECT_EQ(a->get_item_size(1), (dim2{1, 2}));
    EXPECT_EQ(a->get_item_size(2), (dim2{2, 2}));
    EXPECT_FALSE(a->get_layout().has_shared_pattern());
    EXPECT_EQ(a->get_layout().get_total_rows(), 6u);
    EXPECT_EQ(a->get_layout().get_max_size(), (dim2{3, 3}));
    EXPECT_EQ(a->get_layout().get_min_rows(), 1u);
    const auto data = a->to_data();
    for (size_type item = 0; item < 3; ++item) {
        EXPECT_EQ(data[item].entries, small_items()[item].entries) << "item " << item;
    }
}

TYPED_TEST(BatchSparseReference, SortsEntriesAndSumsDuplicates)
{
    const std::vector<matrix_data<double>> items{
        {dim2{2, 2}, {{1, 0, 1.0}, {0, 1, 2.0}, {1, 0, 3.0}}}};

    const auto a = TypeParam::create(this->ref, items);

    EXPECT_EQ(a->to_data()[0].entries,
              (std::vector<matrix_data<double>::entry>{{0, 1, 2.0}, {1, 0, 4.0}}));
}

TYPED_TEST(BatchSparseReference, RejectsFiniteDuplicatesWhoseSumOverflowsNamingTheItemAndPosition)
{
    const std::vector<matrix_data<double>> items{{dim2{2, 2}, {{0, 0, 1.0}}},
                                                 {dim2{2, 2}, {{1, 0, 1e308}, {0, 1, 2.0}, {1, 0, 1e308}}}};

    const auto message = larch::test::error_message_of([&] { TypeParam::create(this->ref, items); });

    larch::test::expect_contains(message, "::create: item 1: the duplicate entries at (1, 0) add up to a value too "
                                          "large for double");
}

TYPED_TEST(BatchSparseReference, AppliesToSeveralColumnsAsComputedByHand)
{
    const auto a = TypeParam::create(this->ref, small_items());
    const auto b = small_b(this->ref);
    auto x = Vector<double>::create(this->ref, {3, 1, 2}, 2);
    x->fill(std::numeric_limits<double>::quiet_NaN());  // must be overwritten, never read

    a->apply(*b, *x);

    EXPECT_EQ(x->copy_to_host(), small_product);
}

TYPED_TEST(BatchSparseReference, ScaledApplyAddsBetaTimesX)
{
    const auto a = TypeParam::create(this->ref, small_items());
    const auto b = small_b(this->ref);
    auto x = Vector<double>::create(this->ref, {3, 1, 2}, 2);
    x->fill(1.0);

    a->apply(2.0, *b, -1.0, *x);

    std::vector<double> expected;
    for (const auto value : small_product) {
        expected.push_back(2.0 * value - 1.0);
    }
    EXPECT_EQ(x->copy_to_host(), expected);
}

TYPED_TEST(BatchSparseReference, DetectsAndStoresASharedPatternOnce)
{
    // Three upper triangular 2 x 2 items [a b; 0 c] with different values.
    std::vector<matrix_data<double>> items;
    for (double scale : {1.0, 2.0, 3.0}) {
        items.push_back({dim2{2, 2}, {{0, 0, scale}, {0, 1, 2 * scale}, {1, 1, 3 * scale}}});
    }
    const auto shared = TypeParam::create(this->ref, items);
    const auto separate = TypeParam::create(this->ref, items, PatternSharing::per_item);
    auto b = Vector<double>::create(this->ref, {2, 2, 2}, 1, {1, 1, 1, 1, 1, 1});
    auto x = Vector<double>::create(this->ref, {2, 2, 2}, 1);

    EXPECT_TRUE(shared->get_layout().has_shared_pattern());
    EXPECT_FALSE(separate->get_layout().has_shared_pattern());
    shared->apply(*b, *x);
    // Row sums: item k (scale s) gives [3 s, 3 s].
    EXPECT_EQ(x->copy_to_host(), (std::vector<double>{3, 3, 6, 6, 9, 9}));
    EXPECT_EQ(shared->to_data()[2].entries, items[2].entries);
}

TYPED_TEST(BatchSparseReference, RejectsADeclaredSharedPatternThatDoesNotHold)
{
    const auto message = larch::test::error_message_of(
        [&] { TypeParam::create(this->ref, small_items(), PatternSharing::shared); });

    larch::test::expect_contains(message, "item 1");
    larch::test::expect_contains(message, "shared pattern");
    larch::test::expect_contains(message, "in size");

    // Same size: the first differing entry with both positions; one pattern the beginning of the other: the
    // count (a 3 x 3 and a 4 x 4 item with the same entries were reported "at its nonzero 1", which is not one).
    const matrix_data<double> diagonal{dim2{2, 2}, {{0, 0, 1.0}, {1, 1, 2.0}}};
    const matrix_data<double> moved{dim2{2, 2}, {{0, 0, 1.0}, {1, 0, 2.0}}};
    const matrix_data<double> shorter{dim2{2, 2}, {{0, 0, 1.0}}};
    larch::test::expect_contains(
        larch::test::error_message_of(
            [&] { TypeParam::create(this->ref, {diagonal, moved}, PatternSharing::shared); }),
        "at its nonzero 1: (1, 0) where item 0 has (1, 1)");
    larch::test::expect_contains(
        larch::test::error_message_of(
            [&] { TypeParam::create(this->ref, {diagonal, shorter}, PatternSharing::shared); }),
        "in its number of nonzeros");
}

TYPED_TEST(BatchSparseReference, RejectsAnOutOfRangeColumnNamingItemAndEntry)
{
    auto items = small_items();
    items[1].entries.push_back({0, 5, 1.0});

    const auto message =
        larch::test::error_message_of([&] { TypeParam::create(this->ref, items); });

    larch::test::expect_contains(message, "item 1");
    larch::test::expect_contains(message, "(0, 5)");
}

TYPED_TEST(BatchSparseReference, RejectsAnEmptyItem)
{
    auto items = small_items();
    items[2].size = dim2{0, 2};
    items[2].entries.clear();

    larch::test::expect_contains(
        larch::test::error_message_of([&] { TypeParam::create(this->ref, items); }), "item 2");
}

TYPED_TEST(BatchSparseReference, RejectsAnItemVectorOfTheWrongSizeBeforeAnyKernel)
{
    const auto a = TypeParam::create(this->ref, small_items());
    const auto b = Vector<double>::create(this->ref, {3, 2, 3}, 1);  // item 2 needs 2 rows
    auto x = Vector<double>::create(this->ref, {3, 1, 2}, 1);
    x->fill(-5.0);

    const auto message = larch::test::error_message_of([&] { a->apply(*b, *x); });
    const auto scaled_message =
        larch::test::error_message_of([&] { a->apply(1.0, *b, 0.0, *x); });

    larch::test::expect_contains(message, "item 2");
    larch::test::expect_contains(scaled_message, "item 2");
    EXPECT_EQ(x->copy_to_host(), std::vector<double>(6, -5.0));  // untouched: no kernel ran
}

TYPED_TEST(BatchSparseReference, RejectsMismatchedBatchCounts)
{
    const auto a = TypeParam::create(this->ref, small_items());
    const auto b = Vector<double>::create(this->ref, {3, 2}, 1);
    auto x = Vector<double>::create(this->ref, {3, 1}, 1);

    const auto message = larch::test::error_message_of([&] { a->apply(2.0, *b, 0.0, *x); });

    larch::test::expect_contains(message, "3 items");
    EXPECT_THROW(a->apply(*b, *x), larch::DimensionMismatch);
}

// apply remembers the operand layouts whose item sizes it checked (detail::CheckedLayouts); every other
// layout, a vector assigned another layout, and an operator assigned other sizes are checked again.
TYPED_TEST(BatchSparseReference, ChecksItemSizesAgainAfterAnApplyThatPassed)
{
    auto a = TypeParam::create(this->ref, small_items());
    const auto b = Vector<double>::create(this->ref, {3, 2, 2}, 1, {1, 2, 3, 4, 5, 6, 7});
    auto x = Vector<double>::create(this->ref, {3, 1, 2}, 1);
    const auto wrong_b = Vector<double>::create(this->ref, {3, 2, 3}, 1);  // item 2 needs 2 rows
    a->apply(*b, *x);

    larch::test::expect_contains(larch::test::error_message_of([&] { a->apply(*wrong_b, *x); }),
                                 "item 2");
    a->apply(1.0, *b, 0.0, *x);  // the operands that passed pass again
    auto reassigned_b = Vector<double>::create(this->ref, {3, 2, 2}, 1);
    a->apply(*reassigned_b, *x);
    *reassigned_b = *wrong_b;
    larch::test::expect_contains(
        larch::test::error_message_of([&] { a->apply(1.0, *reassigned_b, 0.0, *x); }), "item 2");

    auto items = small_items();
    items[2] = matrix_data<double>{dim2{2, 3}, {{0, 2, 1.0}}};  // item 2 now needs 3 rows of b
    *a = *TypeParam::create(this->ref, items);
    larch::test::expect_contains(larch::test::error_message_of([&] { a->apply(*b, *x); }), "item 2");
    a->apply(*wrong_b, *x);
}

TYPED_TEST(BatchSparseReference, ItemSizesIdIsKeptByClonesAndNewForEveryCreation)
{
    const auto a = TypeParam::create(this->ref, small_items());

    EXPECT_EQ(a->clone_to(this->ref)->get_item_sizes_id(), a->get_item_sizes_id());
    EXPECT_NE(TypeParam::create(this->ref, small_items())->get_item_sizes_id(), a->get_item_sizes_id());
}

TYPED_TEST(BatchSparseReference, RejectsXThatIsB)
{
    const std::vector<matrix_data<double>> items{{dim2{2, 2}, {{0, 0, 1.0}, {1, 1, 1.0}}}};
    const auto a = TypeParam::create(this->ref, items);
    auto b = Vector<double>::create(this->ref, {2}, 1, {1.0, 2.0});

    EXPECT_THROW(a->apply(*b, *b), larch::BadInput);
    EXPECT_THROW(a->apply(1.0, *b, 0.0, *b), larch::BadInput);
}

TYPED_TEST(BatchSparseReference, CopiesItemsBackAsSingleMatrices)
{
    const auto a = TypeParam::create(this->ref, small_items());

    const auto item = a->create_item(2);

    EXPECT_EQ(item->get_size(), (dim2{2, 2}));
    EXPECT_EQ(item->to_data().entries, small_items()[2].entries);
    EXPECT_THROW(a->create_item(3), larch::BadInput);
}

TYPED_TEST(BatchSparseReference, IsCreatedFromSingleMatricesOfEveryFormat)
{
    const auto items = small_items();
    std::vector<std::unique_ptr<larch::matrix::Csr<double>>> csr;
    std::vector<std::unique_ptr<larch::matrix::Dense<double>>> dense;
    for (const auto& data : items) {
        csr.push_back(larch::matrix::Csr<double>::create(this->ref, data));
        dense.push_back(larch::matrix::Dense<double>::create(this->ref, data));
    }
    std::vector<const larch::matrix::Csr<double>*> csr_items;
    std::vector<const larch::matrix::Dense<double>*> dense_items;
    for (size_type i = 0; i < items.size(); ++i) {
        csr_items.push_back(csr[i].get());
        dense_items.push_back(dense[i].get());
    }

    const auto from_csr = TypeParam::create_from_items(this->ref, csr_items);
    const auto from_dense = TypeParam::create_from_items(this->ref, dense_items);

    for (size_type item = 0; item < items.size(); ++item) {
        EXPECT_EQ(from_csr->to_data()[item].entries, items[item].entries);
        EXPECT_EQ(from_dense->to_data()[item].entries, items[item].entries);  // zeros dropped
    }
}

TYPED_TEST(BatchSparseReference, ConvertsToEveryFormatAndToDense)
{
    const auto a = TypeParam::create(this->ref, small_items());

    const auto csr = larch::batch::Csr<double>::create_from(this->ref, *a);
    const auto coo = larch::batch::Coo<double>::create_from(this->ref, *csr);
    const auto ell = larch::batch::Ell<double>::create_from(this->ref, *coo);
    const auto dense = ell->to_dense();

    EXPECT_EQ(ell->to_data()[0].entries, small_items()[0].entries);
    EXPECT_EQ(dense->copy_to_host(),
              (std::vector<double>{1, 0, 2, 0, 0, 0, 0, 3, 4, 5, 6, 0, 7, 8, 0}));
}

TYPED_TEST(BatchSparseReference, ReadsOneItemPerMatrixMarketFile)
{
    const auto items = small_items();
    std::vector<std::string> paths;
    for (size_type item = 0; item < items.size(); ++item) {
        // one name per format: ctest runs the formats' cases side by side, each writing and removing its files
        paths.push_back(::testing::TempDir() + "batch_sparse_" + typeid(TypeParam).name() + "_item" +
                        std::to_string(item) + ".mtx");
        larch::io::write_matrix_market(paths.back(), items[item]);
    }

    const auto a = larch::io::read_batch_matrix_market<TypeParam>(paths, this->ref);

    for (size_type item = 0; item < items.size(); ++item) {
        EXPECT_EQ(a->to_data()[item].entries, items[item].entries);
        std::remove(paths[item].c_str());
    }
}

TYPED_TEST(BatchSparseReference, NamesTheMatrixMarketFileOfAnEmptyItem)
{
    // A 0 x 3 matrix is valid Matrix Market, but no batch item may be empty.
    std::vector<std::string> paths;
    for (const std::string size : {"2 2 1\n1 1 5\n", "0 3 0\n"}) {
        paths.push_back(::testing::TempDir() + "batch_sparse_" + typeid(TypeParam).name() + "_empty_item" +
                        std::to_string(paths.size()) + ".mtx");
        std::ofstream{paths.back()} << "%%MatrixMarket matrix coordinate real general\n" << size;
    }

    const auto message = larch::test::error_message_of(
        [&] { larch::io::read_batch_matrix_market<TypeParam>(paths, this->ref); });

    larch::test::expect_contains(message, "read_batch_matrix_market: '" + paths[1] + "' (item 1) holds a 0x3 matrix");
    for (const auto& path : paths) {
        std::remove(path.c_str());
    }
}

TYPED_TEST(BatchSparseReference, RejectsAFileWhoseSizeLineIsFarBeyondItsEntriesBeforeAllocatingItsRows)
{
    // Two billion rows and three entries: read as declared, CSR would take 8 GB of row pointers and ELL 24 GB of
    // slots before anything failed; the reader rejects the size line instead.
    const auto path = ::testing::TempDir() + "batch_sparse_" + typeid(TypeParam).name() + "_huge_size.mtx";
    std::ofstream{path} << "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 3\n"
                        << "1 1 1\n2 2 2\n3 3 3\n";

    const auto message = larch::test::error_message_of(
        [&] { larch::io::read_batch_matrix_market<TypeParam>({path}, this->ref); });

    larch::test::expect_contains(message, "Matrix Market '" + path + "', line 2: the 2000000000 rows are far beyond "
                                          "the 3 entries");
    std::remove(path.c_str());
}

TEST(BatchEllReference, RejectsAnItemWhoseLongestRowPadsItBeyond2To31SlotsNamingTheRow)
{
    // 50,000 rows whose row 7 is full: 99,999 nonzeros, but 50,000 slots in each of the 50,000 rows of ELL.
    const std::int32_t n = 50000;
    matrix_data<double> item{dim2{n, n}};
    for (std::int32_t col = 0; col < n; ++col) {
        item.entries.push_back({7, col, 1.0});
    }
    for (std::int32_t row = 0; row < n; ++row) {
        if (row != 7) {
            item.entries.push_back({row, row, 2.0});
        }
    }
    const auto ref = larch::make_executor("reference");

    const auto message = larch::test::error_message_of(
        [&] { larch::batch::Ell<double>::create(ref, {small_items()[0], item}); });

    larch::test::expect_contains(message, "batch::Ell::create: item 1");
    larch::test::expect_contains(message, "99999 nonzeros");
    larch::test::expect_contains(message, "row 7 holds 50000 entries");
    // The same item is fine as CSR.
    EXPECT_EQ(larch::batch::Csr<double>::create(ref, {item})->get_max_row_nnz(), 50000u);
}

TEST(BatchCooReference, ToDenseOfItemsTooLargeForMemoryThrowsNamingTheirSize)
{
    // COO items cost memory by their entries only, so a batch of huge items is cheap until it is made dense.
    const std::int32_t n = 2147483647;
    const matrix_data<double> huge{dim2{size_type(n)}, {{n - 1, n - 1, 1.0}}};
    const auto ref = larch::make_executor("reference");

    // (2^31 - 1)^2 doubles are more bytes than 64 bits count (a host std::vector threw a bare std::length_error)
    const auto one = larch::batch::Coo<double>::create(ref, {huge});
    EXPECT_THROW(one->to_dense(), larch::AllocationError);
    // 2^64 + 4 entries in all, which wrapped to a host vector of 4 that the items were then written past
    auto items = std::vector<matrix_data<double>>(4, huge);
    items.push_back(matrix_data<double>{dim2{131072}, {{131071, 131071, 2.0}}});
    const auto five = larch::batch::Coo<double>::create(ref, items);
    const auto message = larch::test::error_message_of([&] { five->to_dense(); });
    larch::test::expect_contains(message, "batch::ItemLayout: items 0 to 2 hold more than 2^63-1 entries in all");
}

TEST(BatchCsrReference, PrecomputesEqualNonzeroSegmentsForTheBalancedKernel)
{
    // One 4 x 16 item whose row 1 holds 13 of the 16 nonzeros (rows 0, 2, 3 one each): the eight
    // segments of 2 nonzeros start at nonzeros 0, 2, ..., 14, i.e. in rows 0, 1, 1, 1, 1, 1, 1, 2, and
    // the end (nonzero 16) is row 4.
    matrix_data<double> data{dim2{4, 16}};
    data.entries.push_back({0, 0, 1.0});
    for (std::int32_t col = 0; col < 13; ++col) {
        data.entries.push_back({1, col, 1.0});
    }
    data.entries.push_back({2, 0, 1.0});
    data.entries.push_back({3, 0, 1.0});
    // A second item, 8 x 160, whose row 0 holds 150 of its 157 nonzeros.
    matrix_data<double> skewed{dim2{8, 160}};
    for (std::int32_t col = 0; col < 150; ++col) {
        skewed.entries.push_back({0, col, 1.0});
    }
    for (std::int32_t row = 1; row < 8; ++row) {
        skewed.entries.push_back({row, row, 1.0});
    }
    const auto a =
        larch::batch::Csr<double>::create(larch::make_executor("reference"), {data, skewed});

    const std::vector<std::int32_t> starts(a->get_const_balanced_row_starts(),
                                           a->get_const_balanced_row_starts() + 9);

    EXPECT_EQ(starts, (std::vector<std::int32_t>{0, 1, 1, 1, 1, 1, 1, 2, 4}));
    EXPECT_EQ(a->get_max_row_nnz(), 150u);
    // Automatic: item 0 has 4 nonzeros per row on average, item 1 157 / 8 >= 16, so the batch runs
    // smart or stream; scalar only where every item has fewer than 16 per row. Row 0 of item 1 (150)
    // is longer than twice the batch's mean (173 / 12), so stream.
    EXPECT_EQ(a->get_automatic_kernel(), larch::batch::CsrSpmvKernel::stream);
    const auto ref = larch::make_executor("reference");
    EXPECT_EQ(larch::batch::Csr<double>::create(ref, {data, data})->get_automatic_kernel(),
              larch::batch::CsrSpmvKernel::scalar);
    EXPECT_EQ(larch::batch::Csr<double>::create(ref, {skewed, skewed})->get_automatic_kernel(),
              larch::batch::CsrSpmvKernel::stream);
    // Rows of 20 and 40 nonzeros (mean 30): none longer than twice the mean, so smart; one row of 62
    // (mean 123 / 4) makes it stream.
    matrix_data<double> even{dim2{2, 64}};
    for (std::int32_t col = 0; col < 20; ++col) {
        even.entries.push_back({0, col, 1.0});
    }
    for (std::int32_t col = 0; col < 40; ++col) {
        even.entries.push_back({1, col, 1.0});
    }
    EXPECT_EQ(larch::batch::Csr<double>::create(ref, {even, even})->get_automatic_kernel(),
              larch::batch::CsrSpmvKernel::smart);
    matrix_data<double> one_long_row{dim2{2, 64}};
    for (std::int32_t col = 0; col < 62; ++col) {
        one_long_row.entries.push_back({0, col, 1.0});
    }
    one_long_row.entries.push_back({1, 0, 1.0});
    EXPECT_EQ(larch::batch::Csr<double>::create(ref, {even, one_long_row})->get_automatic_kernel(),
              larch::batch::CsrSpmvKernel::stream);
}

TEST(BatchSparseLayout, OrdersItemsByDecreasingStoredEntriesForTheBlockPerItemKernels)
{
    const auto ref = larch::make_executor("reference");
    const std::vector<dim2> sizes(5, dim2{1, 8});
    const larch::batch::SparseLayout layout{ref, sizes, {1, 3, 2, 3, 8}, false};
    const larch::batch::SparseLayout equal{ref, sizes, {4, 4, 4, 4, 4}, false};

    // Largest first, ties (items 1 and 3) in item order.
    const std::vector<std::int64_t> order(layout.get_const_work_order(),
                                          layout.get_const_work_order() + 5);
    EXPECT_EQ(order, (std::vector<std::int64_t>{4, 1, 3, 2, 0}));
    EXPECT_EQ(layout.clone_to(ref).get_const_work_order()[0], 4);
    EXPECT_EQ(equal.get_const_work_order(), nullptr);
}

TEST(BatchCsrReference, NamesEveryKernelAndRejectsUnknownNames)
{
    for (const auto name : {"automatic", "scalar", "vector", "smart", "balanced", "stream"}) {
        EXPECT_EQ(larch::batch::to_string(larch::batch::csr_spmv_kernel_from_string(name)), name);
    }
    larch::test::expect_contains(
        larch::test::error_message_of([] { larch::batch::csr_spmv_kernel_from_string("fast"); }),
        "'fast'");
}

}  // namespace
