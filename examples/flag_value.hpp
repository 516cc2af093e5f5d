// The value of a command-line flag of the example programs, read whole: std::stoul alone reads "-1" as
// 2^64 - 1 and "5x" as 5, and throws a bare "stoul" for "x", std::stod reads "0x10" as 16 and throws for 1e-310;
// here each of those is a BadInput naming the flag, or (1e-310) the number.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <larch/base/exception.hpp>

namespace larch {
namespace examples {

/**
 * `text`, the value of `flag`, as a Number. An integral Number takes only digits (no sign, no blank) of a value
 * that fits it; a floating-point Number takes a whole decimal number (sign, digits, point, exponent: no hex, inf
 * or nan) that is finite in Number; subnormal values such as 1e-310 are accepted.
 *
 * @throws BadInput  "<flag> expects a non-negative integer, got '<text>'" or
 *                   "<flag> expects a finite decimal number, got '<text>'"
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
        // Decimal notation only, whole: std::strtod would also read hex ("0x10" as 16), "inf", "nan" and leading
        // blanks, which the Matrix Market reader rejects too. A subnormal value (1e-310) is finite and kept:
        // strtod flags it with ERANGE, which std::stod turns into an exception.
        const bool decimal = !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
        char* end = nullptr;
        const auto value = static_cast<Number>(decimal ? std::strtod(text.c_str(), &end) : 0.0);
        if (!decimal || end != text.c_str() + text.size() || !std::isfinite(value)) {
            throw BadInput(__FILE__, __LINE__, flag + " expects a finite decimal number, got '" + text + "'");
        }
        // A nonzero mantissa that reads as 0 underflowed (1e-400, or 1e-50 for a float): not the 0 typed.
        const auto mantissa = text.substr(0, text.find_first_of("eE"));
        if (value == 0 && mantissa.find_first_of("123456789") != std::string::npos) {
            throw BadInput(__FILE__, __LINE__, flag + " got '" + text + "', which is too small to represent");
        }
        return value;
    }
}

/**
 * `text`, the value of `flag`, as the relative residual at which a solve from x0 = 0 stops: a number as
 * flag_value reads it, below 1. x0 = 0 already has relative residual 1, so from 1 on every solve would stop,
 * reported converged, before its first iteration. The solvers check the lower end themselves.
 *
 * @throws BadInput  as flag_value, or "<flag> expects a relative residual below 1, got '<text>' ..."
 */
inline double relative_tolerance_value(const std::string& flag, const std::string& text)
{
    const auto tolerance = flag_value<double>(flag, text);
    if (tolerance >= 1) {
        throw BadInput(__FILE__, __LINE__, flag + " expects a relative residual below 1, got '" + text +
                                               "' (x0 = 0 starts at relative residual 1, so every solve would "
                                               "stop before its first iteration)");
    }
    return tolerance;
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

/// Throws BadInput naming the first flag that `flags` (the flags given, in order) holds twice: a second value
/// would silently replace the first.
inline void reject_repeated_flags(const std::vector<std::string>& flags)
{
    for (auto flag = flags.begin(); flag != flags.end(); ++flag) {
        if (std::find(flag + 1, flags.end(), *flag) != flags.end()) {
            throw BadInput(__FILE__, __LINE__, *flag + " is given twice; give it once");
        }
    }
}

/**
 * Adds to `error`, thrown by the library's reader for a solver description built from command-line flags, the
 * flag that set the field it names ("--block-size: solver config: /preconditioner/max_block_size: ..."), so that
 * the message names what was typed. `flag_of_field` pairs a field's JSON path with its flag; a message naming
 * none of the fields is left as it is. Returns whether a flag was named.
 */
inline bool name_the_flag_of_its_field(BadInput& error,
                                       const std::vector<std::pair<std::string, std::string>>& flag_of_field)
{
    for (const auto& [field, flag] : flag_of_field) {
        // the reader writes "solver config: <path>: <problem>"; the blank and colon keep "/type" from matching
        // "/preconditioner/type"
        if (error.get_message().find(" " + field + ":") != std::string::npos) {
            error.add_context(flag + ": ");
            return true;
        }
    }
    return false;
}

}  // namespace examples
}  // namespace larch
