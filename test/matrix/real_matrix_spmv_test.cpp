// SpMV of every format on every real matrix of LARCH_MATRICES_DIR (../shared/matrices), on every executor,
// against the reference executor: one test per executor and matrix, named after both. Without the folder
// the suite holds one test that SKIPs and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/io/matrix_market.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/matrix/ell.hpp"
#include "test/utils/apply_check.hpp"
#include "test/utils/executors.hpp"

namespace {

namespace fs = std::filesystem;
using larch::matrix::Coo;
using larch::matrix::Csr;
using larch::matrix::Dense;
using larch::matrix::Ell;

/// Stands for the matrix list when the folder is absent, so that the test SKIPs instead of vanishing.
const std::string no_matrices = "no_matrices";

/// Every .mtx file of the matrix folder, sorted by name.
std::vector<std::string> matrix_files()
{
    std::vector<std::string> files;
    std::error_code error;
    for (fs::directory_iterator it{LARCH_MATRICES_DIR, error}, end; !error && it != end;
         it.increment(error)) {
        if (it->path().extension() == ".mtx") {
            files.push_back(it->path().filename().string());
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        files.push_back(no_matrices);
    }
    return files;
}

// Dense stores every entry: above 25 million (200 MB in double, once per executor and once on the host)
// the Dense apply is left out, and the test says so.
constexpr larch::size_type max_dense_entries = 25'000'000;

template <typename V>
void check_every_format(const std::shared_ptr<const larch::Executor>& exec, const std::string& path)
{
    SCOPED_TRACE(std::string{"value type "} + larch::type_name<V>());
    const auto data = larch::io::read_matrix_market_data<V, std::int32_t>(path);
    const bool with_dense = data.size.rows * data.size.cols <= max_dense_entries;
    if (!with_dense && std::is_same<V, double>::value) {
        std::cout << "[   NOTE   ] " << path << " (" << larch::to_string(data.size)
                  << "): Dense apply left out, more than " << max_dense_entries << " entries\n";
    }
    // One plain apply and one with several right-hand sides, alpha, beta and a padded stride.
    const std::vector<larch::test::apply_case> cases{{1, 1.0, 0.0, 0, 1000}, {3, -0.5, 2.0, 1, 1002}};
    for (const auto& test_case : cases) {
        larch::test::expect_apply_matches_reference<Csr<V>>(exec, data, test_case);
        larch::test::expect_apply_matches_reference<Coo<V>>(exec, data, test_case);
        larch::test::expect_apply_matches_reference<Ell<V>>(exec, data, test_case);
        if (with_dense) {
            larch::test::expect_apply_matches_reference<Dense<V>>(exec, data, test_case);
        }
    }
}

class RealMatrixSpmv
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(RealMatrixSpmv, EveryFormatMatchesReference)
{
    const auto& [executor_name, file] = GetParam();
    if (file == no_matrices) {
        GTEST_SKIP() << "no .mtx files in " << LARCH_MATRICES_DIR
                     << " (the shared matrix folder is absent or empty): real-matrix SpMV not tested";
    }
    LARCH_EXECUTOR_OR_SKIP(exec, executor_name);
    const auto path = (fs::path{LARCH_MATRICES_DIR} / file).string();
    SCOPED_TRACE("matrix " + path);
    check_every_format<double>(exec, path);
    check_every_format<float>(exec, path);
}

std::string test_name(const ::testing::TestParamInfo<RealMatrixSpmv::ParamType>& info)
{
    auto name = std::get<0>(info.param) + "_" + fs::path{std::get<1>(info.param)}.stem().string();
    std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(AllExecutorsAndMatrices, RealMatrixSpmv,
                         ::testing::Combine(::testing::ValuesIn(larch::test::executor_names()),
                                            ::testing::ValuesIn(matrix_files())),
                         test_name);

}  // namespace
