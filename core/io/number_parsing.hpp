// Locale-independent parsing of the integer and real tokens of text formats, with a status that tells
// a syntax error from a value out of range, and quoting of offending tokens for error messages.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

namespace larch {
namespace io {

enum class ParseStatus { ok, syntax_error, out_of_range, not_finite };

/// `token` in single quotes for a message: at most 40 characters, unprintable bytes shown as '?'.
inline std::string quote(std::string_view token)
{
    constexpr std::size_t max_shown = 40;
    std::string result = "'";
    for (std::size_t i = 0; i < token.size() && i < max_shown; ++i) {
        const auto c = static_cast<unsigned char>(token[i]);
        result += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
    }
    return result + (token.size() > max_shown ? "...'" : "'");
}

namespace detail {

/// Removes one leading '+' (which std::from_chars does not accept); a sign after it stays and fails.
inline std::string_view strip_plus(std::string_view token)
{
    if (!token.empty() && token.front() == '+') {
        token.remove_prefix(1);
        if (!token.empty() && (token.front() == '-' || token.front() == '+')) {
            return {};
        }
    }
    return token;
}

/// For a syntactically valid decimal that std::from_chars found out of range: true if its magnitude is
/// large (overflow), false if small (underflow). The value is 0.d1d2... * 10^e with d1 the first
/// nonzero digit; only the sign of e matters, as out-of-range values are far from 1.
inline bool decimal_is_large(std::string_view token)
{
    if (!token.empty() && (token.front() == '-' || token.front() == '+')) {
        token.remove_prefix(1);
    }
    std::int64_t position = 0;  // the mantissa is 0.d1d2... * 10^position
    bool seen_point = false;
    bool seen_nonzero = false;
    std::size_t i = 0;
    for (; i < token.size() && token[i] != 'e' && token[i] != 'E'; ++i) {
        const bool zero = token[i] == '0';
        if (token[i] == '.') {
            seen_point = true;
        } else if (!seen_point) {
            seen_nonzero = seen_nonzero || !zero;
            position += seen_nonzero ? 1 : 0;
        } else if (!seen_nonzero) {
            seen_nonzero = !zero;
            position -= zero ? 1 : 0;
        }
    }
    std::int64_t exponent = 0;
    if (i + 1 < token.size()) {
        std::string_view digits = token.substr(i + 1);
        const bool negative = digits.front() == '-';
        if (digits.front() == '-' || digits.front() == '+') {
            digits.remove_prefix(1);
        }
        for (const char c : digits) {
            // Saturate: any exponent beyond 10^9 is out of range either way.
            exponent = std::min<std::int64_t>(exponent * 10 + (c - '0'), 1000000000);
        }
        exponent = negative ? -exponent : exponent;
    }
    return position + exponent > 0;
}

}  // namespace detail

/// Parses a whole token as a decimal integer (optional sign).
inline ParseStatus parse_integer(std::string_view token, std::int64_t& value)
{
    token = detail::strip_plus(token);
    const auto* last = token.data() + token.size();
    const auto result = std::from_chars(token.data(), last, value);
    if (token.empty() || result.ptr != last) {
        return ParseStatus::syntax_error;
    }
    return result.ec == std::errc::result_out_of_range ? ParseStatus::out_of_range : ParseStatus::ok;
}

/// Parses a whole token as a decimal real number into V. Values below V's range become (signed) zero;
/// values above it are out_of_range; NaN and infinity are not_finite.
template <typename V>
ParseStatus parse_real(std::string_view token, V& value)
{
    token = detail::strip_plus(token);
    const auto* last = token.data() + token.size();
    const auto result = std::from_chars(token.data(), last, value, std::chars_format::general);
    if (token.empty() || result.ptr != last) {
        return ParseStatus::syntax_error;
    }
    if (result.ec == std::errc::result_out_of_range) {
        if (detail::decimal_is_large(token)) {
            return ParseStatus::out_of_range;
        }
        value = token.front() == '-' ? -V{0} : V{0};
        return ParseStatus::ok;
    }
    if (result.ec != std::errc{}) {
        return ParseStatus::syntax_error;
    }
    return std::isfinite(value) ? ParseStatus::ok : ParseStatus::not_finite;
}

}  // namespace io
}  // namespace larch
