// Block-Jacobi on the shared matrices: the supervariable blocks of A against the peers' block counts, every
// executor against the reference (with the rows of zero-diagonal matrices matched), adaptive storage that
// stores fewer bytes, and the zero-diagonal matrices, which must never give NaN or a silently wrong block.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "larch/io/matrix_market.hpp"
#include "larch/preconditioner/block_jacobi.hpp"
#include "test/preconditioner/block_jacobi_checks.hpp"
#include "test/utils/executors.hpp"

namespace {

namespace fs = std::filesystem;
using namespace block_jacobi_checks;
using larch::preconditioner::BlockJacobiAlgorithm;
using larch::preconditioner::BlockJacobiRowMatching;
using larch::preconditioner::BlockJacobiStorage;

class BlockJacobiBackendTest : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> shared_matrices()
{
    std::vector<std::string> files;
    std::error_code error;
    for (fs::directory_iterator it{LARCH_MATRICES_DIR, error}, end; !error && it != end; it.increment(error)) {
        if (it->path().extension() == ".mtx") {
            files.push_back(it->path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The bound-32 blocks of PETSc's vpbjacobi and Ginkgo's Jacobi (identical to each other) on the shared
// matrices, as listed in ../shared/PEERS.md: number of blocks, smallest and largest block.
struct BlockCounts {
    larch::size_type count;
    larch::size_type smallest;
    larch::size_type largest;
};
const std::map<std::string, BlockCounts> peer_blocks{
        {"1138_bus", {36, 18, 32}},
        {"494_bus", {16, 14, 32}},
        {"662_bus", {21, 22, 32}},
        {"USAir97", {11, 12, 32}},
        {"add32", {155, 32, 32}},
        {"adder_dcop_05", {57, 24, 32}},
        {"ani1", {2, 4, 32}},
        {"ani4", {97, 9, 32}},
        {"bayer10", {420, 28, 32}},
        {"bcsstk01", {2, 16, 32}},
        {"bcsstk02", {3, 2, 32}},
        {"bcsstk03", {4, 16, 32}},
        {"bcsstk04", {5, 4, 32}},
        {"bcsstk06", {14, 8, 32}},
        {"bcsstk14", {57, 14, 32}},
        {"bcsstk16", {163, 15, 32}},
        {"bcsstm07", {14, 4, 32}},
        {"bentpipe2d100", {313, 16, 32}},
        {"bp_1200", {26, 22, 32}},
        {"cage8", {32, 23, 32}},
        {"ck400", {13, 16, 32}},
        {"dwt_918", {29, 22, 32}},
        {"dwt_992", {31, 32, 32}},
        {"e05r0500", {8, 17, 32}},
        {"ex2", {15, 24, 32}},
        {"fs_183_1", {6, 23, 32}},
        {"fs_541_1", {17, 29, 32}},
        {"gr_30_30", {29, 4, 32}},
        {"gre_115", {4, 19, 32}},
        {"jpwh_991", {31, 31, 32}},
        {"laplace3d10", {32, 8, 32}},
        {"lns_131", {5, 3, 32}},
        {"mbeacxc", {16, 22, 32}},
        {"nos3", {30, 32, 32}},
        {"nos4", {4, 4, 32}},
        {"nos5", {15, 20, 32}},
        {"orsirr_1", {33, 6, 32}},
        {"pde900", {29, 4, 32}},
        {"pivtol", {4, 6, 32}},
        {"rbsa480", {15, 32, 32}},
        {"rdb2048", {64, 32, 32}},
        {"saylr1", {8, 14, 32}},
        {"sherman1", {32, 8, 32}},
        {"sherman2", {34, 24, 32}},
        {"sherman3", {157, 13, 32}},
        {"sherman4", {35, 16, 32}},
        {"steam1", {8, 30, 30}},
        {"steam2", {19, 24, 32}},
        {"tomography", {16, 20, 32}},
        {"watt_1", {58, 32, 32}},
        {"west0479", {15, 31, 32}}};

TEST(BlockJacobiBlocks, FindsTheSameBlocksAsThePeersOnTheSharedMatrices)
{
    auto exec = larch::make_executor("reference");
    const auto files = shared_matrices();
    if (files.empty()) {
        GTEST_SKIP() << "no .mtx files in " << LARCH_MATRICES_DIR;
    }
    for (const auto& file : files) {
        const auto name = fs::path{file}.stem().string();
        const auto expected = peer_blocks.find(name);
        if (expected == peer_blocks.end()) {
            continue;
        }
        // the peers block A itself: no row matching
        auto jacobi = Jacobi::build()
                          .with_max_block_size(32)
                          .with_row_matching(BlockJacobiRowMatching::none)
                          .on(exec)
                          ->generate(larch::share(Csr::create(exec, larch::io::read_matrix_market_data<double>(file))));
        const auto& pointers = jacobi->get_detected_block_pointers();
        larch::size_type smallest = pointers.back();
        larch::size_type largest = 0;
        for (size_t block = 0; block + 1 < pointers.size(); ++block) {
            const auto rows = static_cast<larch::size_type>(pointers[block + 1] - pointers[block]);
            smallest = std::min(smallest, rows);
            largest = std::max(largest, rows);
        }
        EXPECT_EQ(pointers.size() - 1, expected->second.count) << name;
        EXPECT_EQ(smallest, expected->second.smallest) << name;
        EXPECT_EQ(largest, expected->second.largest) << name;
        // every split of a singular block adds one block
        EXPECT_EQ(jacobi->get_num_blocks(), pointers.size() - 1 + jacobi->get_num_split_blocks()) << name;
    }
}

TEST_P(BlockJacobiBackendTest, MatchesTheReferenceOnEverySharedMatrix)
{
    LARCH_EXECUTOR_OR_SKIP(exec, GetParam());
    const auto files = shared_matrices();
    if (files.empty()) {
        GTEST_SKIP() << "no .mtx files in " << LARCH_MATRICES_DIR;
    }
    for (const auto& file : files) {
        const auto data = larch::io::read_matrix_market_data<double>(file);
        if (data.size.rows != data.size.cols) {
            continue;
        }
        for (auto algorithm : {BlockJacobiAlgorithm::gauss_jordan, BlockJacobiAlgorithm::gauss_huard}) {
            check_against_reference(exec, data,
                                    Jacobi::build().with_max_block_size(32).with_algorithm(algorithm).with_storage_precision(
                                        BlockJacobiStorage::adaptive),
                                    fs::path{file}.filename().string());
        }
    }
}

TEST(BlockJacobiBlocks, AdaptiveStorageStoresFewerBytesOnAWellConditionedMatrix)
{
    auto exec = larch::make_executor("reference");
    const auto file = std::string{LARCH_MATRICES_DIR} + "/bcsstk16.mtx";
    if (!fs::exists(file)) {
        GTEST_SKIP() << file << " not found";
    }
    auto a = larch::share(Csr::create(exec, larch::io::read_matrix_market_data<double>(file)));
    auto factory = Jacobi::build().with_max_block_size(32);
    const auto working = factory.on(exec)->generate(a)->get_storage_bytes();
    const auto adaptive =
        factory.with_storage_precision(BlockJacobiStorage::adaptive).on(exec)->generate(a)->get_storage_bytes();
    EXPECT_LT(adaptive, working);
    std::cout << "bcsstk16: working " << working << " bytes, adaptive " << adaptive << " bytes\n";
}

TEST(BlockJacobiBlocks, ZeroDiagonalMatricesGiveNoNaNAndReportTheirSingularBlocks)
{
    auto exec = larch::make_executor("reference");
    for (const std::string name : {"west0479", "bp_1200", "lns_131", "mbeacxc", "bayer10"}) {
        const auto file = std::string{LARCH_MATRICES_DIR} + "/" + name + ".mtx";
        if (!fs::exists(file)) {
            GTEST_SKIP() << file << " not found";
        }
        const auto data = larch::io::read_matrix_market_data<double>(file);
        auto a = larch::share(Csr::create(exec, data));
        const auto unmatched = Jacobi::build().with_row_matching(BlockJacobiRowMatching::none).on(exec)->generate(a);
        for (auto matching : {BlockJacobiRowMatching::none, BlockJacobiRowMatching::automatic}) {
            SCOPED_TRACE(name + (matching == BlockJacobiRowMatching::none ? " without" : " with") + " row matching");
            auto jacobi = Jacobi::build().with_max_block_size(32).with_row_matching(matching).on(exec)->generate(a);
            const auto& permutation = jacobi->get_row_permutation();
            // automatic matches the rows of every matrix with a zero diagonal entry, and the matching leaves
            // fewer zero diagonal entries than A has
            ASSERT_EQ(permutation.empty(), matching == BlockJacobiRowMatching::none);
            if (!permutation.empty()) {
                EXPECT_LT(jacobi->get_num_zero_diagonal_rows(), unmatched->get_num_zero_diagonal_rows());
            }
            std::vector<double> b(data.size.rows, 1.0);
            const auto x = apply_to(*jacobi, b);
            const auto& pointers = jacobi->get_block_pointers();
            const auto& cond = jacobi->get_condition_numbers();
            const auto& singular = jacobi->get_singular_blocks();
            const auto residuals =
                block_residuals(rows_as_blocked(data, permutation), pointers, gathered(b, permutation), x);
            for (larch::size_type block = 0; block + 1 < pointers.size(); ++block) {
                for (auto i = pointers[block]; i < pointers[block + 1]; ++i) {
                    ASSERT_TRUE(std::isfinite(x[i])) << "row " << i;
                }
                if (std::find(singular.begin(), singular.end(), block) == singular.end()) {
                    // a block kept as a block is a correct inverse: its residual is that of a stable solve
                    const double n = pointers[block + 1] - pointers[block];
                    EXPECT_LE(residuals[block], 64 * n * 0x1p-52 * cond[block]) << "block " << block;
                }
            }
            std::cout << name << (permutation.empty() ? "" : " (rows matched)") << ": " << pointers.size() - 1
                      << " blocks after " << jacobi->get_num_split_blocks() << " splits, " << singular.size()
                      << " singular rows, " << jacobi->get_num_zero_diagonal_rows() << " zero diagonal entries\n";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllExecutors, BlockJacobiBackendTest, ::testing::ValuesIn(larch::test::executor_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
