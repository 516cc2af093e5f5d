// Checks the status of an MPI call: larch::Error naming the call and MPI's error string.
#pragma once

#include <string>

#include <mpi.h>

#include "larch/base/exception.hpp"

namespace larch {
namespace detail {

inline void check_mpi(int status, const char* call, const char* file, int line)
{
    if (status == MPI_SUCCESS) {
        return;
    }
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(status, text, &length);
    throw Error(file, line, std::string{call} + " failed: " + std::string(text, static_cast<size_t>(length)));
}

}  // namespace detail
}  // namespace larch

#define LARCH_MPI_CHECK(call) ::larch::detail::check_mpi((call), #call, __FILE__, __LINE__)
