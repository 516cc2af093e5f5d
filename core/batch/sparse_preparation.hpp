// Host-side steps shared by batch::Csr, batch::Coo and batch::Ell: validating and normalizing the items
// of a new batch, detecting a shared pattern, checking the operands of the scaled apply, and expanding
// items to batch::Dense. Everything here runs in core before any kernel (kernels assume valid input).
#pragma once

#include <algorithm>
#include <deque>
#include <string>
#include <tuple>
#include <vector>

#include "core/components/format_helpers.hpp"
#include "larch/base/exception.hpp"
#include "larch/base/matrix_data.hpp"
#include "larch/batch/batch_lin_op.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/sparse_layout.hpp"

namespace larch {
namespace batch {
namespace detail {

/// Items sorted row-major with duplicates summed, their sizes and nonzero counts, and whether all of
/// them have one pattern. An item that already is in that order is used in place (no copy of what may
/// be hundreds of millions of entries); the others are normalized copies kept in `normalized`.
template <typename V, typename I>
struct PreparedItems {
    std::vector<const matrix_data<V, I>*> items;
    std::deque<matrix_data<V, I>> normalized;
    std::vector<dim2> sizes;
    std::vector<size_type> nonzeros;
    bool shared_pattern = false;
};

/// The first entry (in row-major order) where the patterns of `a` and `b` differ, or -1 if none.
template <typename V, typename I>
std::int64_t first_pattern_difference(const matrix_data<V, I>& a, const matrix_data<V, I>& b)
{
    const auto common = std::min(a.entries.size(), b.entries.size());
    for (size_type k = 0; k < common; ++k) {
        if (a.entries[k].row != b.entries[k].row || a.entries[k].col != b.entries[k].col) {
            return static_cast<std::int64_t>(k);
        }
    }
    return a.entries.size() == b.entries.size() && a.size == b.size
               ? -1
               : static_cast<std::int64_t>(common);
}

/// Where item `b`'s pattern departs from item `a`'s, for a message: in size, at entry `difference` (both
/// positions), or in the number of nonzeros (one pattern is the other's beginning).
template <typename V, typename I>
std::string where_patterns_differ(const matrix_data<V, I>& a, const matrix_data<V, I>& b, size_type difference)
{
    if (a.size != b.size) {
        return "in size";
    }
    if (difference < a.entries.size() && difference < b.entries.size()) {
        const auto& ea = a.entries[difference];
        const auto& eb = b.entries[difference];
        return "at its nonzero " + std::to_string(difference) + ": (" + std::to_string(eb.row) + ", " +
               std::to_string(eb.col) + ") where item 0 has (" + std::to_string(ea.row) + ", " +
               std::to_string(ea.col) + ")";
    }
    return "in its number of nonzeros";
}

/// Validates every item (BadInput naming `context`, the item and the entry), sorts and sums duplicates,
/// and decides the pattern sharing (BadInput naming the first differing item and entry when a shared
/// pattern was declared but does not hold).
template <typename V, typename I>
PreparedItems<V, I> prepare_items(const std::vector<matrix_data<V, I>>& items,
                                  PatternSharing sharing, const std::string& context)
{
    PreparedItems<V, I> prepared;
    for (size_type item = 0; item < items.size(); ++item) {
        const auto& data = items[item];
        const auto item_context = context + ": item " + std::to_string(item);
        LARCH_ENSURE(data.size.rows > 0 && data.size.cols > 0, BadInput,
                     item_context + " is " + to_string(data.size) +
                         "; every item needs at least one row and one column");
        data.validate(item_context);
        // Already normal: every entry strictly after its predecessor in row-major order.
        const bool normal =
            std::adjacent_find(data.entries.begin(), data.entries.end(),
                               [](const auto& before, const auto& after) {
                                   return std::tie(after.row, after.col) <=
                                          std::tie(before.row, before.col);
                               }) == data.entries.end();
        if (normal) {
            prepared.items.push_back(&data);
        } else {
            prepared.normalized.push_back(larch::detail::copy_with_duplicates_summed(data, item_context));
            prepared.items.push_back(&prepared.normalized.back());
        }
        prepared.sizes.push_back(prepared.items.back()->size);
        prepared.nonzeros.push_back(prepared.items.back()->entries.size());
    }
    if (sharing == PatternSharing::per_item || items.empty()) {
        return prepared;
    }
    for (size_type item = 1; item < items.size(); ++item) {
        const auto difference =
            first_pattern_difference(*prepared.items[0], *prepared.items[item]);
        if (difference < 0) {
            continue;
        }
        if (sharing == PatternSharing::shared) {
            LARCH_THROW(BadInput, context + ": a shared pattern was declared but item " +
                                      std::to_string(item) + " (" +
                                      to_string(prepared.items[item]->size) + ", " +
                                      std::to_string(prepared.nonzeros[item]) +
                                      " nonzeros) differs from item 0 (" +
                                      to_string(prepared.items[0]->size) + ", " +
                                      std::to_string(prepared.nonzeros[0]) + " nonzeros) " +
                                      where_patterns_differ(*prepared.items[0], *prepared.items[item],
                                                            static_cast<size_type>(difference)));
        }
        return prepared;
    }
    prepared.shared_pattern = true;
    return prepared;
}

/// The items as one batch::Dense on `exec` (row-major, zeros filled in).
template <typename V, typename I>
std::unique_ptr<Dense<V>> items_to_dense(std::shared_ptr<const Executor> exec,
                                         const std::vector<matrix_data<V, I>>& items)
{
    std::vector<dim2> sizes;
    for (const auto& data : items) {
        sizes.push_back(data.size);
    }
    // Assembled in a batch on the host, whose layout checks the total and whose allocation names the bytes it
    // could not get (a std::vector of that size would throw a bare std::bad_alloc or std::length_error).
    auto dense = Dense<V>::create(exec->get_host(), std::move(sizes));
    auto values = dense->get_values();
    std::fill_n(values, dense->get_layout().get_offset(items.size()), V{});
    for (size_type item = 0; item < items.size(); ++item) {
        const auto& data = items[item];
        const auto offset = static_cast<size_type>(dense->get_layout().get_offset(item));
        for (const auto& e : data.entries) {
            values[offset + static_cast<size_type>(e.row) * data.size.cols + static_cast<size_type>(e.col)] +=
                e.value;
        }
    }
    return exec->is_host() ? std::move(dense) : dense->clone_to(std::move(exec));
}

/// Elements [begin, end) of `source` copied to a host vector.
template <typename T>
std::vector<T> copy_range_to_host(const array<T>& source, std::int64_t begin, std::int64_t end)
{
    std::vector<T> host(static_cast<size_type>(end - begin));
    if (!host.empty()) {
        const auto& exec = source.get_executor();
        exec->get_host()->copy_from(*exec, host.size() * sizeof(T), source.get_const_data() + begin,
                                    host.data());
    }
    return host;
}

/// BadInput naming `operation` unless `item` < `num_items`.
inline void ensure_item_in_range(const std::string& operation, size_type item, size_type num_items)
{
    LARCH_ENSURE(item < num_items, BadInput,
                 operation + ": item " + std::to_string(item) + " out of range (" +
                     std::to_string(num_items) + " items)");
}

}  // namespace detail
}  // namespace batch
}  // namespace larch
