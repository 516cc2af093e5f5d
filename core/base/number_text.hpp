// Numbers in error and stop messages.
#pragma once

#include <sstream>
#include <string>

namespace larch {
namespace detail {

/// `value` with six significant digits, in exponent form where that is shorter ("1e-12", "0.7", "3.2e+148"):
/// std::to_string prints six decimals, so a residual of 1e-12 read "0.000000".
inline std::string number_text(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

}  // namespace detail
}  // namespace larch
