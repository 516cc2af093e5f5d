// Benchmark operation "batch_spmv": x_i = A_i b_i for a batch of sparse items (Anzt et al. 2017, flexible
// batched SpMV) in batch::Csr
// (each CSR kernel, or automatic), batch::Coo or batch::Ell, checked against the reference executor. On
// CUDA the same run measures cuSPARSE: `vendor` is one SpMV on the block-diagonal join of the batch (one
// big CSR matrix, the strongest vendor baseline), and the details hold a loop of cusparseSpMV over the
// items (timed on the first `loop_items` items and extrapolated linearly when the batch is larger, marked
// cusparse_loop_extrapolated) and, for a uniform batch (one size and pattern), cusparseSpMM with strided
// batches. Baselines are measured once per batch and repeated in the records of its kernels.
//
// Batches ("batch" field): "homogeneous" (one matrix, `matrix`, repeated `num_items` times with values
// scaled per item by a random factor in [0.5, 1.5]); "density" (`num_items` random items of order
// `order` with `row_nnz` nonzeros per row on average, "rows": "balanced" = exactly that many per row,
// "unbalanced" = 1 + floor(4 row_nnz u^3) for u uniform in [0, 1), so a few rows are long); and
// "heterogeneous" (`num_items` items drawn uniformly, seed 42, from the files of the matrix folder with at
// most `max_rows` rows).
//
// Byte model (the minimum traffic of one batched SpMV): the format's stored arrays read once (values and
// column indices of every stored entry, ELL padding included, CSR column indices at 2 bytes where the
// batch keeps them in 16 bits (batch::Csr::get_const_narrow_col_idxs, "column_index_bytes"); CSR row
// pointers; COO row indices; a shared pattern counted once), the per-item layout (row and column counts, stored-entry and row offsets of the
// matrix, offsets of b and x: 40 bytes per item), b read once, x written once. Flops: 2 per nonzero. The
// cuSPARSE join's rates count its own bytes (vendor.bytes): values and 32-bit column indices of every
// nonzero, a row pointer per row, b and x.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "benchmark/driver/block_diagonal_join.hpp"
#include "benchmark/driver/host_memory.hpp"
#include "benchmark/driver/matrix_source.hpp"
#include "benchmark/driver/operation.hpp"
#include "larch/batch/coo.hpp"
#include "larch/batch/csr.hpp"
#include "larch/batch/ell.hpp"
#include "larch/config.hpp"
#include "larch/io/matrix_market.hpp"

#if LARCH_HAVE_CUDA
#include "benchmark/driver/batch_cusparse.hpp"
#endif

namespace larch {
namespace benchmark {
namespace {

using index_type = std::int32_t;
const std::vector<std::string> batch_kinds{"homogeneous", "density", "heterogeneous"};
const std::vector<std::string> kernels{"csr_automatic", "csr_scalar", "csr_vector", "csr_smart",
                                       "csr_balanced", "csr_stream", "coo", "ell"};
constexpr double layout_bytes_per_item = 40.0;
constexpr long long max_integer = 1LL << 31;

/// The host-side batch and its reference result, reused by consecutive cases that differ only in kernel
/// or executor.
template <typename V>
struct Problem {
    std::string key;
    std::string name;
    std::vector<matrix_data<V, index_type>> items;
    std::vector<V> b;
    std::vector<V> reference_x;
    /// |A| |b| per entry of x: the scale of any summation order's rounding error.
    std::vector<double> magnitude;
    size_type max_row_nonzeros = 0;
    size_type nonzeros = 0;
    size_type rows = 0;
    size_type cols = 0;
    /// One size and one pattern (the case cuSPARSE's strided batches need).
    bool uniform = true;
};

template <typename V>
std::vector<matrix_data<V, index_type>> homogeneous_items(const CaseContext& context,
                                                          size_type num_items, std::mt19937& engine)
{
    const auto data = load_matrix<V, index_type>(context.fields().get_object("matrix"),
                                                 context.matrix_dir());
    std::uniform_real_distribution<double> scale{0.5, 1.5};
    ensure_fits_host_memory(static_cast<double>(num_items) * static_cast<double>(data.entries.size()) *
                            sizeof(typename matrix_data<V, index_type>::entry));
    std::vector<matrix_data<V, index_type>> items(num_items, data);
    for (auto& item : items) {
        const auto factor = static_cast<V>(scale(engine));
        for (auto& e : item.entries) {
            e.value *= factor;
        }
    }
    return items;
}

template <typename V>
std::vector<matrix_data<V, index_type>> density_items(const Fields& fields, size_type num_items,
                                                      std::mt19937& engine)
{
    const auto order = static_cast<size_type>(fields.get_integer("order", 1024, 1, max_integer));
    const auto row_nnz = static_cast<size_type>(fields.get_integer("row_nnz", 8, 1, max_integer));
    const bool balanced = fields.get_string("rows", "balanced") == "balanced";
    std::uniform_real_distribution<double> unit{0.0, 1.0};
    std::uniform_int_distribution<index_type> column{0, static_cast<index_type>(order) - 1};
    ensure_fits_host_memory(static_cast<double>(num_items) * static_cast<double>(order) *
                            static_cast<double>(row_nnz) * sizeof(typename matrix_data<V, index_type>::entry));
    std::vector<matrix_data<V, index_type>> items;
    items.reserve(num_items);
    for (size_type item = 0; item < num_items; ++item) {
        matrix_data<V, index_type> data{dim2{order, order}};
        for (size_type row = 0; row < order; ++row) {
            const auto u = unit(engine);
            const auto count = std::min(
                order, balanced ? row_nnz
                                : 1 + static_cast<size_type>(4.0 * double(row_nnz) * u * u * u));
            for (size_type k = 0; k < count; ++k) {
                data.entries.push_back({static_cast<index_type>(row), column(engine),
                                        static_cast<V>(2.0 * unit(engine) - 1.0)});
            }
        }
        data.sum_duplicates();
        items.push_back(std::move(data));
    }
    return items;
}

template <typename V>
std::vector<matrix_data<V, index_type>> heterogeneous_items(const CaseContext& context,
                                                            size_type num_items,
                                                            std::mt19937& engine)
{
    const auto max_rows = static_cast<size_type>(context.fields().get_integer("max_rows", 1024, 1, max_integer));
    std::vector<std::string> files;
    std::error_code error;
    for (std::filesystem::directory_iterator it{context.matrix_dir(), error}, end;
         !error && it != end; it.increment(error)) {
        if (it->path().extension() == ".mtx") {
            files.push_back(it->path().string());
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<matrix_data<V, index_type>> pool;
    for (const auto& file : files) {
        auto data = io::read_matrix_market_data<V, index_type>(file);
        if (data.size.rows <= max_rows) {
            pool.push_back(std::move(data));
        }
    }
    if (pool.empty()) {
        throw CaseSkipped("no matrix with at most " + std::to_string(max_rows) + " rows in " +
                          context.matrix_dir());
    }
    std::uniform_int_distribution<size_type> pick{0, pool.size() - 1};
    std::vector<matrix_data<V, index_type>> items;
    items.reserve(num_items);
    for (size_type item = 0; item < num_items; ++item) {
        items.push_back(pool[pick(engine)]);
    }
    return items;
}

/// Rows (or, with `of_b`, columns) of every item.
template <typename V>
std::vector<size_type> item_rows(const Problem<V>& problem, bool of_b)
{
    std::vector<size_type> rows;
    rows.reserve(problem.items.size());
    for (const auto& item : problem.items) {
        rows.push_back(of_b ? item.size.cols : item.size.rows);
    }
    return rows;
}

template <typename V>
std::unique_ptr<batch::Vector<V>> batch_vector(std::shared_ptr<const Executor> exec,
                                               const Problem<V>& problem, const std::vector<V>& b)
{
    return batch::Vector<V>::create(std::move(exec), item_rows(problem, true), 1, b);
}

template <typename V>
const Problem<V>& load_problem(const CaseContext& context)
{
    static Problem<V> problem;
    const auto& fields = context.fields();
    auto key_fields = fields.get_json();
    for (const auto& common : {"kernel", "executor", "repetitions", "warmup", "name"}) {
        key_fields.erase(common);
    }
    const auto key = key_fields.dump() + "@" + context.matrix_dir();
    if (problem.key == key) {
        return problem;
    }
    problem = Problem<V>{};
    const auto kind = fields.get_string("batch");
    const auto num_items = static_cast<size_type>(fields.get_integer("num_items", 1));
    std::mt19937 engine{42};
    if (kind == "homogeneous") {
        problem.items = homogeneous_items<V>(context, num_items, engine);
        problem.name = matrix_source_name(fields.get_object("matrix"));
    } else if (kind == "density") {
        problem.items = density_items<V>(fields, num_items, engine);
        problem.name = "order " + std::to_string(fields.get_integer("order", 1024, 1, max_integer)) + ", " +
                       std::to_string(fields.get_integer("row_nnz", 8, 1, max_integer)) + "/row " +
                       fields.get_string("rows", "balanced");
    } else {
        problem.items = heterogeneous_items<V>(context, num_items, engine);
        problem.name = "rows <= " + std::to_string(fields.get_integer("max_rows", 1024, 1, max_integer));
    }
    std::uniform_real_distribution<double> distribution{-1.0, 1.0};
    for (const auto& item : problem.items) {
        problem.uniform = problem.uniform && item.size == problem.items.front().size &&
                          item.entries.size() == problem.items.front().entries.size();
        std::vector<size_type> row_nonzeros(item.size.rows, 0);
        std::vector<double> magnitude(item.size.rows, 0.0);
        const auto b_offset = problem.b.size();
        for (size_type c = 0; c < item.size.cols; ++c) {
            problem.b.push_back(static_cast<V>(distribution(engine)));
        }
        for (const auto& e : item.entries) {
            ++row_nonzeros[e.row];
            magnitude[e.row] += std::abs(double(e.value) * double(problem.b[b_offset + e.col]));
        }
        for (auto count : row_nonzeros) {
            problem.max_row_nonzeros = std::max(problem.max_row_nonzeros, count);
        }
        problem.magnitude.insert(problem.magnitude.end(), magnitude.begin(), magnitude.end());
        problem.nonzeros += item.entries.size();
        problem.rows += item.size.rows;
        problem.cols += item.size.cols;
    }
    // Equal sizes and counts are not yet one pattern; compare the entries of uniform candidates.
    for (size_type i = 1; problem.uniform && i < problem.items.size(); ++i) {
        const auto& first = problem.items.front().entries;
        const auto& other = problem.items[i].entries;
        problem.uniform = std::equal(first.begin(), first.end(), other.begin(),
                                     [](const auto& p, const auto& q) {
                                         return p.row == q.row && p.col == q.col;
                                     });
    }
    // The oracle: the reference executor's batch::Csr product.
    const auto reference = context.reference();
    const auto a = batch::Csr<V, index_type>::create(reference, problem.items);
    const auto b = batch_vector(reference, problem, problem.b);
    auto x = batch::Vector<V>::create(reference, item_rows(problem, false), 1);
    a->apply(*b, *x);
    problem.reference_x = x->copy_to_host();
    problem.key = key;
    return problem;
}

/// The largest |x_i - reference_i| / (|A| |b|)_i over the first `count` entries of x.
template <typename V>
double componentwise_error(const Problem<V>& problem, const std::vector<V>& computed,
                           size_type count)
{
    double error = 0.0;
    for (size_type i = 0; i < count; ++i) {
        const double difference =
            std::abs(double(computed[i]) - double(problem.reference_x[i]));
        const double scale = problem.magnitude[i] > 0.0 ? problem.magnitude[i] : 1.0;
        if (!(difference / scale <= error)) {
            error = std::isnan(difference) ? std::numeric_limits<double>::infinity()
                                           : difference / scale;
        }
    }
    return error;
}

/// The batch on one executor in each format, created by the first case that needs it: creating a batch
/// of millions of nonzeros takes seconds on the host, and the CSR kernels differ only in a setting.
template <typename V>
struct Formats {
    std::string key;
    std::unique_ptr<batch::Csr<V, index_type>> csr;
    std::unique_ptr<batch::Coo<V, index_type>> coo;
    std::unique_ptr<batch::Ell<V, index_type>> ell;
};

/// The batch in the kernel's format on `exec`, and the bytes its arrays occupy.
template <typename V>
const batch::BatchLinOp<V>& batch_in_format(const std::string& kernel,
                                            const std::shared_ptr<const Executor>& exec,
                                            const Problem<V>& problem, json& details,
                                            double& stored_bytes)
{
    static Formats<V> formats;
    const auto key = problem.key + "@" + exec->get_name();
    if (formats.key != key) {
        formats = Formats<V>{};
        formats.key = key;
    }
    constexpr double value_bytes = sizeof(V);
    constexpr double index_bytes = sizeof(index_type);
    const double first_nnz = double(problem.items.front().entries.size());
    if (kernel.rfind("csr_", 0) == 0) {
        if (!formats.csr) {
            formats.csr = batch::Csr<V, index_type>::create(exec, problem.items);
        }
        auto& a = *formats.csr;
        a.set_spmv_kernel(batch::csr_spmv_kernel_from_string(kernel.substr(4)));
        const bool shared = a.get_layout().has_shared_pattern();
        const double pattern_rows = shared ? double(problem.items.front().size.rows + 1)
                                           : double(problem.rows + problem.items.size());
        // the kernels read 16-bit column indices where the batch keeps them
        const double column_bytes =
            a.get_const_narrow_col_idxs() != nullptr ? sizeof(std::uint16_t) : index_bytes;
        stored_bytes = double(problem.nonzeros) * value_bytes +
                       (shared ? first_nnz : double(problem.nonzeros)) * column_bytes +
                       pattern_rows * index_bytes;
        details["column_index_bytes"] = column_bytes;
        // the kernel automatic runs this batch with (scalar or stream)
        details["automatic_kernel"] = batch::to_string(a.get_automatic_kernel());
        details["shared_pattern"] = shared;
        details["mean_row_nonzeros"] = a.get_mean_row_nnz();
        return a;
    }
    if (kernel == "coo") {
        if (!formats.coo) {
            formats.coo = batch::Coo<V, index_type>::create(exec, problem.items);
        }
        const bool shared = formats.coo->get_layout().has_shared_pattern();
        stored_bytes = double(problem.nonzeros) * value_bytes +
                       2.0 * (shared ? first_nnz : double(problem.nonzeros)) * index_bytes;
        details["shared_pattern"] = shared;
        return *formats.coo;
    }
    if (!formats.ell) {
        formats.ell = batch::Ell<V, index_type>::create(exec, problem.items);
    }
    const auto& layout = formats.ell->get_layout();
    const double slots = double(layout.get_total_stored());
    stored_bytes = slots * value_bytes +
                   (layout.has_shared_pattern() ? double(layout.get_num_stored(0)) : slots) *
                       index_bytes;
    details["shared_pattern"] = layout.has_shared_pattern();
    details["ell_padding_fraction"] = 1.0 - double(problem.nonzeros) / std::max(1.0, slots);
    return *formats.ell;
}

#if LARCH_HAVE_CUDA
/// The cuSPARSE measurements of one batch on one executor and precision, made by its first case.
struct Baselines {
    std::string key;
    Measurement block_diagonal;
    json details;
};

template <typename V>
const Baselines& measure_baselines(const CaseContext& context, const Problem<V>& problem)
{
    static Baselines baselines;
    const auto key = problem.key + "@" + context.executor()->get_name() + "/" + context.precision();
    if (baselines.key == key) {
        return baselines;
    }
    baselines = Baselines{};
    const auto& exec = context.executor();
    const auto num_items = problem.items.size();
    const auto b = batch_vector(exec, problem, problem.b);
    auto x = batch::Vector<V>::create(exec, item_rows(problem, false), 1);
    const auto joined = join_block_diagonal(problem.items);
    const array<index_type> join_row_ptrs{exec, joined.row_ptrs.begin(), joined.row_ptrs.end()};
    const array<index_type> join_col_idxs{exec, joined.col_idxs.begin(), joined.col_idxs.end()};
    const array<V> join_values{exec, joined.values.begin(), joined.values.end()};
    {
        CusparseSpmvList<V> join;
        join.add({static_cast<std::int64_t>(problem.rows), static_cast<std::int64_t>(problem.cols),
                  static_cast<std::int64_t>(problem.nonzeros), join_row_ptrs.get_const_data(),
                  join_col_idxs.get_const_data(), join_values.get_const_data()},
                 b->get_const_values(), x->get_values());
        x->fill(V{0});
        baselines.block_diagonal = Measurement{"cuSPARSE block-diagonal join",
                                               context.time([&] { join.run(); }), 0.0};
        baselines.block_diagonal.error =
            componentwise_error(problem, x->copy_to_host(), problem.rows);
    }
    // The loop over the items, on the per-item arrays of a batch::Csr (item-local indices).
    const auto a = batch::Csr<V, index_type>::create(exec, problem.items,
                                                     batch::PatternSharing::per_item);
    const auto& layout = a->get_layout();
    const auto item_csr = [&](size_type item) {
        return DeviceCsr<V>{static_cast<std::int64_t>(layout.get_size(item).rows),
                            static_cast<std::int64_t>(layout.get_size(item).cols),
                            static_cast<std::int64_t>(layout.get_num_stored(item)),
                            a->get_const_row_ptrs() + a->get_row_ptrs_offset(item),
                            a->get_const_col_idxs() + layout.get_stored_offset(item),
                            a->get_const_values() + layout.get_stored_offset(item)};
    };
    const auto loop_items = std::min<size_type>(
        num_items, static_cast<size_type>(context.fields().get_integer("loop_items", 1000, 1, max_integer)));
    {
        CusparseSpmvList<V> loop;
        for (size_type item = 0; item < loop_items; ++item) {
            loop.add(item_csr(item), b->get_const_values() + b->get_layout().get_offset(item),
                     x->get_values() + x->get_layout().get_offset(item));
        }
        x->fill(V{0});
        auto seconds = context.time([&] { loop.run(); });
        const double scale = double(num_items) / double(loop_items);
        for (auto& s : seconds) {
            s *= scale;
        }
        std::sort(seconds.begin(), seconds.end());
        baselines.details["cusparse_loop_seconds"] = seconds[seconds.size() / 2];
        baselines.details["cusparse_loop_items_timed"] = loop_items;
        baselines.details["cusparse_loop_extrapolated"] = loop_items < num_items;
        baselines.details["cusparse_loop_error"] = componentwise_error(
            problem, x->copy_to_host(), static_cast<size_type>(layout.get_row_offset(loop_items)));
    }
    if (problem.uniform) {
        // A cuSPARSE version that refuses this batched SpMM costs the record this baseline only.
        try {
            CusparseStridedSpmm<V> strided{item_csr(0), static_cast<int>(num_items),
                                           b->get_const_values(), x->get_values()};
            x->fill(V{0});
            auto seconds = context.time([&] { strided.run(); });
            std::sort(seconds.begin(), seconds.end());
            baselines.details["cusparse_strided_seconds"] = seconds[seconds.size() / 2];
            baselines.details["cusparse_strided_error"] =
                componentwise_error(problem, x->copy_to_host(), problem.rows);
        } catch (const std::runtime_error& e) {
            baselines.details["cusparse_strided_failure"] = e.what();
        }
    }
    baselines.key = key;
    return baselines;
}
#endif

template <typename V>
CaseResult run_batch_spmv(const CaseContext& context)
{
    const auto& problem = load_problem<V>(context);
    const auto kernel = context.fields().get_string("kernel");
    const auto& exec = context.executor();
    const auto num_items = problem.items.size();

    CaseResult result;
    result.label = context.fields().get_string("batch") + " " + problem.name + " x" +
                   std::to_string(num_items) + " " + kernel;
    result.details = json{{"batch", context.fields().get_string("batch")},
                          {"matrix", problem.name},
                          {"kernel", kernel},
                          {"num_items", num_items},
                          {"rows", problem.rows},
                          {"nonzeros", problem.nonzeros},
                          {"max_row_nonzeros", problem.max_row_nonzeros},
                          {"uniform", problem.uniform}};
    double stored_bytes = 0.0;
    const auto& a = batch_in_format(kernel, exec, problem, result.details, stored_bytes);
    result.bytes = stored_bytes + double(problem.rows + problem.cols) * sizeof(V) +
                   layout_bytes_per_item * double(num_items);
    result.flops = 2.0 * double(problem.nonzeros);
    // Each x_i sums at most max_row_nonzeros products: any order errs by at most that many roundings.
    result.tolerance =
        2.0 * double(problem.max_row_nonzeros + 1) * std::numeric_limits<V>::epsilon();

    const auto b = batch_vector(exec, problem, problem.b);
    auto x = batch::Vector<V>::create(exec, item_rows(problem, false), 1);
    x->fill(V{0});
    result.ours = Measurement{"larch " + kernel, context.time([&] { a.apply(*b, *x); }), 0.0};
    result.ours.error = componentwise_error(problem, x->copy_to_host(), problem.rows);
#if LARCH_HAVE_CUDA
    if (dynamic_cast<const CudaExecutor*>(exec.get()) != nullptr) {
        const auto& baselines = measure_baselines(context, problem);
        result.vendor = baselines.block_diagonal;
        // the join is one CSR matrix: every item's pattern with 32-bit indices, one row pointer per row
        result.vendor_bytes = double(problem.nonzeros) * double(sizeof(V) + sizeof(index_type)) +
                              double(problem.rows + 1) * sizeof(index_type) +
                              double(problem.rows + problem.cols) * sizeof(V);
        result.details.update(baselines.details);
    }
#endif
    return result;
}

void validate_batch_spmv(const Fields& fields)
{
    const auto kind = fields.get_string("batch");
    if (std::find(batch_kinds.begin(), batch_kinds.end(), kind) == batch_kinds.end()) {
        fields.fail("batch", "must be one of " + join(batch_kinds) + ", not \"" + kind + "\"");
    }
    const auto kernel = fields.get_string("kernel");
    if (std::find(kernels.begin(), kernels.end(), kernel) == kernels.end()) {
        fields.fail("kernel", "must be one of " + join(kernels) + ", not \"" + kernel + "\"");
    }
    fields.get_integer("num_items", 1);
    fields.get_integer("loop_items", 1000, 1, max_integer);
    if (kind == "homogeneous") {
        validate_matrix_source(fields.get_object("matrix"));
    } else if (kind == "density") {
        const auto order = fields.get_integer("order", 1024, 1, max_integer);
        const auto row_nnz = fields.get_integer("row_nnz", 8, 1, max_integer);
        // A row of an item holds at most `order` entries (the generator caps each row there), so more per row,
        // balanced or on average, cannot be made and would only mislabel the batch.
        if (row_nnz > order) {
            fields.fail("row_nnz", "must be at most order (" + std::to_string(order) + "), not " +
                                       std::to_string(row_nnz) + ": a row of an item has only order columns");
        }
        const auto rows = fields.get_string("rows", "balanced");
        if (rows != "balanced" && rows != "unbalanced") {
            fields.fail("rows", "must be \"balanced\" or \"unbalanced\", not \"" + rows + "\"");
        }
    } else {
        fields.get_integer("max_rows", 1024, 1, max_integer);
    }
}

const bool registered = register_operation(
    {"batch_spmv",
     "batched SpMV x_i = A_i b_i of variable-size sparse items (batch::Csr kernels, batch::Coo, "
     "batch::Ell); on CUDA beside cuSPARSE (block-diagonal join, loop over items, strided SpMM)",
     {"batch", "kernel", "num_items", "matrix", "order", "row_nnz", "rows", "max_rows", "loop_items"},
     // kernel last: the driver expands the last list innermost, so the kernels of one batch run one
     // after the other and share its host-side setup.
     {"num_items", "row_nnz", "rows", "kernel"},
     validate_batch_spmv,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(), [&](auto value) {
             return run_batch_spmv<decltype(value)>(context);
         });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
