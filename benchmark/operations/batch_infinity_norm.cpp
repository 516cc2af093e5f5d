// Benchmark operation "batch_infinity_norm": ||A_i||_inf of every item (memory bound), judged by
// copy_bandwidth_fraction against the executor's measured copy bandwidth; no vendor library has a
// batched matrix norm, so there is no vendor number. Items: the random n x n items of
// benchmark/driver/batch_problems.hpp, uniform `size` or sizes uniform in 1..`max_size` when `size` is 0.
// larch is timed through its kernel on an output allocated once; the public compute_infinity_norms
// (which allocates the output each call) is timed as well and reported as details.api_time_s (median).
// Flops: n^2 per item (one addition per entry). Bytes: every value read once, one norm written
// (s n^2 + s per item, s = sizeof value). Error: max relative error against the reference executor on
// the first min(num_items, 1000) items; tolerance 2 n eps (a sum of n non-negative terms in any order).
#include <limits>
#include <vector>

#include "benchmark/driver/batch_problems.hpp"
#include "benchmark/driver/operation.hpp"
#include "benchmark/driver/statistics.hpp"
#include "core/batch/batch_dense_kernels.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/norms.hpp"

namespace larch {
namespace benchmark {
namespace {

template <typename V>
CaseResult run_batch_infinity_norm(const CaseContext& context)
{
    const auto shape = read_batch_shape(context.fields(), 32);
    const auto exec = context.executor();
    auto problem = make_batch_problem<V>(context, shape);
    const auto& a = *problem.a;
    const auto expected = batch::compute_infinity_norms(*problem.reference_a).copy_to_host();
    array<V> norms{exec, a.get_num_items()};

    CaseResult result;
    result.label = shape.label();
    result.details = shape.details();
    const double s = sizeof(V);
    result.flops = problem.sum_n2;
    result.bytes = s * (problem.sum_n2 + static_cast<double>(a.get_num_items()));
    result.tolerance =
        2.0 * static_cast<double>(problem.largest) * std::numeric_limits<V>::epsilon();
    result.ours = Measurement{"larch", context.time([&] {
                                  LARCH_RUN_KERNEL(exec, batch_dense::compute_infinity_norms, a,
                                                   norms.get_data());
                              }),
                              0.0};
    result.ours.error = max_relative_error(
        copy_prefix_to_host(exec, norms.get_const_data(), problem.num_checked), expected);
    const auto api_seconds = context.time([&] { batch::compute_infinity_norms(a); });
    result.details["api_time_s"] = summarize(api_seconds).median;
    return result;
}

void validate_batch_infinity_norm(const Fields& fields) { read_batch_shape(fields, 32); }

const bool registered = register_operation(
    {"batch_infinity_norm", "batched infinity norms of dense items (against the copy bandwidth)",
     with_batch_shape_fields({}), with_batch_shape_list_fields({}), validate_batch_infinity_norm,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(), [&](auto value) {
             return run_batch_infinity_norm<decltype(value)>(context);
         });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
