// larch::Error's context: add_context puts a prefix before the message of an exception in flight, and one
// caught as Error& and rethrown with `throw;` is still its own type with its own contents.
#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "larch/base/exception.hpp"
#include "larch/batch/status.hpp"

namespace larch {
namespace {

/// Runs `operation`; a larch::Error it throws gets `prefix` and goes on as it was thrown.
void with_context(const std::string& prefix, const std::function<void()>& operation)
{
    try {
        operation();
    } catch (Error& error) {
        error.add_context(prefix);
        throw;
    }
}

TEST(Error, AddContextPutsThePrefixBeforeTheMessageAndKeepsTheLocation)
{
    Error error{"core/solver/cg.cpp", 42, "the matrix is 3x4"};
    EXPECT_STREQ(error.what(), "core/solver/cg.cpp:42: the matrix is 3x4");

    error.add_context("Cg::generate: ");
    error.add_context("on process 1 of 2: ");
    EXPECT_EQ(error.get_message(), "on process 1 of 2: Cg::generate: the matrix is 3x4");
    EXPECT_EQ(error.get_file(), "core/solver/cg.cpp");
    EXPECT_EQ(error.get_line(), 42);
    // what() is virtual: read through std::exception, as a program's last catch reads it.
    const std::exception& any = error;
    EXPECT_STREQ(any.what(), "core/solver/cg.cpp:42: on process 1 of 2: Cg::generate: the matrix is 3x4");
}

TEST(Error, ASubclassRethrownAfterAddingContextKeepsItsType)
{
    try {
        with_context("Cg::apply: ", [] { throw DimensionMismatch("core/matrix/csr.cpp", 7, "b is 3x1, x is 4x1"); });
        FAIL() << "no exception";
    } catch (const DimensionMismatch& e) {
        EXPECT_EQ(e.get_message(), "Cg::apply: b is 3x1, x is 4x1");
        EXPECT_STREQ(e.what(), "core/matrix/csr.cpp:7: Cg::apply: b is 3x1, x is 4x1");
    }
}

TEST(Error, SingularItemsRethrownAfterAddingContextKeepsItsItems)
{
    try {
        with_context("on process 2 of 4: ", [] {
            throw batch::SingularItems("core/batch/status.cpp", 44, "2 of 5 items are singular", {1, 3});
        });
        FAIL() << "no exception";
    } catch (const batch::SingularItems& e) {
        EXPECT_EQ(e.get_items(), (std::vector<size_type>{1, 3}));
        EXPECT_EQ(e.get_message(), "on process 2 of 4: 2 of 5 items are singular");
        EXPECT_EQ(e.get_file(), "core/batch/status.cpp");
    }
}

}  // namespace
}  // namespace larch
