// LinOp: anything that can be applied to a vector (matrices, solvers, preconditioners), and the factory
// pattern that generates LinOps from a system matrix.
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "larch/base/exception.hpp"
#include "larch/base/executor.hpp"
#include "larch/base/types.hpp"

namespace larch {

class ProcessGroup;

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

namespace detail {
template <typename T>
struct dependent_false : std::false_type {};
}  // namespace detail

/// What a factory's generate says to a caller who passes a unique_ptr it keeps (a compile-time error).
#define LARCH_GENERATE_OWNERSHIP_MESSAGE                                                                  \
    "generate(A) keeps the system matrix alive, so it needs shared ownership of A: create A as "         \
    "larch::share(Csr<double>::create(...)) (or share(io::read_matrix_market<...>(...))), or hand over " \
    "the unique_ptr with generate(std::move(A))"

/**
 * A linear operator x = op(b). `apply(b, x)` computes x = A b, `apply(alpha, b, beta, x)` computes
 * x = alpha A b + beta x. Sizes, executors and aliasing are checked here, before any kernel runs:
 * - DimensionMismatch names both operands and their sizes;
 * - an operand on another executor is used in place where the operator's executor can address its memory
 *   (reference and omp share host memory, so an omp operator applies to reference vectors and vice versa);
 *   otherwise (host vectors for a GPU operator, or another GPU) it throws NotSupported: copy it first
 *   (clone_to, copy_from);
 * - x may not share memory with b or with the operator (`A->apply(b, b)`, a column view of b, a solver's
 *   b and x being one vector): BadInput, since no operator computes in place.
 *
 * Thread safety: apply is const and may run concurrently on one operator from several threads with distinct
 * x; solvers record their per-column status under a lock, so get_status() reports the latest apply that
 * finished.
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

    /// Where an operator's values lie: `rows` runs of `row_bytes` bytes, `stride_bytes` apart, from `first`.
    struct memory_span {
        const char* first = nullptr;
        size_type rows = 0;
        size_type row_bytes = 0;
        size_type stride_bytes = 0;
    };

protected:
    LinOp(std::shared_ptr<const Executor> exec, dim2 size) : exec_{std::move(exec)}, size_{size} {}
    LinOp(const LinOp&) = default;
    LinOp& operator=(const LinOp&) = default;

    void set_size(dim2 size) noexcept { size_ = size; }

    /// The operator's own values, for the aliasing check of apply (column views of one matrix do not
    /// overlap); operators whose values an apply cannot write over (solvers, preconditioners, sparse
    /// matrices, which are never an apply's x) keep the empty default.
    virtual memory_span get_memory_span() const noexcept { return {}; }

    /// The processes that apply this operator together (operators spread over processes, and solvers on
    /// them), or null. With a group, apply's operand checks are collective: bad operands on one process,
    /// or a b whose column count differs from process 0's, make apply throw on every process of the group
    /// (ProcessGroup::check_on_every_process), never leave the others waiting for it.
    virtual const ProcessGroup* get_apply_group() const noexcept { return nullptr; }

    virtual void apply_impl(const LinOp& b, LinOp& x) const = 0;
    virtual void apply_impl(double alpha, const LinOp& b, double beta, LinOp& x) const = 0;

private:
    void validate_apply(const char* operation, const LinOp& b, const LinOp& x) const;
    /// validate_apply, on every process of get_apply_group() together where there is one.
    void check_operands(ptr_param<const LinOp> b, ptr_param<LinOp> x) const;

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
    /// Takes what `create` returns, moved in (`generate(std::move(A))`) or shared (`larch::share(...)`).
    std::unique_ptr<LinOp> generate(std::shared_ptr<const LinOp> system_matrix) const
    {
        LARCH_ENSURE(system_matrix, BadInput, "LinOpFactory::generate: the system matrix is null");
        return generate_impl(std::move(system_matrix));
    }
    template <typename U, typename D>
    std::unique_ptr<LinOp> generate(std::unique_ptr<U, D>&& system_matrix) const
    {
        return generate(std::shared_ptr<const LinOp>(std::move(system_matrix)));
    }
    template <typename U, typename D>
    void generate(const std::unique_ptr<U, D>&) const
    {
        static_assert(detail::dependent_false<U>::value, LARCH_GENERATE_OWNERSHIP_MESSAGE);
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

namespace detail {

/// The cast of `as`; `context()` names the operation and is called only when the cast fails.
template <typename Target, typename Source, typename Context>
Target& checked_cast(Source& op, Context context)
{
    auto result = dynamic_cast<Target*>(&op);
    if (!result) {
        LARCH_THROW(NotSupported, std::string{context()} + ": operand of type " + op.get_type_name() +
                                      " is not supported here");
    }
    return *result;
}

}  // namespace detail

/// Casts an operand to the concrete type an operation needs, naming both types if it is not one.
template <typename Target, typename Source>
Target& as(Source& op, const char* context)
{
    return detail::checked_cast<Target>(op, [context] { return context; });
}

/// As above, naming the operation "<owner's type name>::<operation>": the name is built only when the cast
/// fails, not on every apply inside a solver's iteration.
template <typename Target, typename Source>
Target& as(Source& op, const LinOp& owner, const char* operation)
{
    return detail::checked_cast<Target>(op, [&] { return owner.get_type_name() + "::" + operation; });
}

}  // namespace larch
