// batch::ItemLayout: validation of item sizes and the prefix sums that place the items in one array.
#include "larch/batch/item_layout.hpp"

#include <algorithm>
#include <atomic>
#include <limits>

namespace larch {
namespace batch {
namespace detail {

std::uint64_t new_layout_id() noexcept
{
    static std::atomic<std::uint64_t> last_id{0};
    return last_id.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace detail

ItemLayout::ItemLayout(std::shared_ptr<const Executor> exec)
    : ItemLayout(std::move(exec), std::vector<dim2>{})
{}

ItemLayout::ItemLayout(std::shared_ptr<const Executor> exec, std::vector<dim2> sizes)
    : exec_{exec}, id_{detail::new_layout_id()}, sizes_{std::move(sizes)}, rows_{exec}, cols_{exec},
      offsets_{exec}, row_offsets_{exec}, host_class_offsets_(num_size_classes + 1, 0), class_items_{exec}
{
    constexpr auto max_dim = static_cast<size_type>(std::numeric_limits<std::int32_t>::max());
    const auto num_items = sizes_.size();
    std::vector<std::int32_t> rows(num_items);
    std::vector<std::int32_t> cols(num_items);
    host_offsets_.assign(num_items + 1, 0);
    host_row_offsets_.assign(num_items + 1, 0);
    for (size_type item = 0; item < num_items; ++item) {
        const auto size = sizes_[item];
        if (size.rows == 0 || size.cols == 0 || size.rows > max_dim || size.cols > max_dim) {
            LARCH_THROW(BadInput, "batch::ItemLayout: item " + std::to_string(item) + " has size " +
                                      to_string(size) +
                                      "; every item needs 1 to 2^31-1 rows and columns");
        }
        rows[item] = static_cast<std::int32_t>(size.rows);
        cols[item] = static_cast<std::int32_t>(size.cols);
        // Up to 2^62 entries per item, so three large items pass the 64-bit offsets; a wrapped total would
        // allocate a few entries for items of billions.
        const auto entries = static_cast<std::int64_t>(size.rows * size.cols);
        if (host_offsets_[item] > std::numeric_limits<std::int64_t>::max() - entries) {
            LARCH_THROW(BadInput, "batch::ItemLayout: items 0 to " + std::to_string(item) +
                                      " hold more than 2^63-1 entries in all (item " + std::to_string(item) +
                                      " is " + to_string(size) + ")");
        }
        host_offsets_[item + 1] = host_offsets_[item] + entries;
        host_row_offsets_[item + 1] = host_row_offsets_[item] + static_cast<std::int64_t>(size.rows);
        max_size_.rows = std::max(max_size_.rows, size.rows);
        max_size_.cols = std::max(max_size_.cols, size.cols);
        uniform_ = uniform_ && size == sizes_.front();
        square_ = square_ && size.rows == size.cols;
    }
    rows_ = array<std::int32_t>{exec, rows.begin(), rows.end()};
    cols_ = array<std::int32_t>{exec, cols.begin(), cols.end()};
    offsets_ = array<std::int64_t>{exec, host_offsets_.begin(), host_offsets_.end()};
    row_offsets_ = array<std::int64_t>{exec, host_row_offsets_.begin(), host_row_offsets_.end()};
    group_by_size_class();
}

void ItemLayout::group_by_size_class()
{
    // A counting sort by class: one pass counts, one places; item order is kept within a class.
    const auto num_items = sizes_.size();
    std::vector<int> classes(num_items);
    for (size_type item = 0; item < num_items; ++item) {
        classes[item] = size_class_of(std::max(sizes_[item].rows, sizes_[item].cols));
        ++host_class_offsets_[classes[item] + 1];
    }
    for (int c = 0; c < num_size_classes; ++c) {
        host_class_offsets_[c + 1] += host_class_offsets_[c];
    }
    if (uniform_) {
        return;
    }
    std::vector<std::int64_t> items(num_items);
    auto next = host_class_offsets_;
    for (size_type item = 0; item < num_items; ++item) {
        items[next[classes[item]]++] = static_cast<std::int64_t>(item);
    }
    class_items_ = array<std::int64_t>{exec_, items.begin(), items.end()};
}

ItemLayout ItemLayout::clone_to(std::shared_ptr<const Executor> exec) const
{
    // Recomputing the prefix sums costs as much as copying them and keeps one code path.
    ItemLayout clone{std::move(exec), sizes_};
    clone.id_ = id_;
    return clone;
}

}  // namespace batch
}  // namespace larch
