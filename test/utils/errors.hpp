// Reading the message of a larch exception in a test, to check that it names what the user needs.
#pragma once

#include <functional>
#include <string>

#include "larch/base/exception.hpp"

namespace larch {
namespace test {

/// The what() of the larch::Error that `operation` throws, or "no exception".
inline std::string error_message_of(const std::function<void()>& operation)
{
    try {
        operation();
    } catch (const Error& e) {
        return e.what();
    }
    return "no exception";
}

}  // namespace test
}  // namespace larch
