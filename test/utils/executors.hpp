// The executors a backend test runs on: every backend that is built. A GPU executor with no device on
// this machine makes the test SKIP with the reason printed, never pass silently.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "larch/base/executor.hpp"

namespace larch {
namespace test {

/// Names of the executors to test: reference and omp always, cuda and hip when built.
inline std::vector<std::string> executor_names()
{
    std::vector<std::string> names{"reference", "omp"};
    for (const std::string backend : {"cuda", "hip"}) {
        if (is_backend_built(backend)) {
            names.push_back(backend);
        }
    }
    return names;
}

/// Creates the executor or marks the current test SKIPPED when its device is absent.
#define LARCH_EXECUTOR_OR_SKIP(var, name)                                                   \
    std::shared_ptr<const ::larch::Executor> var;                                          \
    try {                                                                                   \
        var = ::larch::make_executor(name);                                                 \
    } catch (const ::larch::DeviceNotFound& e) {                                            \
        GTEST_SKIP() << "no device for executor '" << (name) << "': " << e.what();          \
    }

}  // namespace test
}  // namespace larch
