// Reading a list of Matrix Market files into one batched sparse matrix (batch::Csr, batch::Coo,
// batch::Ell): one item per file, in the order given.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/base/exception.hpp"
#include "larch/base/executor.hpp"
#include "larch/batch/sparse_layout.hpp"
#include "larch/io/matrix_market.hpp"

namespace larch {
namespace io {

/**
 * A batch whose item i is the matrix of `paths[i]`:
 * `auto A = io::read_batch_matrix_market<batch::Csr<double>>(paths, exec);`
 * Cost: every file is parsed on the host, then the batch is created as BatchType::create does.
 * @throws BadInput naming the file and line for a parse error, naming the file for a matrix without rows or
 *                  columns (valid Matrix Market, but no batch item may be empty), else as BatchType::create
 *                  (naming the item).
 */
template <typename BatchType>
std::unique_ptr<BatchType> read_batch_matrix_market(
    const std::vector<std::string>& paths, std::shared_ptr<const Executor> exec,
    batch::PatternSharing sharing = batch::PatternSharing::detect)
{
    using value_type = typename BatchType::value_type;
    using index_type = typename BatchType::index_type;
    std::vector<matrix_data<value_type, index_type>> items;
    items.reserve(paths.size());
    for (const auto& path : paths) {
        items.push_back(read_matrix_market_data<value_type, index_type>(path));
        // BatchType::create rejects an empty item too, but can name only its position
        const auto size = items.back().size;
        LARCH_ENSURE(size.rows > 0 && size.cols > 0, BadInput,
                     "read_batch_matrix_market: '" + path + "' (item " + std::to_string(items.size() - 1) +
                         ") holds a " + to_string(size) +
                         " matrix; every item of a batch needs at least one row and one column");
    }
    return BatchType::create(std::move(exec), items, sharing);
}

}  // namespace io
}  // namespace larch
