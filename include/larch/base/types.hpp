// Basic types shared by all of larch: sizes, index types, and the list of value types we instantiate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>

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

/// Whether larch's classes with an index type (matrix and batch formats, BlockJacobi, distributed::Matrix)
/// are compiled for index type I, as listed in core/components/instantiation.hpp. Each such class template
/// asserts it, so that another index type fails at compile time with the message below, not at link time.
template <typename I>
constexpr bool is_instantiated_index_type = std::is_same<I, std::int32_t>::value;

/// Whether larch's classes with a value type are compiled for value type V (float and double, as listed
/// there). The matrix formats, matrix::Dense, batch::BatchLinOp, batch::Vector, the iterative solvers,
/// BlockJacobi and the distributed types assert it, so that e.g. matrix::Csr<int> fails at compile time.
template <typename V>
constexpr bool is_instantiated_value_type = std::is_same<V, float>::value || std::is_same<V, double>::value;

// Macros because static_assert takes only a string literal.
#define LARCH_INDEX_TYPE_MESSAGE "larch's classes with an index type are compiled for std::int32_t indices only"
#define LARCH_VALUE_TYPE_MESSAGE "larch's classes with a value type are compiled for float and double only"

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
