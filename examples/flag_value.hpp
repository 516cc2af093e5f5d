// The value of a command-line flag of the example programs, read whole: std::stoul alone reads "-1" as
// 2^64 - 1 and "5x" as 5, and throws a bare "stoul" for "x"; here each of those is a BadInput naming the flag.
#pragma once

#include <cctype>
#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>

#include <larch/base/exception.hpp>

namespace larch {
namespace examples {

/**
 * `text`, the value of `flag`, as a Number. An integral Number takes only digits (no sign, no blank) of a value
 * that fits it; a floating-point Number takes a whole std::stod number that is finite.
 *
 * @throws BadInput  "<flag> expects a non-negative integer, got '<text>'" or
 *                   "<flag> expects a finite number, got '<text>'"
 */
template <typename Number>
Number flag_value(const std::string& flag, const std::string& text)
{
    static_assert(std::is_arithmetic<Number>::value && !std::is_same<Number, bool>::value,
                  "flag_value reads integers and floating-point numbers");
    if constexpr (std::is_integral<Number>::value) {
        bool digits = !text.empty();
        for (const char c : text) {
            digits = digits && std::isdigit(static_cast<unsigned char>(c));
        }
        unsigned long long value = 0;
        try {
            value = digits ? std::stoull(text) : 0;
        } catch (const std::exception&) {  // out of range of unsigned long long
            digits = false;
        }
        if (!digits || value > static_cast<unsigned long long>(std::numeric_limits<Number>::max())) {
            throw BadInput(__FILE__, __LINE__, flag + " expects a non-negative integer, got '" + text + "'");
        }
        return static_cast<Number>(value);
    } else {
        // std::stod skips leading blanks and stops at the first character it cannot use: both are errors here.
        std::size_t used = 0;
        Number value = 0;
        try {
            if (!text.empty() && !std::isspace(static_cast<unsigned char>(text[0]))) {
                value = static_cast<Number>(std::stod(text, &used));
            }
        } catch (const std::exception&) {  // no number at all, or out of range of double
            used = 0;
        }
        if (used == 0 || used != text.size() || !std::isfinite(value)) {
            throw BadInput(__FILE__, __LINE__, flag + " expects a finite number, got '" + text + "'");
        }
        return value;
    }
}

/**
 * The argument after the flag argv[i], which the call consumes (i moves on to it).
 *
 * @throws BadInput  "flag <flag> needs a value" (then `hint`, e.g. a usage text) when argv[i] is the last
 */
inline std::string next_flag_value(int argc, char** argv, int& i, const std::string& hint = "")
{
    if (i + 1 >= argc) {
        throw BadInput(__FILE__, __LINE__, std::string{"flag "} + argv[i] + " needs a value" + hint);
    }
    return argv[++i];
}

}  // namespace examples
}  // namespace larch
