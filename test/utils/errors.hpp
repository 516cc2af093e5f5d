// Reading the message of a larch exception in a test, to check that it names what the user needs.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "larch/base/exception.hpp"

namespace larch {
namespace test {

/// The what() of the exception of type E (a larch::Error by default) that `operation` throws, or "no
/// exception"; an exception of another type passes through, and gtest reports it as a failure.
template <typename E = Error>
std::string error_message_of(const std::function<void()>& operation)
{
    try {
        operation();
    } catch (const E& e) {
        return e.what();
    }
    return "no exception";
}

/// Checks that an error message contains `part` (the operation, the offending value, ...).
inline void expect_contains(const std::string& message, const std::string& part)
{
    EXPECT_NE(message.find(part), std::string::npos) << "message: " << message;
}

}  // namespace test
}  // namespace larch
