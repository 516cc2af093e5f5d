// Checks the status of an MPI call (larch::Error naming the call and MPI's error string), and the counts
// passed to one (MPI takes them as int).
#pragma once

#include <limits>
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

/**
 * `count` as the int an MPI call takes; NotSupported naming `what` (the operation and the quantity) where it
 * exceeds 2^31 - 1. Callers make sure every process reaches the same verdict (the count of every process is
 * known to all, or the check runs inside ProcessGroup::check_on_every_process), so that no process is left
 * waiting in the call another one refused.
 */
inline int to_mpi_count(unsigned long long count, const std::string& what)
{
    LARCH_ENSURE(count <= static_cast<unsigned long long>(std::numeric_limits<int>::max()), NotSupported,
                 what + " is " + std::to_string(count) + ", more than one MPI call can carry (2^31 - 1)");
    return static_cast<int>(count);
}

}  // namespace detail
}  // namespace larch

#define LARCH_MPI_CHECK(call) ::larch::detail::check_mpi((call), #call, __FILE__, __LINE__)
