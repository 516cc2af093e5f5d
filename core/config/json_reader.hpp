// The strict JSON reading behind larch's configuration files (solvers, batched solvers): objects whose
// fields are checked by name, type and range, and a parser that rejects duplicate keys (which the benchmark
// driver shares); every error is a BadInput naming the JSON path of the offending value.
#pragma once

#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/number_text.hpp"
#include "larch/base/exception.hpp"
#include "larch/base/types.hpp"

namespace larch {
namespace config {
namespace detail {

using json = nlohmann::json;

[[noreturn]] inline void fail(const std::string& path, const std::string& problem)
{
    LARCH_THROW(BadInput, "solver config: " + (path.empty() ? std::string{"/"} : path) + ": " + problem);
}

inline std::string describe_value(const json& value)
{
    auto text = value.dump();
    if (text.size() > 40) {
        text = text.substr(0, 37) + "...";
    }
    return std::string{value.type_name()} + " " + text;
}

/// One JSON object at `path`: rejects keys outside `allowed`, reads fields with type and range checks.
class ObjectReader {
public:
    ObjectReader(const json& object, std::string path, const std::set<std::string>& allowed)
        : object_{object}, path_{std::move(path)}
    {
        if (!object_.is_object()) {
            fail(path_, "expected an object, got " + describe_value(object_));
        }
        for (const auto& item : object_.items()) {
            if (allowed.count(item.key()) == 0) {
                std::string valid;
                for (const auto& name : allowed) {
                    valid += (valid.empty() ? "" : ", ") + name;
                }
                fail(field_path(item.key()), "unknown field; valid fields here are " + valid);
            }
        }
    }

    bool has(const std::string& key) const { return object_.contains(key); }
    const json& at(const std::string& key) const { return object_.at(key); }
    std::string field_path(const std::string& key) const { return path_ + "/" + key; }

    std::string get_string(const std::string& key) const
    {
        const auto& value = at(key);
        if (!value.is_string()) {
            fail(field_path(key), "expected a string, got " + describe_value(value));
        }
        return value.get<std::string>();
    }

    size_type get_count(const std::string& key, size_type min = 0,
                        size_type max = std::numeric_limits<size_type>::max()) const
    {
        const auto& value = at(key);
        // JSON text gives unsigned integers; a json built in C++ from an int is signed.
        if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<std::int64_t>() < 0)) {
            fail(field_path(key), "expected a non-negative integer, got " + describe_value(value));
        }
        const auto count = value.get<std::uint64_t>();
        if (count < min || count > max) {
            fail(field_path(key), (max == std::numeric_limits<size_type>::max()
                                       ? "expected an integer >= " + std::to_string(min)
                                       : "expected an integer in [" + std::to_string(min) + ", " +
                                             std::to_string(max) + "]") +
                                      ", got " + std::to_string(count));
        }
        return static_cast<size_type>(count);
    }

    /// Whether the upper end of a range belongs to it: [min, max] or [min, max).
    enum class UpperEnd { closed, open };

    /// A number in [min, max], or [min, max) with UpperEnd::open. max = the largest double asks for a finite
    /// number (a json built in C++ may hold inf), max = infinity admits inf.
    double get_number(const std::string& key, double min, double max, UpperEnd upper = UpperEnd::closed) const
    {
        const auto& value = at(key);
        if (!value.is_number()) {
            fail(field_path(key), "expected a number, got " + describe_value(value));
        }
        const auto number = value.get<double>();
        const bool below_max = upper == UpperEnd::open ? number < max : number <= max;
        if (!(number >= min && below_max)) {
            // the bounds exactly: six digits print the largest double below 1 as 1, an open bound as a closed one
            const auto min_text = ::larch::detail::exact_number_text(min);
            std::string range;
            if (max == std::numeric_limits<double>::max()) {
                range = "a finite number >= " + min_text;
            } else if (max == std::numeric_limits<double>::infinity()) {
                range = "a number >= " + min_text;
            } else {
                range = "a number in [" + min_text + ", " + ::larch::detail::exact_number_text(max) +
                        (upper == UpperEnd::open ? ")" : "]");
            }
            fail(field_path(key), "expected " + range + ", got " + ::larch::detail::exact_number_text(number));
        }
        return number;
    }

    /// A number in (0, max]: every positive double up to max, subnormal ones too, as the C++ parameters take.
    double get_positive_number(const std::string& key, double max) const
    {
        const auto& value = at(key);
        if (!value.is_number()) {
            fail(field_path(key), "expected a number, got " + describe_value(value));
        }
        const auto number = value.get<double>();
        if (!(number > 0 && number <= max)) {
            std::ostringstream range;
            if (max == std::numeric_limits<double>::max()) {
                range << "expected a finite number > 0";
            } else {
                range << "expected a number in (0, " << max << "]";
            }
            range << ", got " << ::larch::detail::exact_number_text(number);
            fail(field_path(key), range.str());
        }
        return number;
    }

    /// A string field with a fixed set of values, e.g. "algorithm": "gauss_huard"; the error lists them.
    template <typename Value>
    Value get_choice(const std::string& key, const std::vector<std::pair<std::string, Value>>& choices) const
    {
        const auto value = get_string(key);
        std::string valid;
        for (const auto& choice : choices) {
            if (choice.first == value) {
                return choice.second;
            }
            valid += (valid.empty() ? "" : ", ") + choice.first;
        }
        fail(field_path(key), "unknown value \"" + value + "\"; valid values are " + valid);
    }

private:
    const json& object_;
    std::string path_;
};

/**
 * `text` parsed as JSON, rejecting what nlohmann::json accepts silently: a key that appears twice in one
 * object (the last would win). Calls `fail(path, problem)`, which must throw, for that, for malformed JSON
 * and for a number that overflows a double; `path` is the JSON pointer of the value being read
 * ("/cases/2/matrix", "/" for the whole text). The benchmark driver reads its configuration with it too.
 */
template <typename Fail>
json parse_rejecting_duplicate_keys(const std::string& text, const Fail& fail)
{
    // The parser's callback tracks the path of the value being read (for errors the parser raises itself,
    // such as a number that overflows a double) and the keys seen so far in every open object.
    struct OpenValue {
        bool is_array = false;
        std::string key;      // in an object: the key being read
        size_type index = 0;  // in an array: the index of the element being read
        std::set<std::string> keys;
    };
    std::vector<OpenValue> open;
    const auto current_path = [&open] {
        std::string path;
        for (const auto& value : open) {
            path += "/" + (value.is_array ? std::to_string(value.index) : value.key);
        }
        return path.empty() ? std::string{"/"} : path;
    };
    const auto end_value = [&open] {
        if (!open.empty() && open.back().is_array) {
            ++open.back().index;
        }
    };
    const auto track = [&](int, json::parse_event_t event, json& parsed) {
        switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
            open.emplace_back();
            open.back().is_array = event == json::parse_event_t::array_start;
            break;
        case json::parse_event_t::key:
            open.back().key = parsed.get<std::string>();
            if (!open.back().keys.insert(open.back().key).second) {
                fail(current_path(), "duplicate key \"" + open.back().key + "\" (each field may appear once)");
            }
            break;
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            open.pop_back();
            end_value();
            break;
        case json::parse_event_t::value:
            end_value();
            break;
        }
        return true;
    };
    json description;
    try {
        description = json::parse(text, track);
    } catch (const json::exception& error) {
        // e.g. "[json.exception.out_of_range.406] number overflow parsing '1e400'" or a syntax error
        fail(current_path(), std::string{"malformed JSON: "} + error.what());
    }
    return description;
}

/// `text` parsed as JSON; BadInput naming the JSON path for malformed JSON, a number that overflows a
/// double or a key that appears twice in one object.
inline json parse_strictly(const std::string& text) { return parse_rejecting_duplicate_keys(text, fail); }

}  // namespace detail
}  // namespace config
}  // namespace larch
