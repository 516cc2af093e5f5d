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

/// `value` with the fewest significant digits (6 to 17) that read back as `value`: for a value a message
/// rejects, whose six-digit form may be a valid one (1.0000001 read "1" against the range [0, 1]).
inline std::string exact_number_text(double value)
{
    std::string text;
    for (int digits = 6; digits <= 17; ++digits) {
        std::ostringstream stream;
        stream.precision(digits);
        stream << value;
        text = stream.str();
        std::istringstream back{text};
        double read = 0;
        if (back >> read && read == value) {
            break;
        }
    }
    return text;
}

}  // namespace detail
}  // namespace larch
