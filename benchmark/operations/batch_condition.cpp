// Benchmark operation "batch_condition": cond_inf of every item by batch::CondEstimator (Anzt et al. 2018,
// "Variable-size batched condition number calculation on GPUs"), with
// `algorithm` "fused" (one kernel, the inverse not written at all), "fused_inverse" (one kernel that also
// writes the inverse) or "composed" (norm, Gauss-Jordan inversion, norm of the inverse, product: four
// kernels). Items: random well-conditioned n x n (benchmark/driver/batch_problems.hpp), uniform `size`
// or sizes uniform in 1..`max_size` when `size` is 0.
//
// Vendor baseline on CUDA, uniform batches only, composed from vendor inversion (no vendor library
// computes batched condition numbers): cuBLAS getrfBatched + getriBatched (with the copy of A that
// in-place getrf needs), larch's infinity-norm kernel on A and on the inverse (cuBLAS has no batched
// matrix norm), and the product by cublas<t>dgmm. It is the same for every `algorithm`.
//
// larch is timed through its kernels on outputs allocated once, as cuBLAS is; the public call
// (CondEstimator::generate, which also allocates cond, info and, with keep_inverse or composed, the
// inverse) is timed as well and reported as details.api_time_s (median).
// Flops: 2 n^3 per item (the inversion; the norms' 4 n^2 are not counted). Bytes, per item, s = sizeof
// value: "fused" s n^2 read + s + 4 written (cond, info); "fused_inverse" also s n^2 written; "composed"
// 4 s n^2 (A read twice, inverse written and read) + 5 s + 8 (the per-item arrays written and read). Error: max relative error
// of cond against the reference executor on the first min(num_items, 1000) items, and with an inverse
// also its error as in batch_invert; tolerance 100 n eps (the items' condition numbers are at most 3).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "benchmark/driver/batch_problems.hpp"
#include "benchmark/driver/operation.hpp"
#include "benchmark/driver/statistics.hpp"
#include "core/batch/batch_dense_kernels.hpp"
#include "larch/batch/cond_estimator.hpp"
#include "larch/batch/dense.hpp"
#include "larch/config.hpp"
#if LARCH_HAVE_CUDA
#include "benchmark/driver/batch_cublas.hpp"
#endif

namespace larch {
namespace benchmark {
namespace {

template <typename V>
CaseResult run_batch_condition(const CaseContext& context)
{
    const auto shape = read_batch_shape(context.fields(), 32);
    const auto algorithm = context.fields().get_string("algorithm", "fused");
    const bool writes_inverse = algorithm != "fused";
    const auto exec = context.executor();
    auto problem = make_batch_problem<V>(context, shape);
    const auto& a = *problem.a;
    const auto num_items = a.get_num_items();

    const auto reference = batch::CondEstimator<V>::build()
                               .with_keep_inverse(true)
                               .on(context.reference())
                               ->generate(*problem.reference_a);
    const auto expected_cond = reference->get_condition_numbers().copy_to_host();
    const auto expected_inverse = reference->get_inverse()->copy_to_host();
    const auto error_of = [&](const array<V>& cond, const batch::Dense<V>* inverse) {
        auto error = max_relative_error(
            copy_prefix_to_host(exec, cond.get_const_data(), problem.num_checked), expected_cond);
        if (inverse) {
            error = std::max(error, max_item_relative_error(
                                        a.get_layout(), problem.num_checked,
                                        copy_first_items_to_host(*inverse, problem.num_checked),
                                        expected_inverse));
        }
        return error;
    };

    std::unique_ptr<batch::Dense<V>> inverse;
    if (writes_inverse) {
        inverse = batch::Dense<V>::create_with_layout_of(exec, a);
    }
    array<V> cond{exec, num_items};
    array<std::int32_t> info{exec, num_items};
    array<V> norms{exec, num_items};
    array<V> inverse_norms{exec, num_items};
    const auto run_kernels = [&] {
        if (algorithm == "composed") {
            // The sequence of CondEstimator's composed variant (core/batch/cond_estimator.cpp).
            LARCH_RUN_KERNEL(exec, batch_dense::compute_infinity_norms, a, norms.get_data());
            LARCH_RUN_KERNEL(exec, batch_dense::invert, a, *inverse, info.get_data());
            LARCH_RUN_KERNEL(exec, batch_dense::compute_infinity_norms, *inverse,
                             inverse_norms.get_data());
            LARCH_RUN_KERNEL(exec, batch_dense::combine_condition_numbers, num_items,
                             norms.get_const_data(), inverse_norms.get_const_data(),
                             info.get_const_data(), cond.get_data());
        } else {
            LARCH_RUN_KERNEL(exec, batch_dense::compute_condition_numbers, a, inverse.get(),
                             cond.get_data(), info.get_data());
        }
    };

    CaseResult result;
    result.label = algorithm + " " + shape.label();
    result.details = shape.details();
    result.details["algorithm"] = algorithm;
    const double s = sizeof(V);
    double value_bytes = s * problem.sum_n2;  // A read
    double item_bytes = s + 4.0;              // cond and info written
    if (algorithm == "fused_inverse") {
        value_bytes *= 2.0;
    } else if (algorithm == "composed") {
        value_bytes *= 4.0;
        item_bytes += 4.0 * s + 4.0;  // both norm arrays written and read, info read
    }
    result.flops = 2.0 * problem.sum_n3;
    result.bytes = value_bytes + item_bytes * static_cast<double>(num_items);
    result.tolerance =
        100.0 * static_cast<double>(problem.largest) * std::numeric_limits<V>::epsilon();
    result.ours = Measurement{"larch", context.time(run_kernels), 0.0};
    result.ours.error = error_of(cond, inverse.get());

    // The public path, for the record.
    {
        const auto factory = batch::CondEstimator<V>::build()
                                 .with_keep_inverse(algorithm == "fused_inverse")
                                 .with_algorithm(algorithm == "composed" ? batch::CondAlgorithm::composed
                                                                         : batch::CondAlgorithm::fused)
                                 .on(exec);
        std::unique_ptr<batch::CondEstimator<V>> estimator;
        const auto api_seconds = context.time([&] {
            estimator.reset();  // at most one estimator (and its inverse) alive
            estimator = factory->generate(a);
        });
        result.details["api_time_s"] = summarize(api_seconds).median;
    }

#if LARCH_HAVE_CUDA
    if (shape.is_uniform() && is_cuda_executor(*exec)) {
        if (!inverse) {
            inverse = batch::Dense<V>::create_with_layout_of(exec, a);
        }
        CublasBatch<V> cublas{a.get_const_values(), static_cast<int>(shape.size),
                              static_cast<int>(shape.num_items)};
        const auto run = [&] {
            cublas.getrf_getri(inverse->get_values());
            LARCH_RUN_KERNEL(exec, batch_dense::compute_infinity_norms, a, norms.get_data());
            LARCH_RUN_KERNEL(exec, batch_dense::compute_infinity_norms, *inverse,
                             inverse_norms.get_data());
            cublas.multiply_elementwise(norms.get_const_data(), inverse_norms.get_const_data(),
                                        cond.get_data(), static_cast<int>(num_items));
        };
        Measurement measurement{"cuBLAS getrf+getri, 2 larch norms, dgmm", context.time(run), 0.0};
        measurement.error = error_of(cond, inverse.get());
        result.vendor = measurement;
    }
#endif
    return result;
}

void validate_batch_condition(const Fields& fields)
{
    read_batch_shape(fields, 32);
    const auto algorithm = fields.get_string("algorithm", "fused");
    if (algorithm != "fused" && algorithm != "fused_inverse" && algorithm != "composed") {
        fields.fail("algorithm", "must be \"fused\", \"fused_inverse\" or \"composed\", not \"" +
                                     algorithm + "\"");
    }
}

const bool registered = register_operation(
    {"batch_condition",
     "batched infinity-norm condition numbers, fused or composed (beside cuBLAS getrf+getri and norms)",
     with_batch_shape_fields({"algorithm"}),
     with_batch_shape_list_fields({"algorithm"}),
     validate_batch_condition,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(), [&](auto value) {
             return run_batch_condition<decltype(value)>(context);
         });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
