// Reading a list of Matrix Market files into one batched sparse matrix (batch::Csr, batch::Coo,
// batch::Ell): one item per file, in the order given.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"
#include "larch/batch/sparse_layout.hpp"
#include "larch/io/matrix_market.hpp"

namespace larch {
namespace io {

/**
 * A batch whose item i is the matrix of `paths[i]`:
 * `auto A = io::read_batch_matrix_market<batch::Csr<double>>(paths, exec);`
 * Cost: every file is parsed on the host, then the batch is created as BatchType::create does.
 * @throws BadInput naming the file and line for a parse error, else as BatchType::create (naming the item).
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
    }
    return BatchType::create(std::move(exec), items, sharing);
}

}  // namespace io
}  // namespace larch
