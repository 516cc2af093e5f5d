// The generic factory behind `Type::build().with_...().on(exec)`, and deferred_factory, which holds either a
// factory or a parameter set whose executor is fixed later (a preconditioner inside a solver's parameters).
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "larch/base/lin_op.hpp"

namespace larch {

/**
 * The factory of `Product`, made by `Parameters::on(exec)`. `generate(A)` returns the concrete type and
 * calls `Product::create(exec, parameters, A)`, which validates the parameters against A and throws
 * BadInput, DimensionMismatch or NotSupported before any kernel runs. `Base` is LinOpFactory or a
 * subclass of it (e.g. solver::SolverFactory<T>) with a constructor taking the executor.
 */
template <typename Product, typename Parameters, typename Base = LinOpFactory>
class EnableFactory : public Base {
public:
    EnableFactory(std::shared_ptr<const Executor> exec, Parameters parameters)
        : Base(std::move(exec)), parameters_{std::move(parameters)}
    {}

    /// The parameters this factory was built from.
    const Parameters& get_parameters() const noexcept { return parameters_; }

    /// Generates the operator for `system_matrix` (throws BadInput for a null matrix).
    std::unique_ptr<Product> generate(std::shared_ptr<const LinOp> system_matrix) const
    {
        LARCH_ENSURE(system_matrix, BadInput, "generate: the system matrix is null");
        return Product::create(this->get_executor(), parameters_, std::move(system_matrix));
    }
    template <typename U, typename D>
    std::unique_ptr<Product> generate(std::unique_ptr<U, D>&& system_matrix) const
    {
        return generate(std::shared_ptr<const LinOp>(std::move(system_matrix)));
    }
    template <typename U, typename D>
    void generate(const std::unique_ptr<U, D>&) const
    {
        static_assert(detail::dependent_false<U>::value, LARCH_GENERATE_OWNERSHIP_MESSAGE);
    }

protected:
    std::unique_ptr<LinOp> generate_impl(std::shared_ptr<const LinOp> system_matrix) const override
    {
        return generate(std::move(system_matrix));
    }

private:
    Parameters parameters_;
};

/// Gives a parameter struct its `on(exec)`, which creates the factory `Factory` on `exec`.
template <typename Parameters, typename Factory>
struct enable_parameters {
    /// The factory with these parameters on `exec` (throws BadInput for a null executor).
    std::unique_ptr<Factory> on(std::shared_ptr<const Executor> exec) const
    {
        LARCH_ENSURE(exec, BadInput, "on: the executor is null");
        return std::make_unique<Factory>(std::move(exec), static_cast<const Parameters&>(*this));
    }
};

/**
 * A factory to be created on an executor chosen later: either an existing factory (used as it is) or a
 * parameter set with `on(exec)` (e.g. `preconditioner::BlockJacobi<double>::build()`), turned into a
 * factory on the executor of the object that uses it. Empty by default.
 */
class deferred_factory {
public:
    deferred_factory() = default;

    template <typename F, std::enable_if_t<std::is_base_of<LinOpFactory, F>::value, int> = 0>
    deferred_factory(std::shared_ptr<F> factory)
    {
        if (factory) {
            std::shared_ptr<const LinOpFactory> shared = std::move(factory);
            make_ = [shared](const std::shared_ptr<const Executor>&) { return shared; };
        }
    }

    template <typename F, std::enable_if_t<std::is_base_of<LinOpFactory, F>::value, int> = 0>
    deferred_factory(std::unique_ptr<F> factory) : deferred_factory(std::shared_ptr<F>(std::move(factory)))
    {}

    template <typename Parameters,
              typename = decltype(std::declval<const Parameters&>().on(
                  std::declval<std::shared_ptr<const Executor>>()))>
    deferred_factory(const Parameters& parameters)
        : make_{[parameters](const std::shared_ptr<const Executor>& exec) {
              return std::shared_ptr<const LinOpFactory>(parameters.on(exec));
          }}
    {}

    explicit operator bool() const noexcept { return static_cast<bool>(make_); }

    /// The factory on `exec` (an existing factory is returned unchanged); null when empty.
    std::shared_ptr<const LinOpFactory> on(const std::shared_ptr<const Executor>& exec) const
    {
        return make_ ? make_(exec) : nullptr;
    }

private:
    std::function<std::shared_ptr<const LinOpFactory>(const std::shared_ptr<const Executor>&)> make_;
};

}  // namespace larch
