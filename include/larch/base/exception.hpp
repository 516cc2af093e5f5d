// Exceptions thrown by larch: every one names the file and line where it was raised and says what was wrong.
#pragma once

#include <stdexcept>
#include <string>

namespace larch {

/**
 * Base of every larch exception; `what()` reads "file:line: message", the file relative to larch's source
 * tree (e.g. "core/config/solver_config.cpp:253: ...") for errors raised inside the library. Code that adds
 * context to an error it caught catches `Error&` (or a subclass, by non-const reference), calls add_context
 * and rethrows with `throw;`: the exception keeps its dynamic type and contents (batch::SingularItems keeps
 * its items) and its message one location.
 */
class Error : public std::runtime_error {
public:
    Error(const std::string& file, int line, const std::string& message)
        : std::runtime_error(message),
          file_{relative_source(file)},
          line_{line},
          message_{message},
          what_{located()}
    {}

    /// "file:line: message". std::runtime_error's own copy of a text (here the bare message, as it needs one)
    /// cannot change, so what() reads what_, which add_context keeps up to date.
    const char* what() const noexcept override { return what_.c_str(); }

    const std::string& get_file() const noexcept { return file_; }
    int get_line() const noexcept { return line_; }
    /// The message without the location.
    const std::string& get_message() const noexcept { return message_; }

    /// Puts `prefix` before the message, in get_message() and what() alike (e.g. "on process 1 of 4: ").
    void add_context(const std::string& prefix)
    {
        message_ = prefix + message_;
        what_ = located();
    }

private:
    // The build maps the source tree's absolute path away (-fmacro-prefix-map); a compiler run from the build
    // folder on relative paths (ccache with a base_dir) leaves "../" in front instead.
    static std::string relative_source(std::string file)
    {
        while (file.compare(0, 3, "../") == 0 || file.compare(0, 2, "./") == 0) {
            file.erase(0, file[1] == '.' ? 3 : 2);
        }
        return file;
    }

    std::string located() const { return file_ + ":" + std::to_string(line_) + ": " + message_; }

    std::string file_;
    int line_;
    std::string message_;
    std::string what_;
};

/// Operands whose sizes do not fit together; the message names both operands and their sizes.
class DimensionMismatch : public Error {
    using Error::Error;
};

/// Malformed user input (a Matrix Market parse error with its line number, an invalid parameter, ...).
class BadInput : public Error {
    using Error::Error;
};

/// The operation exists but not for these arguments (e.g. operands on different executors).
class NotSupported : public Error {
    using Error::Error;
};

/// An executor name that `make_executor` does not know.
class UnknownExecutor : public Error {
    using Error::Error;
};

/// A backend (CUDA, HIP) that this build of larch does not contain; names the backend and the kernel.
class BackendNotBuilt : public Error {
    using Error::Error;
};

/// A device id that does not exist on this machine (or no device at all).
class DeviceNotFound : public Error {
    using Error::Error;
};

/// A CUDA/HIP (or cuBLAS/cuSPARSE) call failed; the message holds the call and the runtime's error string.
class DeviceError : public Error {
    using Error::Error;
};

/// Memory could not be allocated; the message names the executor and the number of bytes.
class AllocationError : public Error {
    using Error::Error;
};

}  // namespace larch

/// Throws `Type` with the current file and line.
#define LARCH_THROW(Type, message) throw Type(__FILE__, __LINE__, (message))

/// Throws `Type` with the current file and line unless `condition` holds.
#define LARCH_ENSURE(condition, Type, message) \
    do {                                        \
        if (!(condition)) {                     \
            LARCH_THROW(Type, message);         \
        }                                       \
    } while (false)
