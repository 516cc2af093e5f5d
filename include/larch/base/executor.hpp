// Executors: where memory lives and where kernels run. Chosen at run time with make_executor().
#pragma once

#include <memory>
#include <string>

#include "larch/base/exception.hpp"
#include "larch/base/types.hpp"

namespace larch {

class ReferenceExecutor;
class OmpExecutor;
class CudaExecutor;
class HipExecutor;

/**
 * A unit of work with one overload per executor type. Executor::run() calls the overload for its own
 * type, so dispatch is a virtual call, never a string comparison. Build one with detail::make_operation
 * (core code uses the LARCH_RUN_KERNEL macro of core/base/kernel_dispatch.hpp).
 */
class Operation {
public:
    virtual ~Operation() = default;
    virtual const char* get_name() const = 0;
    virtual void run(const ReferenceExecutor& exec) const = 0;
    virtual void run(const OmpExecutor& exec) const = 0;
    virtual void run(const CudaExecutor& exec) const = 0;
    virtual void run(const HipExecutor& exec) const = 0;
};

/**
 * Where memory lives and kernels run. All memory of larch goes through an executor (see array<T>);
 * copies between any two executors go through Executor::copy_from().
 */
class Executor : public std::enable_shared_from_this<Executor> {
public:
    virtual ~Executor() = default;
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    /// Runs `op` through the overload for this executor's type.
    virtual void run(const Operation& op) const = 0;

    /// Allocates `num_bytes` on this executor; throws AllocationError naming executor and size.
    void* alloc_bytes(size_type num_bytes) const;

    /// Frees memory obtained from alloc_bytes() of this executor.
    virtual void free_bytes(void* ptr) const noexcept = 0;

    /// Copies `num_bytes` from `src_ptr` (memory of `src_exec`) to `dest_ptr` (memory of this executor).
    void copy_from(const Executor& src_exec, size_type num_bytes, const void* src_ptr,
                   void* dest_ptr) const;

    /// Waits until all work queued on this executor has finished.
    virtual void synchronize() const = 0;

    /// The CPU executor that host-side work of this executor uses (itself for CPU executors).
    virtual std::shared_ptr<const Executor> get_host() const = 0;

    /// True for executors whose memory the CPU can address directly.
    virtual bool is_host() const = 0;

    /// The name make_executor() accepts for this executor, e.g. "omp" or "cuda:1".
    virtual std::string get_name() const = 0;

    /// True if both executors address the same memory space (same backend and device).
    bool memory_accessible(const Executor& other) const;

    /**
     * Allocates `num_bytes` of host memory to stage this executor's data in: page-locked on GPU executors, so
     * that copies between it and the device run at full speed without the driver's own bounce buffer; ordinary
     * memory on CPU executors. Throws AllocationError; free it with free_pinned_host() of the same executor.
     */
    virtual void* alloc_pinned_host(size_type num_bytes) const;

    /// Frees memory obtained from alloc_pinned_host() of this executor.
    virtual void free_pinned_host(void* ptr) const noexcept;

protected:
    Executor() = default;

    virtual void* raw_alloc(size_type num_bytes) const = 0;
    /// Copies from host memory into this executor's memory.
    virtual void raw_copy_from_host(const void* host_src, size_type num_bytes, void* dest) const = 0;
    /// Copies from this executor's memory into host memory.
    virtual void raw_copy_to_host(const void* src, size_type num_bytes, void* host_dest) const = 0;
    /// Copies between two allocations of the same backend (possibly on different devices).
    virtual void raw_copy_same_backend(const Executor& src_exec, const void* src,
                                       size_type num_bytes, void* dest) const = 0;
};

/// The sequential backend: plain, obviously correct code that every other backend is tested against.
class ReferenceExecutor final : public Executor {
public:
    static std::shared_ptr<ReferenceExecutor> create();

    void run(const Operation& op) const override { op.run(*this); }
    void free_bytes(void* ptr) const noexcept override;
    void synchronize() const override {}
    std::shared_ptr<const Executor> get_host() const override { return shared_from_this(); }
    bool is_host() const override { return true; }
    std::string get_name() const override { return "reference"; }

protected:
    void* raw_alloc(size_type num_bytes) const override;
    void raw_copy_from_host(const void* host_src, size_type num_bytes, void* dest) const override;
    void raw_copy_to_host(const void* src, size_type num_bytes, void* host_dest) const override;
    void raw_copy_same_backend(const Executor& src_exec, const void* src, size_type num_bytes,
                               void* dest) const override;

private:
    ReferenceExecutor() = default;
};

/// The OpenMP backend: multi-threaded CPU kernels (the number of threads follows OMP_NUM_THREADS).
class OmpExecutor final : public Executor {
public:
    static std::shared_ptr<OmpExecutor> create();

    void run(const Operation& op) const override { op.run(*this); }
    void free_bytes(void* ptr) const noexcept override;
    void synchronize() const override {}
    std::shared_ptr<const Executor> get_host() const override { return shared_from_this(); }
    bool is_host() const override { return true; }
    std::string get_name() const override { return "omp"; }

    /// Number of threads a parallel region of this executor uses.
    int get_num_threads() const;

protected:
    void* raw_alloc(size_type num_bytes) const override;
    void raw_copy_from_host(const void* host_src, size_type num_bytes, void* dest) const override;
    void raw_copy_to_host(const void* src, size_type num_bytes, void* host_dest) const override;
    void raw_copy_same_backend(const Executor& src_exec, const void* src, size_type num_bytes,
                               void* dest) const override;

private:
    OmpExecutor() = default;
};

/**
 * Shared shape of the two GPU executors. `Backend` is CudaExecutor or HipExecutor; the member
 * functions are implemented once in cuda/base/executor.cu, compiled by nvcc and by hipcc.
 */
class GpuExecutor : public Executor {
public:
    int get_device_id() const { return device_id_; }
    std::shared_ptr<const Executor> get_host() const override { return host_; }
    bool is_host() const override { return false; }

    /// Device properties read once at creation (used for launch configuration).
    int get_num_multiprocessors() const { return num_multiprocessors_; }
    int get_warp_size() const { return warp_size_; }
    size_type get_shared_memory_per_block() const { return shared_memory_per_block_; }
    /**
     * The most shared memory one block may have once its kernel opts in (cudaFuncSetAttribute with
     * MaxDynamicSharedMemorySize; 227 KB on the H100 against the default 48 KB). HIP has no opt-in: there
     * it equals get_shared_memory_per_block().
     */
    size_type get_max_shared_memory_per_block() const { return max_shared_memory_per_block_; }
    /**
     * Whether device memory comes from the device's stream-ordered pool, which keeps freed memory for the
     * next allocation (the default: temporaries then cost no cudaMalloc/cudaFree after their first use) instead
     * of returning it to the driver. The environment variable LARCH_GPU_MEMORY_POOL=off at executor creation
     * turns it off, e.g. where other processes share the GPU's memory.
     */
    bool uses_memory_pool() const { return uses_memory_pool_; }

protected:
    GpuExecutor(int device_id, std::shared_ptr<const Executor> host)
        : device_id_{device_id}, host_{std::move(host)}
    {}

    int device_id_;
    std::shared_ptr<const Executor> host_;
    int num_multiprocessors_ = 0;
    int warp_size_ = 32;
    size_type shared_memory_per_block_ = 0;
    size_type max_shared_memory_per_block_ = 0;
    bool uses_memory_pool_ = true;
};

/// The CUDA backend on one device; its host executor is an OmpExecutor.
class CudaExecutor final : public GpuExecutor {
public:
    /// Throws BackendNotBuilt if larch was built without CUDA, DeviceNotFound if the device is absent.
    static std::shared_ptr<CudaExecutor> create(int device_id = 0);

    /// Number of CUDA devices visible (0 if CUDA is not built or no driver is present).
    static int get_num_devices();

    /// Makes this executor's device current, then runs `op`.
    void run(const Operation& op) const override;
    void free_bytes(void* ptr) const noexcept override;
    void synchronize() const override;
    std::string get_name() const override { return "cuda:" + std::to_string(device_id_); }
    void* alloc_pinned_host(size_type num_bytes) const override;
    void free_pinned_host(void* ptr) const noexcept override;

protected:
    void* raw_alloc(size_type num_bytes) const override;
    void raw_copy_from_host(const void* host_src, size_type num_bytes, void* dest) const override;
    void raw_copy_to_host(const void* src, size_type num_bytes, void* host_dest) const override;
    void raw_copy_same_backend(const Executor& src_exec, const void* src, size_type num_bytes,
                               void* dest) const override;

private:
    CudaExecutor(int device_id, std::shared_ptr<const Executor> host);
};

/// The HIP backend on one device; its host executor is an OmpExecutor.
class HipExecutor final : public GpuExecutor {
public:
    /// Throws BackendNotBuilt if larch was built without HIP, DeviceNotFound if the device is absent.
    static std::shared_ptr<HipExecutor> create(int device_id = 0);

    /// Number of HIP devices visible (0 if HIP is not built or no driver is present).
    static int get_num_devices();

    /// Makes this executor's device current, then runs `op`.
    void run(const Operation& op) const override;
    void free_bytes(void* ptr) const noexcept override;
    void synchronize() const override;
    std::string get_name() const override { return "hip:" + std::to_string(device_id_); }
    void* alloc_pinned_host(size_type num_bytes) const override;
    void free_pinned_host(void* ptr) const noexcept override;

protected:
    void* raw_alloc(size_type num_bytes) const override;
    void raw_copy_from_host(const void* host_src, size_type num_bytes, void* dest) const override;
    void raw_copy_to_host(const void* src, size_type num_bytes, void* host_dest) const override;
    void raw_copy_same_backend(const Executor& src_exec, const void* src, size_type num_bytes,
                               void* dest) const override;

private:
    HipExecutor(int device_id, std::shared_ptr<const Executor> host);
};

/**
 * Creates an executor from its name: "reference", "omp", "cuda", "cuda:N", "hip", "hip:N".
 * Throws UnknownExecutor for any other name, BackendNotBuilt if the backend is not part of this build,
 * and DeviceNotFound if device N does not exist.
 */
std::shared_ptr<const Executor> make_executor(const std::string& name);

/// Whether make_executor takes `name` for a name (one of those above), whether or not this build holds its
/// backend and this machine its device: for checking a configuration before anything runs.
bool is_executor_name(const std::string& name);

/// The fastest executor this build and machine offer: "cuda", else "hip", else "omp".
std::string best_available_executor_name();

/// Whether a backend was compiled into this build of larch.
bool is_backend_built(const std::string& backend);

}  // namespace larch
