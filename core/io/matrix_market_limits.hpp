// The sizes a Matrix Market size line may declare, shared by the reader (which rejects a file beyond them) and
// the writer (which refuses to write a file the reader would reject).
#pragma once

#include <string>

#include "larch/base/types.hpp"

namespace larch {
namespace io {

// Up to this many rows a file may declare whatever it stores; beyond it, at most max_rows_per_entry rows per
// stored entry. A row count far beyond the entries is what a corrupt size line looks like
// ('2000000000 2000000000 3'), and the row-wise formats built from the data (CSR's row pointers, ELL's slots)
// allocate memory for every declared row: gigabytes and minutes for three entries. Columns cost no memory there,
// so their count is free.
constexpr size_type max_unfilled_rows = size_type{1} << 24;
constexpr size_type max_rows_per_entry = 16;

/// The fewest stored entries (an array's values) a file of `rows` rows must hold.
constexpr size_type min_stored_entries(size_type rows)
{
    // ceil(rows / max_rows_per_entry), formed without overflow for any 64-bit count
    return rows <= max_unfilled_rows ? 0 : (rows + max_rows_per_entry - 1) / max_rows_per_entry;
}

/// Why a file of `rows` rows and `num_stored` entries (`what`: "entries" or "values") is rejected, for a message.
inline std::string too_few_entries_message(size_type rows, size_type num_stored, const std::string& what)
{
    return "the " + std::to_string(rows) + " rows are far beyond the " + std::to_string(num_stored) + " " + what +
           ": a matrix of more than " + std::to_string(max_unfilled_rows) +
           " rows must store at least one entry per " + std::to_string(max_rows_per_entry) + " rows";
}

}  // namespace io
}  // namespace larch
