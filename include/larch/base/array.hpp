// array<T>: the one owning, executor-bound buffer of larch. No other code allocates raw memory.
#pragma once

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "larch/base/executor.hpp"

namespace larch {

/**
 * A contiguous buffer of `T` on one executor. Owning by default; `array::view()` wraps memory the caller
 * keeps alive. Copies between executors are explicit (`array(exec, other)`, `copy_from`); assignment keeps
 * this array's executor and copies the data over.
 */
template <typename T>
class array {
    static_assert(std::is_trivially_copyable<T>::value, "array holds trivially copyable types only");

public:
    array() = default;

    /// An empty array bound to `exec`.
    explicit array(std::shared_ptr<const Executor> exec) : exec_{std::move(exec)} {}

    /// `size` uninitialized elements on `exec`.
    array(std::shared_ptr<const Executor> exec, size_type size) : exec_{std::move(exec)}
    {
        allocate(size);
    }

    /// Elements copied from host values onto `exec`.
    array(std::shared_ptr<const Executor> exec, std::initializer_list<T> values)
        : array(std::move(exec), values.begin(), values.end())
    {}

    /// Elements of a host range copied onto `exec`.
    template <typename Iterator>
    array(std::shared_ptr<const Executor> exec, Iterator begin, Iterator end)
        : exec_{std::move(exec)}
    {
        std::vector<T> host(begin, end);
        allocate(host.size());
        if (!host.empty()) {
            exec_->copy_from(*exec_->get_host(), host.size() * sizeof(T), host.data(), data_.get());
        }
    }

    /// A copy of `other` on `exec`.
    array(std::shared_ptr<const Executor> exec, const array& other) : exec_{std::move(exec)}
    {
        copy_from(other);
    }

    array(const array& other) : array(other.exec_, other) {}
    array(array&& other) noexcept { swap(other); }

    /// Copies the data of `other`, keeping this array's executor (taking `other`'s if it has none).
    array& operator=(const array& other)
    {
        if (this != &other) {
            if (!exec_) {
                exec_ = other.exec_;
            }
            copy_from(other);
        }
        return *this;
    }

    /// Takes `other`'s buffer if both live on the same executor, otherwise copies.
    array& operator=(array&& other)
    {
        if (this == &other) {
            return *this;
        }
        if (!exec_ || exec_ == other.exec_) {
            // tmp takes other's buffer AND executor (moving the executor out first would leave
            // this array with a null executor)
            array tmp{std::move(other)};
            swap(tmp);
        } else {
            copy_from(other);
        }
        return *this;
    }

    /// A non-owning array over `size` elements at `data` (memory of `exec`) that the caller keeps alive.
    static array view(std::shared_ptr<const Executor> exec, size_type size, T* data)
    {
        array result{std::move(exec)};
        result.size_ = size;
        result.data_ = data_pointer{data, [](T*) {}};
        result.view_ = true;
        return result;
    }

    /// Resizes to `size` copied elements of `other` (from any executor) on this array's executor.
    void copy_from(const array& other)
    {
        if (other.size_ != size_) {
            if (is_view()) {
                LARCH_THROW(DimensionMismatch,
                            "array::copy_from: cannot resize a view of " + std::to_string(size_) +
                                " elements to " + std::to_string(other.size_));
            }
            allocate(other.size_);
        }
        if (size_ > 0) {
            exec_->copy_from(*other.exec_, size_ * sizeof(T), other.data_.get(), data_.get());
        }
    }

    /// Drops the content and allocates `size` uninitialized elements.
    void resize_and_reset(size_type size)
    {
        if (size != size_) {
            allocate(size);
        }
    }

    /// The elements copied into a host vector (synchronizes with the executor).
    std::vector<T> copy_to_host() const
    {
        std::vector<T> host(size_);
        if (size_ > 0) {
            exec_->get_host()->copy_from(*exec_, size_ * sizeof(T), data_.get(), host.data());
        }
        return host;
    }

    T* get_data() noexcept { return data_.get(); }
    const T* get_const_data() const noexcept { return data_.get(); }
    size_type get_size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }
    bool is_view() const noexcept { return view_; }

    void swap(array& other) noexcept
    {
        std::swap(exec_, other.exec_);
        std::swap(size_, other.size_);
        std::swap(data_, other.data_);
        std::swap(view_, other.view_);
    }

private:
    using data_pointer = std::unique_ptr<T[], std::function<void(T*)>>;

    void allocate(size_type size)
    {
        LARCH_ENSURE(exec_, NotSupported, "array: cannot allocate without an executor");
        data_.reset();
        size_ = 0;
        view_ = false;
        if (size > 0) {
            // size * sizeof(T) would wrap around to a small allocation holding `size` elements
            LARCH_ENSURE(size <= std::numeric_limits<size_type>::max() / sizeof(T), AllocationError,
                         exec_->get_name() + ": cannot allocate " + std::to_string(size) + " elements of " +
                             std::to_string(sizeof(T)) + " bytes (more bytes than a size_type counts)");
            auto exec = exec_;
            data_ = data_pointer{static_cast<T*>(exec->alloc_bytes(size * sizeof(T))),
                                 [exec](T* p) { exec->free_bytes(p); }};
        }
        size_ = size;
    }

    std::shared_ptr<const Executor> exec_;
    size_type size_ = 0;
    data_pointer data_{nullptr, [](T*) {}};
    bool view_ = false;
};

}  // namespace larch
