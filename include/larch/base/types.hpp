// Basic types shared by all of larch: sizes, index types, and the list of value types we instantiate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace larch {

using size_type = std::size_t;

/// Rows and columns of an operator.
struct dim2 {
    size_type rows = 0;
    size_type cols = 0;

    constexpr dim2() = default;
    constexpr dim2(size_type r, size_type c) : rows{r}, cols{c} {}
    constexpr explicit dim2(size_type n) : rows{n}, cols{n} {}

    friend constexpr bool operator==(const dim2& a, const dim2& b)
    {
        return a.rows == b.rows && a.cols == b.cols;
    }
    friend constexpr bool operator!=(const dim2& a, const dim2& b) { return !(a == b); }
};

inline std::string to_string(const dim2& d)
{
    return std::to_string(d.rows) + "x" + std::to_string(d.cols);
}

inline std::ostream& operator<<(std::ostream& os, const dim2& d) { return os << to_string(d); }

/// Name of a value type as used in messages and benchmark output.
template <typename T>
constexpr const char* type_name();
template <>
constexpr const char* type_name<float>() { return "float"; }
template <>
constexpr const char* type_name<double>() { return "double"; }
template <>
constexpr const char* type_name<std::int32_t>() { return "int32"; }
template <>
constexpr const char* type_name<std::int64_t>() { return "int64"; }

}  // namespace larch
