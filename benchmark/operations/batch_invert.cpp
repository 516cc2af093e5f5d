// Benchmark operation "batch_invert": batched Gauss-Jordan inversion of random well-conditioned n x n
// items (uniform `size`, or sizes uniform in 1..`max_size` when `size` is 0; items as described in
// benchmark/driver/batch_problems.hpp), beside cuBLAS on CUDA (`vendor`: "getri" = getrfBatched +
// getriBatched, including the copy of A that in-place getrf needs; "matinv" = matinvBatched).
// Variable batches: cuBLAS is called once per distinct size on the items of that size, which were
// gathered into one uniform buffer per size when the case was set up (on the host; the grouping and
// gather are NOT in the measured time, nor is the scatter of the results back for the check): the
// vendor time is the sum of its per-size calls, a lower bound on what a caller holding the variable
// batch would pay.
// Flops: 2 n^3 per item. Bytes: every item read once and its inverse written once (16 n^2 bytes per item
// in double), counting only the real items' values, for larch and cuBLAS alike. Error: max over the first
// min(num_items, 1000) items of max|X - X_ref| / max|X_ref| against the reference executor; tolerance
// 1000 n eps (the items' condition numbers are at most 3).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "benchmark/driver/batch_problems.hpp"
#include "benchmark/driver/statistics.hpp"
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

#if LARCH_HAVE_CUDA
/// The cuBLAS baseline on a variable batch: one uniform buffer per distinct size (gathered at setup),
/// one CublasBatch per size.
template <typename V>
class GroupedCublasInverse {
public:
    GroupedCublasInverse(const std::shared_ptr<const Executor>& exec, const BatchProblem<V>& problem)
        : layout_{&problem.a->get_layout()}
    {
        std::map<int, std::vector<long long>> items_of_size;
        for (std::size_t i = 0; i < problem.sizes.size(); ++i) {
            items_of_size[static_cast<int>(problem.sizes[i].rows)].push_back(static_cast<long long>(i));
        }
        const auto& values = *problem.values;
        for (auto& entry : items_of_size) {
            auto group = std::make_unique<Group>();
            group->n = entry.first;
            group->items = std::move(entry.second);
            const auto item_values = static_cast<std::size_t>(group->n) * group->n;
            std::vector<V> gathered(group->items.size() * item_values);
            for (std::size_t k = 0; k < group->items.size(); ++k) {
                const auto begin = values.begin() + layout_->get_offset(group->items[k]);
                std::copy(begin, begin + item_values, gathered.begin() + k * item_values);
            }
            group->a = array<V>{exec, array<V>::view(exec->get_host(), gathered.size(),
                                                     gathered.data())};
            group->inverse = array<V>{exec, gathered.size()};
            group->cublas = std::make_unique<CublasBatch<V>>(
                group->a.get_const_data(), group->n, static_cast<int>(group->items.size()));
            groups_.push_back(std::move(group));
        }
    }

    void run(const std::string& vendor)
    {
        for (auto& group : groups_) {
            if (vendor == "matinv") {
                group->cublas->matinv(group->inverse.get_data());
            } else {
                group->cublas->getrf_getri(group->inverse.get_data());
            }
        }
    }

    /// The inverses of the first `num_items` items, in batch order (host).
    std::vector<V> first_inverses(long long num_items) const
    {
        std::vector<V> result(static_cast<std::size_t>(layout_->get_offset(num_items)));
        for (const auto& group : groups_) {
            const auto count = static_cast<std::size_t>(
                std::lower_bound(group->items.begin(), group->items.end(), num_items) -
                group->items.begin());
            const auto item_values = static_cast<std::size_t>(group->n) * group->n;
            const auto inverses = copy_prefix_to_host(group->inverse.get_executor(),
                                                      group->inverse.get_const_data(),
                                                      count * item_values);
            for (std::size_t k = 0; k < count; ++k) {
                std::copy(inverses.begin() + k * item_values, inverses.begin() + (k + 1) * item_values,
                          result.begin() + layout_->get_offset(group->items[k]));
            }
        }
        return result;
    }

    std::size_t num_groups() const { return groups_.size(); }

private:
    struct Group {
        int n = 0;
        std::vector<long long> items;  // batch indices of the items of this size, increasing
        array<V> a;
        array<V> inverse;
        std::unique_ptr<CublasBatch<V>> cublas;
    };
    const batch::ItemLayout* layout_;
    std::vector<std::unique_ptr<Group>> groups_;
};
#endif

template <typename V>
CaseResult run_batch_invert(const CaseContext& context)
{
    const auto shape = read_batch_shape(context.fields());
    const auto vendor = context.fields().get_string("vendor", "getri");
    const auto exec = context.executor();
    auto problem = make_batch_problem<V>(context, shape);
    auto& a = *problem.a;
    auto inverse = batch::Dense<V>::create_with_layout_of(exec, a);

    auto reference_inverse =
        batch::Dense<V>::create_with_layout_of(context.reference(), *problem.reference_a);
    batch::invert(*problem.reference_a, *reference_inverse);
    const auto expected = reference_inverse->copy_to_host();
    const auto error_of = [&](const std::vector<V>& result) {
        return max_item_relative_error(a.get_layout(), problem.num_checked, result, expected);
    };

    CaseResult result;
    result.label = shape.label();
    result.details = shape.details();
    result.details["vendor_routine"] = vendor;
    result.flops = 2.0 * problem.sum_n3;
    result.bytes = 2.0 * sizeof(V) * problem.sum_n2;
    result.tolerance =
        1000.0 * static_cast<double>(problem.largest) * std::numeric_limits<V>::epsilon();
    // The info array is allocated once and reused, as a caller inverting repeatedly would; the time
    // of the overload that returns a fresh info array (one allocation and one synchronizing free per
    // call) is reported beside it in the details.
    array<std::int32_t> info{exec};
    result.ours = Measurement{"larch", context.time([&] { batch::invert(a, *inverse, info); }), 0.0};
    result.ours.error = error_of(copy_first_items_to_host(*inverse, problem.num_checked));
    result.details["fresh_info_seconds"] =
        summarize(context.time([&] { batch::invert(a, *inverse); })).median;
#if LARCH_HAVE_CUDA
    if (is_cuda_executor(*exec)) {
        // cuBLAS reads the row-major items as column-major A^T and writes (A^T)^-1 column-major,
        // which is A^-1 row-major: its result compares directly.
        if (shape.is_uniform()) {
            CublasBatch<V> cublas{a.get_const_values(), static_cast<int>(shape.size),
                                  static_cast<int>(shape.num_items)};
            const auto run = [&] {
                if (vendor == "matinv") {
                    cublas.matinv(inverse->get_values());
                } else {
                    cublas.getrf_getri(inverse->get_values());
                }
            };
            Measurement measurement{"cuBLAS " + vendor, context.time(run), 0.0};
            measurement.error = error_of(copy_first_items_to_host(*inverse, problem.num_checked));
            result.vendor = measurement;
        } else {
            // Free larch's output first: the grouped copy of the batch needs the room.
            inverse.reset();
            GroupedCublasInverse<V> grouped{exec, problem};
            Measurement measurement{"cuBLAS " + vendor + " per size (" +
                                        std::to_string(grouped.num_groups()) +
                                        " calls, grouping not timed)",
                                    context.time([&] { grouped.run(vendor); }), 0.0};
            measurement.error = error_of(grouped.first_inverses(problem.num_checked));
            result.vendor = measurement;
        }
    }
#endif
    return result;
}

void validate_batch_invert(const Fields& fields)
{
    read_batch_shape(fields);
    const auto vendor = fields.get_string("vendor", "getri");
    if (vendor != "getri" && vendor != "matinv") {
        fields.fail("vendor", "must be \"getri\" or \"matinv\", not \"" + vendor + "\"");
    }
}

const bool registered = register_operation(
    {"batch_invert",
     "batched Gauss-Jordan inversion (beside cuBLAS getrf+getri or matinv; per size on variable batches)",
     with_batch_shape_fields({"vendor"}),
     with_batch_shape_list_fields({"vendor"}),
     validate_batch_invert,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(), [&](auto value) {
             return run_batch_invert<decltype(value)>(context);
         });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
