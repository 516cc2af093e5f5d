// batch::SparseLayout: validation of item sizes and the prefix sums that place sparse items in one array.
#include "larch/batch/sparse_layout.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "larch/base/exception.hpp"
#include "larch/batch/item_layout.hpp"

namespace larch {
namespace batch {

SparseLayout::SparseLayout(std::shared_ptr<const Executor> exec)
    : SparseLayout(std::move(exec), {}, {}, false)
{}

SparseLayout::SparseLayout(std::shared_ptr<const Executor> exec, std::vector<dim2> sizes,
                           const std::vector<size_type>& num_stored, bool shared_pattern)
    : exec_{exec}, id_{detail::new_layout_id()}, sizes_{std::move(sizes)}, shared_pattern_{shared_pattern},
      rows_{exec}, cols_{exec}, stored_offsets_{exec}, row_offsets_{exec}, work_order_{exec}
{
    constexpr auto max_dim = static_cast<size_type>(std::numeric_limits<std::int32_t>::max());
    const auto num_items = sizes_.size();
    LARCH_ENSURE(num_stored.size() == num_items, DimensionMismatch,
                 "batch::SparseLayout: " + std::to_string(num_stored.size()) +
                     " stored-entry counts for " + std::to_string(num_items) + " items");
    std::vector<std::int32_t> rows(num_items);
    std::vector<std::int32_t> cols(num_items);
    host_stored_offsets_.assign(num_items + 1, 0);
    host_row_offsets_.assign(num_items + 1, 0);
    for (size_type item = 0; item < num_items; ++item) {
        const auto size = sizes_[item];
        if (size.rows == 0 || size.cols == 0 || size.rows > max_dim || size.cols > max_dim ||
            num_stored[item] > max_dim) {
            LARCH_THROW(BadInput, "batch::SparseLayout: item " + std::to_string(item) +
                                      " has size " + to_string(size) + " and " +
                                      std::to_string(num_stored[item]) +
                                      " stored entries; every item needs 1 to 2^31-1 rows and "
                                      "columns and at most 2^31-1 entries");
        }
        rows[item] = static_cast<std::int32_t>(size.rows);
        cols[item] = static_cast<std::int32_t>(size.cols);
        host_stored_offsets_[item + 1] =
            host_stored_offsets_[item] + static_cast<std::int64_t>(num_stored[item]);
        host_row_offsets_[item + 1] = host_row_offsets_[item] + static_cast<std::int64_t>(size.rows);
        max_size_.rows = std::max(max_size_.rows, size.rows);
        min_rows_ = item == 0 ? size.rows : std::min(min_rows_, size.rows);
        max_size_.cols = std::max(max_size_.cols, size.cols);
        max_stored_ = std::max(max_stored_, num_stored[item]);
        total_cols_ += size.cols;
    }
    rows_ = array<std::int32_t>{exec, rows.begin(), rows.end()};
    cols_ = array<std::int32_t>{exec, cols.begin(), cols.end()};
    stored_offsets_ =
        array<std::int64_t>{exec, host_stored_offsets_.begin(), host_stored_offsets_.end()};
    row_offsets_ = array<std::int64_t>{exec, host_row_offsets_.begin(), host_row_offsets_.end()};
    const bool equal_counts =
        std::all_of(num_stored.begin(), num_stored.end(),
                    [&num_stored](size_type count) { return count == num_stored.front(); });
    if (!equal_counts) {
        std::vector<std::int64_t> order(num_items);
        std::iota(order.begin(), order.end(), std::int64_t{0});
        std::stable_sort(order.begin(), order.end(), [&num_stored](std::int64_t a, std::int64_t b) {
            return num_stored[a] > num_stored[b];
        });
        work_order_ = array<std::int64_t>{exec, order.begin(), order.end()};
    }
}

SparseLayout SparseLayout::clone_to(std::shared_ptr<const Executor> exec) const
{
    // Recomputing the prefix sums costs as much as copying them and keeps one code path.
    std::vector<size_type> num_stored(sizes_.size());
    for (size_type item = 0; item < sizes_.size(); ++item) {
        num_stored[item] = get_num_stored(item);
    }
    SparseLayout clone{std::move(exec), sizes_, num_stored, shared_pattern_};
    clone.id_ = id_;
    return clone;
}

}  // namespace batch
}  // namespace larch
