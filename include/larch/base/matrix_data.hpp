// matrix_data: a matrix as a host-side list of (row, column, value) entries, the exchange format between
// file readers, generators and the matrix classes.
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "larch/base/exception.hpp"
#include "larch/base/types.hpp"

namespace larch {

template <typename ValueType, typename IndexType = std::int32_t>
struct matrix_data {
    using value_type = ValueType;
    using index_type = IndexType;

    struct entry {
        IndexType row;
        IndexType col;
        ValueType value;

        friend bool operator==(const entry& a, const entry& b)
        {
            return a.row == b.row && a.col == b.col && a.value == b.value;
        }
    };

    dim2 size;
    std::vector<entry> entries;

    matrix_data() = default;
    explicit matrix_data(dim2 size_) : size{size_} {}
    matrix_data(dim2 size_, std::vector<entry> entries_) : size{size_}, entries{std::move(entries_)}
    {}

    /// Sorts the entries by row, then by column (the order every sparse format is built from).
    void sort_row_major()
    {
        const auto before = [](const entry& a, const entry& b) {
            return std::tie(a.row, a.col) < std::tie(b.row, b.col);
        };
        // Generated and most Matrix Market data arrive sorted: one check spares the O(n log n) sort.
        if (!std::is_sorted(entries.begin(), entries.end(), before)) {
            std::sort(entries.begin(), entries.end(), before);
        }
    }

    /// Sorts, then adds up entries with the same position into one.
    void sum_duplicates()
    {
        sort_row_major();
        std::vector<entry> merged;
        merged.reserve(entries.size());
        for (const auto& e : entries) {
            if (!merged.empty() && merged.back().row == e.row && merged.back().col == e.col) {
                merged.back().value += e.value;
            } else {
                merged.push_back(e);
            }
        }
        entries = std::move(merged);
    }

    /// Throws BadInput naming `context` if an entry lies outside the matrix or the size does not fit
    /// the index type.
    void validate(const std::string& context) const
    {
        const auto max_index = static_cast<unsigned long long>(std::numeric_limits<IndexType>::max());
        if (size.rows > max_index || size.cols > max_index) {
            LARCH_THROW(BadInput, context + ": size " + to_string(size) +
                                      " does not fit the index type " + type_name<IndexType>());
        }
        for (const auto& e : entries) {
            if (e.row < 0 || e.col < 0 || static_cast<size_type>(e.row) >= size.rows ||
                static_cast<size_type>(e.col) >= size.cols) {
                LARCH_THROW(BadInput, context + ": entry (" + std::to_string(e.row) + ", " +
                                          std::to_string(e.col) + ") lies outside the " +
                                          to_string(size) + " matrix");
            }
        }
    }
};

}  // namespace larch
