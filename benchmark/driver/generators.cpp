// The benchmark's names for larch's generators (include/larch/generate/problems.hpp) and their parameters.
#include "benchmark/driver/generators.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <utility>

#include "larch/generate/problems.hpp"

namespace larch {
namespace benchmark {
namespace {

struct Parameter {
    std::string name;
    bool is_integer;
    bool required;
    double fallback;
    long long minimum = 1;  // integers only: sizes are positive, seeds may be 0
};

struct GeneratorSpec {
    std::string name;
    std::vector<Parameter> parameters;
};

constexpr long long max_size = 1LL << 31;

const std::vector<GeneratorSpec>& generator_specs()
{
    static const std::vector<GeneratorSpec> specs{
        {"laplace2d", {{"n", true, true, 0}}},
        {"laplace3d", {{"n", true, true, 0}}},
        {"convection_diffusion2d", {{"n", true, true, 0}, {"convection", false, false, 1.0}}},
        {"block_fem",
         {{"n", true, true, 0},
          {"dimension", true, false, 3},
          {"block_size", true, true, 0},
          {"seed", true, false, 42, 0}}},
        {"arrow", {{"n", true, true, 0}}},
        {"tridiagonal", {{"n", true, true, 0}}},
        {"random_block_diagonal",
         {{"n", true, true, 0},
          {"min_block", true, true, 0},
          {"max_block", true, true, 0},
          {"seed", true, false, 42, 0}}}};
    return specs;
}

const GeneratorSpec& find_generator(const Fields& source)
{
    const auto name = source.get_string("generator");
    const auto& specs = generator_specs();
    const auto found = std::find_if(specs.begin(), specs.end(),
                                    [&](const GeneratorSpec& spec) { return spec.name == name; });
    if (found == specs.end()) {
        std::vector<std::string> names;
        for (const auto& spec : specs) {
            names.push_back(spec.name);
        }
        source.fail("generator", "unknown generator '" + name + "' (known: " + join(names) + ")");
    }
    return *found;
}

/// The value of parameter `key` of the source's generator (its default where the case gives none).
double parameter(const Fields& source, const std::string& key)
{
    const auto& spec = find_generator(source);
    const auto& p = *std::find_if(spec.parameters.begin(), spec.parameters.end(),
                                  [&](const Parameter& candidate) { return candidate.name == key; });
    if (!p.is_integer) {
        return p.required ? source.get_number(key) : source.get_number(key, p.fallback);
    }
    return static_cast<double>(
        p.required ? source.get_integer(key, p.minimum, max_size)
                   : source.get_integer(key, static_cast<long long>(p.fallback), p.minimum, max_size));
}

size_type integer(const Fields& source, const std::string& key)
{
    return static_cast<size_type>(parameter(source, key));
}

/// Rows and nonzeros of the generated matrix (the formulas of include/larch/generate/problems.hpp), in double so
/// that n^3 of any accepted n is exact enough to compare with the index type's range. random_block_diagonal's
/// nonzeros depend on its random blocks; every block but the last has at least min_block rows, so it holds at
/// least (n - min_block) min_block of them (and n): a count above that is rejected here, one in between at run time.
std::pair<double, double> rows_and_nonzeros(const std::string& name, const Fields& source)
{
    const double n = parameter(source, "n");
    if (name == "laplace2d" || name == "convection_diffusion2d") {
        return {n * n, 5 * n * n - 4 * n};
    }
    if (name == "laplace3d") {
        return {n * n * n, 7 * n * n * n - 6 * n * n};
    }
    if (name == "block_fem") {
        const double k = parameter(source, "block_size");
        return parameter(source, "dimension") == 2 ? std::make_pair(n * n * k, (5 * n * n - 4 * n) * k * k)
                                                   : std::make_pair(n * n * n * k, (7 * n * n * n - 6 * n * n) * k * k);
    }
    if (name == "arrow" || name == "tridiagonal") {
        return {n, 3 * n - 2};
    }
    const double min_block = parameter(source, "min_block");
    return {n, std::max(n, (n - min_block) * min_block)};
}

}  // namespace

void validate_generator(const Fields& source)
{
    const auto& spec = find_generator(source);
    std::vector<std::string> known{"generator"};
    for (const auto& p : spec.parameters) {
        known.push_back(p.name);
        parameter(source, p.name);
    }
    source.check_known(known);
    if (spec.name == "block_fem") {
        const auto dimension = integer(source, "dimension");
        if (dimension != 2 && dimension != 3) {
            source.fail("dimension", "must be 2 or 3, not " + std::to_string(dimension));
        }
    }
    // The benchmark's matrices have 32-bit indices: a CSR row pointer must address every nonzero.
    const auto [rows, nonzeros] = rows_and_nonzeros(spec.name, source);
    const double max_index = std::numeric_limits<std::int32_t>::max();
    if (rows > max_index || nonzeros > max_index) {
        char counts[160];  // up to 47 digits each: n^3 block_size^2 of the largest accepted values
        std::snprintf(counts, sizeof counts, "%.0f rows and %.0f nonzeros", rows, nonzeros);
        throw ConfigError(source.get_path() + ": " + generator_name(source) + " has " + counts +
                          ", more than the benchmark's 32-bit indices address (" +
                          std::to_string(std::numeric_limits<std::int32_t>::max()) + "); make n smaller");
    }
    if (spec.name == "random_block_diagonal") {
        const auto min_block = integer(source, "min_block");
        const auto max_block = integer(source, "max_block");
        if (max_block < min_block) {
            source.fail("max_block", "must be at least min_block (" + std::to_string(min_block) + "), not " +
                                         std::to_string(max_block));
        }
    }
}

std::string generator_name(const Fields& source)
{
    const auto& spec = find_generator(source);
    std::string arguments;
    for (const auto& p : spec.parameters) {
        if (source.has(p.name)) {
            arguments += (arguments.empty() ? "" : ",") + p.name + "=" + source.get_json().at(p.name).dump();
        }
    }
    return spec.name + "(" + arguments + ")";
}

template <typename V, typename I>
matrix_data<V, I> generate_matrix(const Fields& source)
{
    const auto& name = find_generator(source).name;
    const auto n = integer(source, "n");
    if (name == "laplace2d") {
        return generate::laplace_2d<V, I>(n);
    }
    if (name == "laplace3d") {
        return generate::laplace_3d<V, I>(n);
    }
    if (name == "convection_diffusion2d") {
        return generate::convection_diffusion_2d<V, I>(n, parameter(source, "convection"));
    }
    if (name == "block_fem") {
        return generate::block_fem<V, I>(n, integer(source, "dimension"),
                                         integer(source, "block_size"), integer(source, "seed"));
    }
    if (name == "arrow") {
        return generate::arrow<V, I>(n);
    }
    if (name == "tridiagonal") {
        return generate::tridiagonal<V, I>(n);
    }
    return generate::random_block_diagonal<V, I>(n, integer(source, "min_block"),
                                                 integer(source, "max_block"),
                                                 integer(source, "seed"));
}

template matrix_data<float, std::int32_t> generate_matrix(const Fields&);
template matrix_data<double, std::int32_t> generate_matrix(const Fields&);

}  // namespace benchmark
}  // namespace larch
