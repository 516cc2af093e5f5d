// The shared pieces of the batched dense benchmark operations (see batch_problems.hpp).
#include "benchmark/driver/batch_problems.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>

#include "benchmark/driver/host_memory.hpp"

namespace larch {
namespace benchmark {
namespace {

/// SplitMix64: a counter-based generator, so item i's values do not depend on how items are split
/// among threads.
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/// A uniform value in [-1, 1) from a 64-bit random word.
double symmetric_unit(std::uint64_t bits)
{
    return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
}

std::vector<dim2> item_sizes(const BatchShape& shape)
{
    // The same sizes as batch_invert has always drawn (std::mt19937 seeded 42).
    std::mt19937 engine{42};
    std::uniform_int_distribution<int> size_distribution{1, static_cast<int>(shape.max_size)};
    std::vector<dim2> sizes(static_cast<std::size_t>(shape.num_items));
    for (auto& s : sizes) {
        s = dim2(static_cast<size_type>(shape.is_uniform() ? shape.size : size_distribution(engine)));
    }
    return sizes;
}

template <typename T>
std::shared_ptr<const std::vector<T>> generate_values(const std::vector<dim2>& sizes,
                                                      const std::vector<std::int64_t>& offsets)
{
    constexpr std::uint64_t seed = 42;
    ensure_fits_host_memory(static_cast<double>(offsets.back()) * sizeof(T));
    auto values = std::make_shared<std::vector<T>>(static_cast<std::size_t>(offsets.back()));
    auto* data = values->data();
    const auto num_items = static_cast<std::int64_t>(sizes.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t item = 0; item < num_items; ++item) {
        const auto n = static_cast<int>(sizes[item].rows);
        auto* entries = data + offsets[item];
        const auto first = static_cast<std::uint64_t>(offsets[item]);
        for (int e = 0; e < n * n; ++e) {
            entries[e] = static_cast<T>(symmetric_unit(mix(seed ^ mix(first + e))));
        }
        // A random permutation (Fisher-Yates on the item's own stream) places the dominant entries.
        std::vector<int> permutation(static_cast<std::size_t>(n));
        for (int r = 0; r < n; ++r) {
            permutation[r] = r;
        }
        std::uint64_t state = mix(seed + 0x5bd1e995ull * (static_cast<std::uint64_t>(item) + 1));
        for (int r = n - 1; r > 0; --r) {
            state = mix(state);
            std::swap(permutation[r], permutation[static_cast<int>(state % (r + 1))]);
        }
        for (int r = 0; r < n; ++r) {
            entries[r * n + permutation[r]] += static_cast<T>(2 * n);
        }
    }
    return values;
}

/// The host values of the last shape asked for in precision T.
template <typename T>
std::shared_ptr<const std::vector<T>> cached_values(const BatchShape& shape,
                                                    const std::vector<dim2>& sizes,
                                                    const std::vector<std::int64_t>& offsets)
{
    static std::tuple<long long, long long, long long> key{-1, -1, -1};
    static std::shared_ptr<const std::vector<T>> values;
    const auto wanted = std::make_tuple(shape.num_items, shape.size,
                                        shape.is_uniform() ? 0LL : shape.max_size);
    if (!values || key != wanted) {
        values.reset();  // free the old batch before making the new one
        values = generate_values<T>(sizes, offsets);
        key = wanted;
    }
    return values;
}

}  // namespace

std::string BatchShape::label() const
{
    return (is_uniform() ? "n=" + std::to_string(size) : "n=1.." + std::to_string(max_size)) +
           " items=" + std::to_string(num_items);
}

json BatchShape::details() const
{
    return json{{"num_items", num_items}, {"size", size}, {"max_size", max_size}};
}

std::vector<std::string> with_batch_shape_fields(std::vector<std::string> more)
{
    std::vector<std::string> fields{"num_items", "size", "max_size"};
    fields.insert(fields.end(), more.begin(), more.end());
    return fields;
}

std::vector<std::string> with_batch_shape_list_fields(std::vector<std::string> more)
{
    std::vector<std::string> fields{"num_items", "size"};
    fields.insert(fields.end(), more.begin(), more.end());
    return fields;
}

BatchShape read_batch_shape(const Fields& fields, long long default_size)
{
    BatchShape shape;
    shape.num_items = fields.get_integer("num_items", 1, 1 << 26);
    shape.size = fields.get_integer("size", default_size, 0, 128);
    shape.max_size = fields.get_integer("max_size", 32, 1, 32);
    return shape;
}

template <typename T>
BatchProblem<T> make_batch_problem(const CaseContext& context, const BatchShape& shape)
{
    BatchProblem<T> problem;
    problem.shape = shape;
    problem.sizes = item_sizes(shape);
    std::vector<std::int64_t> offsets(problem.sizes.size() + 1, 0);
    for (std::size_t i = 0; i < problem.sizes.size(); ++i) {
        const auto n = static_cast<double>(problem.sizes[i].rows);
        offsets[i + 1] = offsets[i] + static_cast<std::int64_t>(n * n);
        problem.sum_n2 += n * n;
        problem.sum_n3 += n * n * n;
        problem.largest = std::max(problem.largest, static_cast<long long>(n));
    }
    problem.values = cached_values<T>(shape, problem.sizes, offsets);
    const auto& host = context.executor()->get_host();
    auto* host_data = const_cast<T*>(problem.values->data());
    // Copied straight from the cached host values (no temporary host copy of a multi-GB batch).
    problem.a = batch::Dense<T>::create(
        context.executor(), problem.sizes,
        array<T>{context.executor(), array<T>::view(host, problem.values->size(), host_data)});
    problem.num_checked = std::min(shape.num_items, checked_items);
    std::vector<dim2> checked_sizes(problem.sizes.begin(), problem.sizes.begin() + problem.num_checked);
    const auto checked_values = static_cast<size_type>(offsets[problem.num_checked]);
    problem.reference_a = batch::Dense<T>::create(
        context.reference(), std::move(checked_sizes),
        array<T>{context.reference(), array<T>::view(host, checked_values, host_data)});
    return problem;
}

template <typename T>
std::vector<T> random_values(size_type count, std::uint64_t seed)
{
    std::vector<T> values(count);
    const auto size = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < size; ++i) {
        values[i] = static_cast<T>(symmetric_unit(mix(mix(seed) ^ mix(static_cast<std::uint64_t>(i)))));
    }
    return values;
}

template <typename T>
std::vector<T> copy_prefix_to_host(const std::shared_ptr<const Executor>& exec, const T* data,
                                   size_type count)
{
    return array<T>::view(exec, count, const_cast<T*>(data)).copy_to_host();
}

template <typename T>
std::vector<T> copy_first_items_to_host(const batch::Dense<T>& a, long long num_items)
{
    return copy_prefix_to_host(a.get_executor(), a.get_const_values(),
                               static_cast<size_type>(a.get_layout().get_offset(num_items)));
}

template <typename T>
double max_item_relative_error(const batch::ItemLayout& layout, long long num_items,
                               const std::vector<T>& result, const std::vector<T>& expected)
{
    double error = 0.0;
    for (long long i = 0; i < num_items; ++i) {
        double difference = 0.0;
        double scale = 0.0;
        for (auto e = layout.get_offset(i); e < layout.get_offset(i + 1); ++e) {
            difference = std::max<double>(difference, std::abs(result[e] - expected[e]));
            scale = std::max<double>(scale, std::abs(expected[e]));
        }
        const double item_error = difference / scale;
        if (std::isnan(item_error)) {
            return std::numeric_limits<double>::infinity();
        }
        error = std::max(error, item_error);
    }
    return error;
}

template <typename T>
double max_relative_error(const std::vector<T>& result, const std::vector<T>& expected)
{
    double error = 0.0;
    const auto count = std::min(result.size(), expected.size());
    for (std::size_t i = 0; i < count; ++i) {
        if (result[i] == expected[i]) {
            continue;  // also the same infinity
        }
        const double item_error =
            std::abs(static_cast<double>(result[i]) - expected[i]) / std::abs(expected[i]);
        if (std::isnan(item_error)) {
            return std::numeric_limits<double>::infinity();
        }
        error = std::max(error, item_error);
    }
    return error;
}

bool is_cuda_executor(const Executor& exec) { return exec.get_name().rfind("cuda", 0) == 0; }

#define LARCH_BENCHMARK_INSTANTIATE(T)                                                             \
    template BatchProblem<T> make_batch_problem<T>(const CaseContext&, const BatchShape&);        \
    template std::vector<T> random_values<T>(size_type, std::uint64_t);                           \
    template std::vector<T> copy_prefix_to_host<T>(const std::shared_ptr<const Executor>&,        \
                                                   const T*, size_type);                          \
    template std::vector<T> copy_first_items_to_host<T>(const batch::Dense<T>&, long long);       \
    template double max_item_relative_error<T>(const batch::ItemLayout&, long long,               \
                                               const std::vector<T>&, const std::vector<T>&);     \
    template double max_relative_error<T>(const std::vector<T>&, const std::vector<T>&)
LARCH_BENCHMARK_INSTANTIATE(float);
LARCH_BENCHMARK_INSTANTIATE(double);
#undef LARCH_BENCHMARK_INSTANTIATE

}  // namespace benchmark
}  // namespace larch
