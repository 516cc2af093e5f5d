// Backend-independent parts of the executors: allocation checks, copies between any two executors, and
// make_executor(), the only place where an executor is chosen by name.
#include "larch/base/executor.hpp"

#include <cstring>
#include <new>
#include <typeinfo>
#include <vector>

#include "larch/config.hpp"

namespace larch {

void* Executor::alloc_bytes(size_type num_bytes) const
{
    if (num_bytes == 0) {
        return nullptr;
    }
    return raw_alloc(num_bytes);
}

bool Executor::memory_accessible(const Executor& other) const
{
    if (is_host() && other.is_host()) {
        return true;
    }
    if (typeid(*this) != typeid(other)) {
        return false;
    }
    return static_cast<const GpuExecutor&>(*this).get_device_id() ==
           static_cast<const GpuExecutor&>(other).get_device_id();
}

void* Executor::alloc_pinned_host(size_type num_bytes) const
{
    if (num_bytes == 0) {
        return nullptr;
    }
    try {
        return ::operator new(num_bytes);
    } catch (const std::bad_alloc&) {
        LARCH_THROW(AllocationError, get_name() + ": could not allocate " + std::to_string(num_bytes) +
                                         " bytes of host staging memory");
    }
}

void Executor::free_pinned_host(void* ptr) const noexcept
{
    ::operator delete(ptr);
}

void Executor::copy_from(const Executor& src_exec, size_type num_bytes, const void* src_ptr,
                         void* dest_ptr) const
{
    if (num_bytes == 0) {
        return;
    }
    if (src_exec.is_host()) {
        raw_copy_from_host(src_ptr, num_bytes, dest_ptr);
    } else if (is_host()) {
        src_exec.raw_copy_to_host(src_ptr, num_bytes, dest_ptr);
    } else if (typeid(*this) == typeid(src_exec)) {
        raw_copy_same_backend(src_exec, src_ptr, num_bytes, dest_ptr);
    } else {
        // CUDA <-> HIP: no direct path between the two runtimes, so stage through host memory.
        std::vector<unsigned char> staging(num_bytes);
        src_exec.raw_copy_to_host(src_ptr, num_bytes, staging.data());
        raw_copy_from_host(staging.data(), num_bytes, dest_ptr);
    }
}

namespace {

bool starts_with(const std::string& s, const std::string& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

/// Whether `name` is "backend" or "backend:N" with a device number of 1 to 6 digits.
bool is_device_name(const std::string& name, const std::string& backend)
{
    if (name == backend) {
        return true;
    }
    const auto prefix = backend + ":";
    if (!starts_with(name, prefix)) {
        return false;
    }
    const auto digits = name.substr(prefix.size());
    return !digits.empty() && digits.size() <= 6 && digits.find_first_not_of("0123456789") == std::string::npos;
}

int parse_device_id(const std::string& name, const std::string& backend)
{
    if (!is_device_name(name, backend)) {
        LARCH_THROW(UnknownExecutor, "make_executor: '" + name + "' is not a valid " + backend +
                                         " executor name; use '" + backend + "' or '" + backend +
                                         ":N' with a device number N");
    }
    return name == backend ? 0 : std::stoi(name.substr(backend.size() + 1));
}

}  // namespace

bool is_executor_name(const std::string& name)
{
    return name == "reference" || name == "omp" || is_device_name(name, "cuda") || is_device_name(name, "hip");
}

bool is_backend_built(const std::string& backend)
{
    if (backend == "reference" || backend == "omp") {
        return true;
    }
    if (backend == "cuda") {
        return config::have_cuda;
    }
    if (backend == "hip") {
        return config::have_hip;
    }
    return false;
}

std::shared_ptr<const Executor> make_executor(const std::string& name)
{
    if (name == "reference") {
        return ReferenceExecutor::create();
    }
    if (name == "omp") {
        return OmpExecutor::create();
    }
    if (name == "cuda" || starts_with(name, "cuda:")) {
        return CudaExecutor::create(parse_device_id(name, "cuda"));
    }
    if (name == "hip" || starts_with(name, "hip:")) {
        return HipExecutor::create(parse_device_id(name, "hip"));
    }
    LARCH_THROW(UnknownExecutor, "make_executor: unknown executor '" + name +
                                     "'; valid names are reference, omp, cuda, cuda:N, hip, hip:N");
}

std::string best_available_executor_name()
{
    if (CudaExecutor::get_num_devices() > 0) {
        return "cuda";
    }
    if (HipExecutor::get_num_devices() > 0) {
        return "hip";
    }
    return "omp";
}

}  // namespace larch
