// Benchmark operation "batch_invert": batched Gauss-Jordan inversion of random n x n items (uniform
// `size`, or sizes uniform in 1..`max_size` when `size` is 0), beside cuBLAS on CUDA for uniform batches
// (`vendor`: "getri" = getrfBatched + getriBatched, including the copy of A that in-place getrf needs;
// "matinv" = matinvBatched). Flops: 2 n^3 per item. Bytes: every item read once and its inverse written
// once (16 n^2 bytes per item in double). Error: max over the first min(num_items, 1000) items of
// max|X - X_ref| / max|X_ref| against the reference executor; tolerance 1000 n eps (random entries in
// [-1, 1]; the factor covers their condition numbers).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "benchmark/driver/operation.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/gauss_jordan.hpp"
#include "larch/config.hpp"
#if LARCH_HAVE_CUDA
#include "benchmark/driver/batch_cublas.hpp"
#endif

namespace larch {
namespace benchmark {
namespace {

constexpr long long checked_items = 1000;

template <typename V>
CaseResult run_batch_invert(const CaseContext& context)
{
    const auto num_items = context.fields().get_integer("num_items", 1, 1 << 26);
    const auto size = context.fields().get_integer("size", 0, 0, 32);
    const auto max_size = context.fields().get_integer("max_size", 32, 1, 32);
    const auto vendor = context.fields().get_string("vendor", "getri");
    std::mt19937 engine{42};
    std::uniform_int_distribution<int> size_distribution{1, static_cast<int>(max_size)};
    std::vector<dim2> sizes(num_items);
    for (auto& s : sizes) {
        s = dim2(static_cast<size_type>(size > 0 ? size : size_distribution(engine)));
    }
    size_type num_values = 0;
    double flops = 0.0;
    for (const auto& s : sizes) {
        num_values += s.rows * s.cols;
        flops += 2.0 * std::pow(static_cast<double>(s.rows), 3);
    }
    std::uniform_real_distribution<V> value_distribution{V{-1}, V{1}};
    std::vector<V> values(num_values);
    for (auto& v : values) {
        v = value_distribution(engine);
    }
    const auto exec = context.executor();
    auto a = batch::Dense<V>::create(exec, sizes, values);
    auto inverse = batch::Dense<V>::create_with_layout_of(exec, *a);

    const auto num_checked = std::min(num_items, checked_items);
    std::vector<dim2> checked_sizes(sizes.begin(), sizes.begin() + num_checked);
    const auto checked_values = static_cast<size_type>(a->get_layout().get_offset(num_checked));
    auto reference_a = batch::Dense<V>::create(
        context.reference(), checked_sizes,
        std::vector<V>(values.begin(), values.begin() + checked_values));
    auto reference_inverse = batch::Dense<V>::create_with_layout_of(context.reference(), *reference_a);
    batch::invert(*reference_a, *reference_inverse);
    const auto expected = reference_inverse->copy_to_host();
    const auto error_of = [&](const std::vector<V>& result) {
        double error = 0.0;
        for (long long i = 0; i < num_checked; ++i) {
            const auto begin = reference_a->get_layout().get_offset(i);
            const auto end = reference_a->get_layout().get_offset(i + 1);
            double difference = 0.0;
            double scale = 0.0;
            for (auto e = begin; e < end; ++e) {
                difference = std::max<double>(difference, std::abs(result[e] - expected[e]));
                scale = std::max<double>(scale, std::abs(expected[e]));
            }
            const double item_error = difference / scale;
            error = std::isnan(item_error) ? std::numeric_limits<double>::infinity()
                                           : std::max(error, item_error);
        }
        return error;
    };

    CaseResult result;
    result.label = (size > 0 ? "n=" + std::to_string(size) : "n=1.." + std::to_string(max_size)) +
                   " items=" + std::to_string(num_items);
    result.details = json{{"num_items", num_items}, {"size", size}, {"max_size", max_size},
                          {"vendor_routine", vendor}};
    result.flops = flops;
    result.bytes = 2.0 * sizeof(V) * static_cast<double>(num_values);
    const auto largest = static_cast<double>(a->get_max_item_size().rows);
    result.tolerance = 1000.0 * largest * std::numeric_limits<V>::epsilon();
    result.ours = Measurement{"larch", context.time([&] { batch::invert(*a, *inverse); }), 0.0};
    result.ours.error = error_of(inverse->copy_to_host());
#if LARCH_HAVE_CUDA
    if (size > 0 && exec->get_name().rfind("cuda", 0) == 0) {
        // cuBLAS reads the row-major items as column-major A^T and writes (A^T)^-1 column-major,
        // which is A^-1 row-major: its result compares directly.
        CublasBatch<V> cublas{a->get_const_values(), static_cast<int>(size),
                              static_cast<int>(num_items)};
        const auto run = [&] {
            if (vendor == "matinv") {
                cublas.matinv(inverse->get_values());
            } else {
                cublas.getrf_getri(inverse->get_values());
            }
        };
        Measurement measurement{"cuBLAS " + vendor, context.time(run), 0.0};
        measurement.error = error_of(inverse->copy_to_host());
        result.vendor = measurement;
    }
#endif
    return result;
}

void validate_batch_invert(const Fields& fields)
{
    fields.get_integer("num_items", 1, 1 << 26);
    fields.get_integer("size", 0, 0, 32);
    fields.get_integer("max_size", 32, 1, 32);
    const auto vendor = fields.get_string("vendor", "getri");
    if (vendor != "getri" && vendor != "matinv") {
        fields.fail("vendor", "must be \"getri\" or \"matinv\", not \"" + vendor + "\"");
    }
}

const bool registered = register_operation(
    {"batch_invert", "batched Gauss-Jordan inversion (beside cuBLAS getrf+getri or matinv)",
     {"num_items", "size", "max_size", "vendor"},
     {"num_items", "size", "vendor"},
     validate_batch_invert,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(), [&](auto value) {
             return run_batch_invert<decltype(value)>(context);
         });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
