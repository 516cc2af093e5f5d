// Typed, checked access to the benchmark's JSON configuration: every error names the field and what was
// expected, e.g. "cases[2].matrix: unknown field 'szie' (known fields: file, generator, size)".
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace larch {
namespace benchmark {

using json = nlohmann::json;

/// A configuration that cannot be run as written; the message names the offending field.
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/**
 * One JSON object of the configuration together with its path ("cases[3]", "cases[3].matrix"), so that
 * every message can say where the problem is. Getters throw ConfigError for a missing required field or a
 * value of the wrong type.
 */
class Fields {
public:
    /// Throws ConfigError unless `object` is a JSON object.
    Fields(json object, std::string path);

    const std::string& get_path() const noexcept { return path_; }
    const json& get_json() const noexcept { return object_; }
    bool has(const std::string& key) const { return object_.contains(key); }

    std::string get_string(const std::string& key) const;
    std::string get_string(const std::string& key, const std::string& fallback) const;
    /// An integer in [min_value, max_value].
    long long get_integer(const std::string& key, long long min_value = 0,
                          long long max_value = (1LL << 62)) const;
    long long get_integer(const std::string& key, long long fallback, long long min_value,
                          long long max_value) const;
    double get_number(const std::string& key) const;
    double get_number(const std::string& key, double fallback) const;
    bool get_bool(const std::string& key, bool fallback) const;
    Fields get_object(const std::string& key) const;

    /// Throws ConfigError naming the first field that is not in `known`.
    void check_known(const std::vector<std::string>& known) const;

    /// Throws ConfigError naming `key` with "must be <expected>, not <what it is>".
    [[noreturn]] void fail(const std::string& key, const std::string& message) const;

private:
    const json& require(const std::string& key) const;

    json object_;
    std::string path_;
};

/// "a string", "an integer", ... for messages.
std::string describe_type(const json& value);

/// Joins names with ", " (for lists of allowed values in messages).
std::string join(const std::vector<std::string>& names);

}  // namespace benchmark
}  // namespace larch
