// Helpers of the batched sparse tests: random heterogeneous batches with a fixed seed, batches of the
// real matrices, and the three formats behind one name for typed tests.
#pragma once

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "larch/base/matrix_data.hpp"
#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/batch/vector.hpp"
#include "larch/io/matrix_market.hpp"

namespace larch {
namespace test {

/**
 * `num_items` random items: orders 1..max_rows (rectangular ones too), each row with 0 to
 * 2 * mean_row_nnz nonzeros, plus every tenth item with one dense row (the unbalanced case), values
 * uniform in [-1, 1].
 */
template <typename T>
std::vector<matrix_data<T>> random_sparse_items(std::mt19937& rng, size_type num_items,
                                                size_type max_rows, size_type mean_row_nnz)
{
    std::uniform_int_distribution<size_type> order(1, max_rows);
    std::uniform_int_distribution<size_type> row_nnz(0, 2 * mean_row_nnz);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<matrix_data<T>> items;
    for (size_type item = 0; item < num_items; ++item) {
        const auto rows = order(rng);
        const auto cols = item % 3 == 0 ? order(rng) : rows;
        matrix_data<T> data{dim2{rows, cols}};
        std::uniform_int_distribution<std::int32_t> col(0, static_cast<std::int32_t>(cols) - 1);
        for (size_type row = 0; row < rows; ++row) {
            const auto count = item % 10 == 0 && row == rows / 2 ? cols : row_nnz(rng);
            for (size_type k = 0; k < count; ++k) {
                data.entries.push_back({static_cast<std::int32_t>(row),
                                        count == cols ? static_cast<std::int32_t>(k) : col(rng),
                                        static_cast<T>(value(rng))});
            }
        }
        data.sum_duplicates();
        items.push_back(std::move(data));
    }
    return items;
}

/// The matrices of LARCH_MATRICES_DIR with more than `min_rows` and at most `max_rows` rows, in file
/// name order (every file is parsed once per test program).
inline std::vector<matrix_data<double>> real_matrices(size_type min_rows, size_type max_rows)
{
    static const auto all = [] {
        std::vector<std::string> files;
        std::error_code error;
        for (std::filesystem::directory_iterator it{LARCH_MATRICES_DIR, error}, end;
             !error && it != end; it.increment(error)) {
            if (it->path().extension() == ".mtx") {
                files.push_back(it->path().string());
            }
        }
        std::sort(files.begin(), files.end());
        std::vector<matrix_data<double>> matrices;
        for (const auto& file : files) {
            matrices.push_back(io::read_matrix_market_data<double>(file));
        }
        return matrices;
    }();
    std::vector<matrix_data<double>> selected;
    for (const auto& data : all) {
        if (data.size.rows > min_rows && data.size.rows <= max_rows) {
            selected.push_back(data);
        }
    }
    return selected;
}

/// Random b (or x) for the items of `a`: cols_i (rows_i when `for_rows`) rows, `num_cols` columns.
template <typename T, typename Batch>
std::unique_ptr<batch::Vector<T>> random_vector(std::shared_ptr<const Executor> exec, const Batch& a,
                                                size_type num_cols, bool for_rows, unsigned seed)
{
    std::mt19937 rng{seed};
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<size_type> rows;
    std::vector<T> values;
    for (size_type item = 0; item < a.get_num_items(); ++item) {
        const auto size = a.get_item_size(item);
        rows.push_back(for_rows ? size.rows : size.cols);
        for (size_type k = 0; k < rows.back() * num_cols; ++k) {
            values.push_back(static_cast<T>(value(rng)));
        }
    }
    return batch::Vector<T>::create(std::move(exec), rows, num_cols, values);
}

}  // namespace test
}  // namespace larch
