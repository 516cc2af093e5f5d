// Host memory kept for staging one executor's data between calls: page-locked where the executor is a GPU.
#pragma once

#include <memory>

#include "larch/base/executor.hpp"

namespace larch {

/**
 * A host buffer from Executor::alloc_pinned_host() that grows on demand and is kept between uses, so that a
 * repeated transfer (e.g. each halo exchange of a distributed SpMV) neither allocates nor pins memory again.
 * Not safe for two threads to use at once.
 */
class HostStagingBuffer {
public:
    explicit HostStagingBuffer(std::shared_ptr<const Executor> exec) : exec_{std::move(exec)} {}
    ~HostStagingBuffer() { exec_->free_pinned_host(data_); }
    HostStagingBuffer(const HostStagingBuffer&) = delete;
    HostStagingBuffer& operator=(const HostStagingBuffer&) = delete;

    /// At least `num_bytes` of staging memory; the contents are kept only while the size does not grow.
    void* get(size_type num_bytes)
    {
        if (num_bytes > capacity_) {
            void* grown = exec_->alloc_pinned_host(num_bytes);
            exec_->free_pinned_host(data_);
            data_ = grown;
            capacity_ = num_bytes;
        }
        return data_;
    }

private:
    std::shared_ptr<const Executor> exec_;
    void* data_ = nullptr;
    size_type capacity_ = 0;
};

}  // namespace larch
