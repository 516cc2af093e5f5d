// Benchmark operation "spmv": x = A b for one matrix in one storage format (csr, coo, ell, dense), checked
// against the reference executor; on CUDA, CSR is measured with larch's kernel and with cuSPARSE. "columns":
// k > 1 multiplies k right-hand sides at once (column c of b is 2^c times the one-column b, so each column
// of x is checked exactly against the one reference product).
//
// Byte model (the minimum traffic of one SpMV): the format's stored arrays read once (values and column
// indices of every stored entry, ELL padding included; CSR row pointers; COO row indices), b read once,
// x written once. Flops: 2 per nonzero (padding and explicit structure excluded).
#include <cmath>
#include <limits>
#include <random>

#include "benchmark/driver/matrix_source.hpp"
#include "benchmark/driver/operation.hpp"
#include "larch/matrix/coo.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/matrix/ell.hpp"

namespace larch {
namespace benchmark {
namespace {

using index_type = std::int32_t;
const std::vector<std::string> formats{"csr", "coo", "ell", "dense"};
// Right-hand sides of one case at most (column c of b is scaled by 2^c, exact in float up to 2^63).
constexpr std::int64_t max_columns = 64;
// A dense copy larger than this (1 GiB of doubles) is refused rather than exhausting memory.
constexpr double max_dense_entries = 1 << 27;

/// The host-side facts of one matrix and its reference result, reused by consecutive cases that
/// differ only in format or executor (generating or reading a large matrix takes seconds).
template <typename V>
struct Problem {
    std::string key;
    std::string name;
    matrix_data<V, index_type> data;
    std::vector<V> b;
    /// x = A b on the reference executor, and |A| |b|, the scale of each entry's rounding error.
    std::vector<V> reference_x;
    std::vector<double> magnitude;
    size_type max_row_nonzeros = 0;
};

template <typename V>
const Problem<V>& load_problem(const CaseContext& context)
{
    static Problem<V> problem;
    const auto source = context.fields().get_object("matrix");
    const auto key = source.get_json().dump() + "@" + context.matrix_dir();
    if (problem.key == key) {
        return problem;
    }
    problem = Problem<V>{};
    problem.name = matrix_source_name(source);
    problem.data = load_matrix<V, index_type>(source, context.matrix_dir());
    const auto size = problem.data.size;
    std::mt19937 engine{42};
    std::uniform_real_distribution<double> distribution{-1.0, 1.0};
    problem.b.resize(size.cols);
    for (auto& value : problem.b) {
        value = static_cast<V>(distribution(engine));
    }
    problem.magnitude.assign(size.rows, 0.0);
    std::vector<size_type> row_nonzeros(size.rows, 0);
    for (const auto& entry : problem.data.entries) {
        problem.magnitude[entry.row] += std::abs(static_cast<double>(entry.value) *
                                                 static_cast<double>(problem.b[entry.col]));
        ++row_nonzeros[entry.row];
    }
    for (auto count : row_nonzeros) {
        problem.max_row_nonzeros = std::max(problem.max_row_nonzeros, count);
    }
    const auto reference = context.reference();
    const auto matrix = matrix::Csr<V, index_type>::create(reference, problem.data);
    const auto b = matrix::Dense<V>::create(
        reference, dim2{size.cols, 1}, array<V>{reference, problem.b.begin(), problem.b.end()}, 1);
    auto x = matrix::Dense<V>::create(reference, dim2{size.rows, 1});
    matrix->apply(b, x);
    problem.reference_x = x->copy_to_host();
    problem.key = key;
    return problem;
}

/// The largest |x_ic 2^-c - reference_i| / (|A| |b|)_i over rows i and columns c: relative to the rounding
/// error any summation order can make, so cancellation in a row does not inflate it (scaling by 2^c
/// commutes with rounding).
template <typename V>
double componentwise_error(const Problem<V>& problem, const matrix::Dense<V>& x)
{
    const auto computed = x.copy_to_host();
    const auto columns = x.get_size().cols;
    double error = 0.0;
    for (size_type entry = 0; entry < computed.size(); ++entry) {
        const auto i = entry / columns;
        const int c = static_cast<int>(entry % columns);
        const double difference = std::abs(std::ldexp(static_cast<double>(computed[entry]), -c) -
                                           static_cast<double>(problem.reference_x[i]));
        const double scale = problem.magnitude[i] > 0.0 ? problem.magnitude[i] : 1.0;
        if (!(difference / scale <= error)) {
            error = std::isnan(difference) ? std::numeric_limits<double>::infinity()
                                           : difference / scale;
        }
    }
    return error;
}

/// The matrix in `format` on the case's executor and the bytes its arrays occupy.
template <typename V>
std::unique_ptr<LinOp> create_in_format(const std::string& format,
                                        const std::shared_ptr<const Executor>& exec,
                                        const matrix_data<V, index_type>& data, double& stored_bytes)
{
    const double rows = static_cast<double>(data.size.rows);
    const double nnz = static_cast<double>(data.entries.size());
    if (format == "csr") {
        stored_bytes = nnz * (sizeof(V) + sizeof(index_type)) + (rows + 1) * sizeof(index_type);
        return matrix::Csr<V, index_type>::create(exec, data);
    }
    if (format == "coo") {
        stored_bytes = nnz * (sizeof(V) + 2 * sizeof(index_type));
        return matrix::Coo<V, index_type>::create(exec, data);
    }
    if (format == "ell") {
        auto ell = matrix::Ell<V, index_type>::create(exec, data);
        stored_bytes = static_cast<double>(ell->get_num_stored_elements()) *
                       (sizeof(V) + sizeof(index_type));
        return ell;
    }
    const double entries = rows * static_cast<double>(data.size.cols);
    if (entries > max_dense_entries) {
        throw std::runtime_error("dense format: the " + to_string(data.size) +
                                 " matrix is too large to store densely; use csr, coo or ell");
    }
    stored_bytes = entries * sizeof(V);
    return matrix::Dense<V>::create(exec, data);
}

/// Whether cuSPARSE is there to compare with (CSR on a CUDA executor).
bool has_vendor_spmv(const std::string& format, const Executor& exec)
{
    return format == "csr" && dynamic_cast<const CudaExecutor*>(&exec) != nullptr;
}

template <typename V>
CaseResult run_spmv(const CaseContext& context)
{
    const auto& problem = load_problem<V>(context);
    const auto format = context.fields().get_string("format");
    const auto& exec = context.executor();
    const auto size = problem.data.size;
    const double nnz = static_cast<double>(problem.data.entries.size());
    const auto columns = static_cast<size_type>(context.fields().get_integer("columns", 1, 1, max_columns));

    CaseResult result;
    auto matrix = create_in_format(format, exec, problem.data, result.bytes);
    result.bytes += static_cast<double>((size.cols + size.rows) * columns) * sizeof(V);
    result.flops = 2.0 * nnz * static_cast<double>(columns);
    // Each x_i sums at most max_row_nonzeros products: any order errs by at most that many roundings.
    result.tolerance = 2.0 * static_cast<double>(problem.max_row_nonzeros + 1) *
                       std::numeric_limits<V>::epsilon();
    result.label = format + " " + problem.name +
                   (columns > 1 ? " x" + std::to_string(columns) + " columns" : std::string{});
    result.details = json{{"matrix", problem.name},
                          {"format", format},
                          {"columns", columns},
                          {"rows", size.rows},
                          {"cols", size.cols},
                          {"nonzeros", problem.data.entries.size()},
                          {"max_row_nonzeros", problem.max_row_nonzeros}};

    std::vector<V> b_columns(size.cols * columns);
    for (size_type i = 0; i < size.cols; ++i) {
        for (size_type c = 0; c < columns; ++c) {
            b_columns[i * columns + c] = std::ldexp(problem.b[i], static_cast<int>(c));
        }
    }
    const auto b = matrix::Dense<V>::create(exec, dim2{size.cols, columns},
                                            array<V>{exec, b_columns.begin(), b_columns.end()}, columns);
    auto x = matrix::Dense<V>::create(exec, dim2{size.rows, columns});
    auto measure = [&](const std::string& name) {
        x->fill(V{0});
        Measurement measurement{name, {}, 0.0};
        measurement.seconds = context.time([&] { matrix->apply(b, x); });
        measurement.error = componentwise_error(problem, *x);
        return measurement;
    };
    auto csr = dynamic_cast<matrix::Csr<V, index_type>*>(matrix.get());
    if (csr) {
        csr->set_spmv_algorithm(matrix::CsrSpmvAlgorithm::larch);
    }
    result.ours = measure("larch");
    if (has_vendor_spmv(format, *exec)) {
        csr->set_spmv_algorithm(matrix::CsrSpmvAlgorithm::vendor);
        result.vendor = measure("cuSPARSE");
    }
    return result;
}

void validate_spmv(const Fields& fields)
{
    const auto format = fields.get_string("format");
    if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
        fields.fail("format", "must be one of " + join(formats) + ", not \"" + format + "\"");
    }
    fields.get_integer("columns", 1, 1, max_columns);
    validate_matrix_source(fields.get_object("matrix"));
}

const bool registered = register_operation(
    {"spmv",
     "sparse matrix-vector product x = A b in csr, coo, ell or dense format (cuSPARSE beside csr on CUDA)",
     {"matrix", "format", "columns"},
     {"format", "columns"},
     validate_spmv,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(),
                                   [&](auto value) { return run_spmv<decltype(value)>(context); });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
