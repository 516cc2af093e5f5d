// Benchmark operation "batch_gauss_huard": batched Gauss-Huard factorization with implicit column
// pivoting and the solve with one right-hand side (Anzt et al. 2017, "Variable-size batched Gauss-Huard for
// block-Jacobi preconditioning"), in either storage (`storage`: "plain" =
// BGH, "transposed" = BGHT), beside cuBLAS getrfBatched / getrsBatched on CUDA for uniform batches.
// Items: random well-conditioned n x n (benchmark/driver/batch_problems.hpp), uniform `size` or sizes
// uniform in 1..`max_size` when `size` is 0 (larch only); b uniform in [-1, 1].
//
// `phase` picks what is timed (one application):
// - "factorize": the factorization of A into separate factors, A kept (larch reads A and writes the
//   factors in one pass, as GaussHuard::generate does; cuBLAS, in place only: a device copy of A into
//   its work batch, then getrfBatched). Flops 2n^3/3 per item; bytes: A read, factors and
//   pivots written (s (2 n^2) + 4 n per item, s = sizeof value).
// - "solve": x = A^-1 b from the factors; larch out of place (b read, x written), cuBLAS getrsBatched in
//   place on a scratch vector that each repetition solves again (its values only shrink, the items'
//   ||A^-1|| being <= 1/n; the checked solve starts from b). Flops 2n^2 per item; bytes: factors and
//   pivots read, b read, x written (s (n^2 + 2 n) + 4 n).
// - "factorize_solve": both, one after the other; flops and bytes the sums of the two.
// larch is timed through its kernels on buffers allocated once, as cuBLAS is; the public call
// (GaussHuard::generate, which also allocates the factors, pivots and info, then solve) is timed as well
// and reported as details.api_time_s (median).
//
// Error: the normwise backward error of the solution, max over the first min(num_items, 1000) items of
// ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf), computed in long double on the host; after
// "factorize" a solve (not timed) gives x. Tolerance 100 n eps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "benchmark/driver/batch_problems.hpp"
#include "benchmark/driver/operation.hpp"
#include "benchmark/driver/statistics.hpp"
#include "core/batch/batch_dense_kernels.hpp"
#include "larch/batch/dense.hpp"
#include "larch/batch/gauss_huard.hpp"
#include "larch/batch/vector.hpp"
#include "larch/config.hpp"
#if LARCH_HAVE_CUDA
#include "benchmark/driver/batch_cublas.hpp"
#endif

namespace larch {
namespace benchmark {
namespace {

/// max over the first `num_items` items of ||A x - b|| / (||A|| ||x|| + ||b||) (infinity norms).
template <typename V>
double backward_error(const BatchProblem<V>& problem, long long num_items, const std::vector<V>& b,
                      const std::vector<V>& x)
{
    const auto& layout = problem.a->get_layout();
    const auto& a = *problem.values;
    double error = 0.0;
    for (long long i = 0; i < num_items; ++i) {
        const auto n = static_cast<std::int64_t>(problem.sizes[i].rows);
        const auto* item = a.data() + layout.get_offset(i);
        const auto row0 = layout.get_row_offset(i);
        long double residual = 0.0L;
        long double a_norm = 0.0L;
        long double x_norm = 0.0L;
        long double b_norm = 0.0L;
        for (std::int64_t r = 0; r < n; ++r) {
            long double sum = -static_cast<long double>(b[row0 + r]);
            long double row_sum = 0.0L;
            for (std::int64_t c = 0; c < n; ++c) {
                sum += static_cast<long double>(item[r * n + c]) * x[row0 + c];
                row_sum += std::abs(static_cast<long double>(item[r * n + c]));
            }
            residual = std::max(residual, std::abs(sum));
            a_norm = std::max(a_norm, row_sum);
            x_norm = std::max(x_norm, std::abs(static_cast<long double>(x[row0 + r])));
            b_norm = std::max(b_norm, std::abs(static_cast<long double>(b[row0 + r])));
        }
        const auto item_error = static_cast<double>(residual / (a_norm * x_norm + b_norm));
        if (std::isnan(item_error)) {
            return std::numeric_limits<double>::infinity();
        }
        error = std::max(error, item_error);
    }
    return error;
}

template <typename V>
CaseResult run_batch_gauss_huard(const CaseContext& context)
{
    const auto shape = read_batch_shape(context.fields(), 32);
    const auto storage_name = context.fields().get_string("storage", "plain");
    const auto phase = context.fields().get_string("phase", "factorize");
    const auto storage = storage_name == "transposed" ? batch::GaussHuardStorage::transposed
                                                      : batch::GaussHuardStorage::plain;
    const bool transposed = storage == batch::GaussHuardStorage::transposed;
    const bool factorize = phase != "solve";
    const bool solve = phase != "factorize";
    const auto exec = context.executor();
    auto problem = make_batch_problem<V>(context, shape);
    const auto& a = *problem.a;

    std::vector<size_type> item_rows(problem.sizes.size());
    std::transform(problem.sizes.begin(), problem.sizes.end(), item_rows.begin(),
                   [](dim2 s) { return s.rows; });
    const auto num_rows = a.get_layout().get_num_rows();
    const auto b_values = random_values<V>(num_rows, 7);
    auto b = batch::Vector<V>::create(exec, item_rows, 1, b_values);
    auto x = batch::Vector<V>::create_with_layout_of(exec, *b);
    const auto checked_rows =
        static_cast<size_type>(a.get_layout().get_row_offset(problem.num_checked));
    const auto error_of = [&](const V* solution) {
        return backward_error(problem, problem.num_checked, b_values,
                              copy_prefix_to_host(exec, solution, checked_rows));
    };

    auto factors = batch::Dense<V>::create_with_layout_of(exec, a);
    array<std::int32_t> pivots{exec, num_rows};
    array<std::int32_t> info{exec, a.get_num_items()};
    const auto factorize_kernel = [&] {
        LARCH_RUN_KERNEL(exec, batch_dense::gauss_huard_factorize, a, *factors, pivots.get_data(),
                         info.get_data(), transposed);
    };
    const auto solve_kernel = [&] {
        LARCH_RUN_KERNEL(exec, batch_dense::gauss_huard_solve, *factors, pivots.get_const_data(),
                         transposed, *b, *x);
    };

    CaseResult result;
    result.label = std::string{transposed ? "BGHT " : "BGH "} + phase + " " + shape.label();
    result.details = shape.details();
    result.details["storage"] = storage_name;
    result.details["phase"] = phase;
    const double s = sizeof(V);
    const double sum_n = static_cast<double>(num_rows);
    result.flops = (factorize ? 2.0 / 3.0 * problem.sum_n3 : 0.0) + (solve ? 2.0 * problem.sum_n2 : 0.0);
    result.bytes = (factorize ? 2.0 * s * problem.sum_n2 + 4.0 * sum_n : 0.0) +
                   (solve ? s * (problem.sum_n2 + 2.0 * sum_n) + 4.0 * sum_n : 0.0);
    result.tolerance =
        100.0 * static_cast<double>(problem.largest) * std::numeric_limits<V>::epsilon();

    if (!factorize) {
        factorize_kernel();
    }
    result.ours = Measurement{"larch", context.time([&] {
                                  if (factorize) {
                                      factorize_kernel();
                                  }
                                  if (solve) {
                                      solve_kernel();
                                  }
                              }),
                              0.0};
    if (!solve) {
        solve_kernel();
    }
    result.ours.error = error_of(x->get_const_values());
    const auto statuses = info.copy_to_host();
    if (std::any_of(statuses.begin(), statuses.end(), [](std::int32_t status) { return status != 0; })) {
        result.ours.error = std::numeric_limits<double>::infinity();
    }

    // The public path, for the record: generate allocates the factors, pivots and info each time.
    const auto factory = batch::GaussHuard<V>::build().with_storage(storage).on(exec);
    std::unique_ptr<batch::GaussHuard<V>> decomposition = factory->generate(a);
    const auto api_seconds = context.time([&] {
        if (factorize) {
            decomposition = factory->generate(a);
        }
        if (solve) {
            decomposition->solve(*b, *x);
        }
    });
    result.details["api_time_s"] = summarize(api_seconds).median;
    decomposition.reset();

#if LARCH_HAVE_CUDA
    if (shape.is_uniform() && is_cuda_executor(*exec)) {
        // Free larch's factors first: cuBLAS needs a work batch of the same size.
        factors.reset();
        CublasBatch<V> cublas{a.get_const_values(), static_cast<int>(shape.size),
                              static_cast<int>(shape.num_items)};
        if (!factorize) {
            cublas.getrf();
        }
        const auto reset_x_to_b = [&] {
            exec->copy_from(*exec, num_rows * sizeof(V), b->get_const_values(), x->get_values());
        };
        reset_x_to_b();
        Measurement measurement{
            std::string{"cuBLAS "} + (factorize ? "getrf" : "") + (factorize && solve ? "+" : "") +
                (solve ? "getrs" : ""),
            context.time([&] {
                if (factorize) {
                    cublas.getrf();
                }
                if (solve) {
                    cublas.getrs(x->get_values());
                }
            }),
            0.0};
        reset_x_to_b();
        cublas.getrs(x->get_values());
        measurement.error = error_of(x->get_const_values());
        result.vendor = measurement;
    }
#endif
    return result;
}

void validate_batch_gauss_huard(const Fields& fields)
{
    read_batch_shape(fields, 32);
    const auto storage = fields.get_string("storage", "plain");
    if (storage != "plain" && storage != "transposed") {
        fields.fail("storage", "must be \"plain\" (BGH) or \"transposed\" (BGHT), not \"" + storage +
                                   "\"");
    }
    const auto phase = fields.get_string("phase", "factorize");
    if (phase != "factorize" && phase != "solve" && phase != "factorize_solve") {
        fields.fail("phase", "must be \"factorize\", \"solve\" or \"factorize_solve\", not \"" +
                                 phase + "\"");
    }
}

const bool registered = register_operation(
    {"batch_gauss_huard",
     "batched Gauss-Huard factorization and solve, BGH or BGHT (beside cuBLAS getrf / getrs)",
     with_batch_shape_fields({"storage", "phase"}),
     with_batch_shape_list_fields({"storage", "phase"}),
     validate_batch_gauss_huard,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(), [&](auto value) {
             return run_batch_gauss_huard<decltype(value)>(context);
         });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
