// The one list of types larch instantiates its matrix classes and kernels for (float and double values,
// 32-bit indices). A file with templates ends with one LARCH_INSTANTIATE_... line per template, so adding a
// type (e.g. std::int64_t indices) means editing this list and is_instantiated_value_type or
// is_instantiated_index_type in include/larch/base/types.hpp, which the class templates assert.
#pragma once

#include <cstdint>

/// Calls `macro(V)` for every value type.
#define LARCH_INSTANTIATE_FOR_EACH_VALUE_TYPE(macro) \
    macro(float);                                   \
    macro(double)

/// Calls `macro(I)` for every index type.
#define LARCH_INSTANTIATE_FOR_EACH_INDEX_TYPE(macro) macro(std::int32_t)

/// Calls `macro(V, I)` for every pair of value and index type.
#define LARCH_INSTANTIATE_FOR_EACH_VALUE_AND_INDEX_TYPE(macro) \
    macro(float, std::int32_t);                               \
    macro(double, std::int32_t)
