// Typed access to configuration fields with messages that name the field (see config.hpp).
#include "benchmark/driver/config.hpp"

#include <algorithm>
#include <cmath>

namespace larch {
namespace benchmark {

std::string describe_type(const json& value)
{
    switch (value.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return "a boolean (" + value.dump() + ")";
    case json::value_t::string:
        return "a string (" + value.dump() + ")";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return "an integer (" + value.dump() + ")";
    case json::value_t::number_float:
        return "a number (" + value.dump() + ")";
    case json::value_t::array:
        return "an array";
    case json::value_t::object:
        return "an object";
    default:
        return "an unsupported JSON value";
    }
}

std::string join(const std::vector<std::string>& names)
{
    std::string result;
    for (const auto& name : names) {
        result += (result.empty() ? "" : ", ") + name;
    }
    return result;
}

Fields::Fields(json object, std::string path) : object_(std::move(object)), path_{std::move(path)}
{
    if (!object_.is_object()) {
        throw ConfigError(path_ + " must be a JSON object, not " + describe_type(object_));
    }
}

void Fields::fail(const std::string& key, const std::string& message) const
{
    throw ConfigError(path_ + "." + key + ": " + message);
}

const json& Fields::require(const std::string& key) const
{
    if (!object_.contains(key)) {
        throw ConfigError(path_ + ": the required field '" + key + "' is missing");
    }
    return object_.at(key);
}

std::string Fields::get_string(const std::string& key) const
{
    const auto& value = require(key);
    if (!value.is_string()) {
        fail(key, "must be a string, not " + describe_type(value));
    }
    return value.get<std::string>();
}

std::string Fields::get_string(const std::string& key, const std::string& fallback) const
{
    return has(key) ? get_string(key) : fallback;
}

long long Fields::get_integer(const std::string& key, long long min_value,
                              long long max_value) const
{
    const auto& value = require(key);
    if (!value.is_number_integer()) {
        fail(key, "must be an integer, not " + describe_type(value));
    }
    const auto result = value.get<long long>();
    if (result < min_value || result > max_value) {
        fail(key, "must lie in [" + std::to_string(min_value) + ", " + std::to_string(max_value) +
                      "], not " + std::to_string(result));
    }
    return result;
}

long long Fields::get_integer(const std::string& key, long long fallback, long long min_value,
                              long long max_value) const
{
    return has(key) ? get_integer(key, min_value, max_value) : fallback;
}

double Fields::get_number(const std::string& key) const
{
    const auto& value = require(key);
    if (!value.is_number() || !std::isfinite(value.get<double>())) {
        fail(key, "must be a finite number, not " + describe_type(value));
    }
    return value.get<double>();
}

double Fields::get_number(const std::string& key, double fallback) const
{
    return has(key) ? get_number(key) : fallback;
}

bool Fields::get_bool(const std::string& key, bool fallback) const
{
    if (!has(key)) {
        return fallback;
    }
    const auto& value = object_.at(key);
    if (!value.is_boolean()) {
        fail(key, "must be true or false, not " + describe_type(value));
    }
    return value.get<bool>();
}

Fields Fields::get_object(const std::string& key) const
{
    const auto& value = require(key);
    if (!value.is_object()) {
        fail(key, "must be an object, not " + describe_type(value));
    }
    return Fields{value, path_ + "." + key};
}

void Fields::check_known(const std::vector<std::string>& known) const
{
    for (const auto& item : object_.items()) {
        if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
            throw ConfigError(path_ + ": unknown field '" + item.key() + "' (known fields: " +
                              join(known) + ")");
        }
    }
}

}  // namespace benchmark
}  // namespace larch
