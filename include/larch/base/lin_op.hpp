// LinOp: anything that can be applied to a vector (matrices, solvers, preconditioners), and the factory
// pattern that generates LinOps from a system matrix.
#pragma once

#include <memory>
#include <string>

#include "larch/base/exception.hpp"
#include "larch/base/executor.hpp"
#include "larch/base/types.hpp"

namespace larch {

/**
 * A non-owning reference to an operand that accepts whatever the caller holds: a reference, a raw
 * pointer, a shared_ptr or a unique_ptr. A null pointer throws BadInput when used.
 */
template <typename T>
class ptr_param {
public:
    ptr_param(T& ref) : ptr_{&ref} {}
    ptr_param(T* ptr) : ptr_{ptr} {}
    template <typename U>
    ptr_param(const std::shared_ptr<U>& ptr) : ptr_{ptr.get()}
    {}
    template <typename U, typename D>
    ptr_param(const std::unique_ptr<U, D>& ptr) : ptr_{ptr.get()}
    {}

    T* get() const { return ptr_; }
    T& operator*() const
    {
        LARCH_ENSURE(ptr_, BadInput, "a null operand was passed");
        return *ptr_;
    }
    T* operator->() const { return &**this; }

private:
    T* ptr_;
};

/**
 * A linear operator x = op(b). `apply(b, x)` computes x = A b, `apply(alpha, b, beta, x)` computes
 * x = alpha A b + beta x. Sizes and executors are checked here, before any kernel runs:
 * DimensionMismatch names both operands and their sizes; operands on another executor throw NotSupported.
 */
class LinOp : public std::enable_shared_from_this<LinOp> {
public:
    virtual ~LinOp() = default;

    void apply(ptr_param<const LinOp> b, ptr_param<LinOp> x) const;
    void apply(double alpha, ptr_param<const LinOp> b, double beta, ptr_param<LinOp> x) const;

    const dim2& get_size() const noexcept { return size_; }
    const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }

    /// A deep copy of this operator on `exec`.
    virtual std::unique_ptr<LinOp> clone_to(std::shared_ptr<const Executor> exec) const = 0;
    /// A deep copy on this operator's own executor.
    std::unique_ptr<LinOp> clone() const { return clone_to(exec_); }

    /// A short name for messages ("Csr<double,int32>", "Cg<double>", ...).
    virtual std::string get_type_name() const = 0;

protected:
    LinOp(std::shared_ptr<const Executor> exec, dim2 size) : exec_{std::move(exec)}, size_{size} {}
    LinOp(const LinOp&) = default;
    LinOp& operator=(const LinOp&) = default;

    void set_size(dim2 size) noexcept { size_ = size; }

    virtual void apply_impl(const LinOp& b, LinOp& x) const = 0;
    virtual void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const = 0;

private:
    void validate_apply(const char* operation, const LinOp& b, const LinOp& x) const;

    std::shared_ptr<const Executor> exec_;
    dim2 size_;
};

/**
 * Makes LinOps of one type from a system matrix: `factory->generate(A)`. Factories are created by
 * `Type::build().with_...().on(exec)` and may be nested (a solver keeps a preconditioner factory).
 */
class LinOpFactory {
public:
    virtual ~LinOpFactory() = default;

    /// Generates the operator for system matrix `system_matrix` (kept alive by the result if needed).
    std::unique_ptr<LinOp> generate(std::shared_ptr<const LinOp> system_matrix) const
    {
        LARCH_ENSURE(system_matrix, BadInput, "LinOpFactory::generate: the system matrix is null");
        return generate_impl(std::move(system_matrix));
    }

    const std::shared_ptr<const Executor>& get_executor() const noexcept { return exec_; }

protected:
    explicit LinOpFactory(std::shared_ptr<const Executor> exec) : exec_{std::move(exec)} {}
    virtual std::unique_ptr<LinOp> generate_impl(std::shared_ptr<const LinOp> system_matrix) const = 0;

private:
    std::shared_ptr<const Executor> exec_;
};

/// Turns a unique_ptr into a shared_ptr (for operators passed to factories).
template <typename T>
std::shared_ptr<T> share(std::unique_ptr<T>&& ptr)
{
    return std::shared_ptr<T>(std::move(ptr));
}

/// Casts an operand to the concrete type an operation needs, naming both types if it is not one.
template <typename Target, typename Source>
Target& as(Source& op, const char* context)
{
    auto result = dynamic_cast<Target*>(&op);
    if (!result) {
        LARCH_THROW(NotSupported, std::string{context} + ": operand of type " +
                                      op.get_type_name() + " is not supported here");
    }
    return *result;
}

}  // namespace larch
