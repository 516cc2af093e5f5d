// Benchmark operation "block_jacobi": generation (`phase` "generate") or application (`phase` "apply") of
// preconditioner::BlockJacobi on one matrix, for a block bound, algorithm and storage precision, checked
// against the reference executor. Application also times, on the same executor, the CSR SpMV of the
// block-diagonal matrix the preconditioner applies (its blocks as a CSR matrix, dense inside each block):
// larch's CSR kernel in the details, cuSPARSE as the vendor measurement on CUDA.
//
// Byte models (the memory floor): generation reads the CSR matrix once (values, column indices, row
// pointers) and writes the stored blocks once (get_storage_bytes()); application reads the stored blocks
// and b once and writes x once. Flops: 2 n_b^3 per block for generation, 2 n_b^2 per block for application.
// Error: max |x - x_ref| / max |x_ref| of M^{-1} b against the preconditioner generated on the reference
// executor; tolerance 64 * bound * eps(V) * (largest finite block condition number), at least 64 eps(V),
// and for adaptive storage at least the accuracy 0.1 (blocks may then be stored in half).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "benchmark/driver/matrix_source.hpp"
#include "benchmark/driver/operation.hpp"
#include "larch/matrix/csr.hpp"
#include "larch/matrix/dense.hpp"
#include "larch/preconditioner/block_jacobi.hpp"

namespace larch {
namespace benchmark {
namespace {

using index_type = std::int32_t;
const std::vector<std::string> phases{"generate", "apply"};
const std::vector<std::string> algorithms{"gauss_jordan", "gauss_huard", "gauss_huard_transposed"};
const std::vector<std::string> storages{"working", "adaptive"};
const std::vector<std::string> extractions{"cached", "shared"};
/// The extraction a case without one gets: the library's default.
const std::string default_extraction =
    preconditioner::BlockJacobi<double, index_type>::parameters_type{}.extraction ==
            preconditioner::BlockJacobiExtraction::cached
        ? "cached"
        : "shared";

template <typename V>
typename preconditioner::BlockJacobi<V, index_type>::parameters_type parameters_of(const Fields& fields)
{
    using preconditioner::BlockJacobiAlgorithm;
    const auto algorithm = fields.get_string("algorithm", "gauss_jordan");
    return preconditioner::BlockJacobi<V, index_type>::build()
        .with_max_block_size(static_cast<size_type>(fields.get_integer("max_block_size", 32, 1, 1 << 20)))
        .with_algorithm(algorithm == "gauss_huard"              ? BlockJacobiAlgorithm::gauss_huard
                        : algorithm == "gauss_huard_transposed" ? BlockJacobiAlgorithm::gauss_huard_transposed
                                                                : BlockJacobiAlgorithm::gauss_jordan)
        .with_storage_precision(fields.get_string("storage_precision", "working") == "adaptive"
                                    ? preconditioner::BlockJacobiStorage::adaptive
                                    : preconditioner::BlockJacobiStorage::working)
        .with_extraction(fields.get_string("extraction", default_extraction) == "cached"
                             ? preconditioner::BlockJacobiExtraction::cached
                             : preconditioner::BlockJacobiExtraction::shared);
}

/// The block-diagonal part of `data` for the given blocks, every entry inside a block stored (explicit zeros
/// included), as the preconditioner's blocks are.
template <typename V>
matrix_data<V, index_type> block_diagonal_of(const matrix_data<V, index_type>& data,
                                             const std::vector<index_type>& pointers)
{
    std::vector<V> dense_values;
    matrix_data<V, index_type> blocks{data.size, {}};
    std::vector<index_type> block_of_row(data.size.rows);
    for (size_type block = 0; block + 1 < pointers.size(); ++block) {
        for (auto row = pointers[block]; row < pointers[block + 1]; ++row) {
            block_of_row[row] = static_cast<index_type>(block);
            for (auto col = pointers[block]; col < pointers[block + 1]; ++col) {
                blocks.entries.push_back({row, col, V{}});
            }
        }
    }
    for (const auto& entry : data.entries) {
        if (block_of_row[entry.row] == block_of_row[entry.col]) {
            blocks.entries.push_back(entry);
        }
    }
    blocks.sum_duplicates();
    return blocks;
}

template <typename V>
CaseResult run_block_jacobi(const CaseContext& context)
{
    const auto& fields = context.fields();
    const auto source = fields.get_object("matrix");
    const auto data = load_matrix<V, index_type>(source, context.matrix_dir());
    const auto phase = fields.get_string("phase");
    const auto& exec = context.executor();
    const auto parameters = parameters_of<V>(fields);
    const auto n = data.size.rows;

    auto a = share(matrix::Csr<V, index_type>::create(exec, data));
    auto reference_a = share(matrix::Csr<V, index_type>::create(context.reference(), data));
    auto expected = parameters.on(context.reference())->generate(reference_a);
    auto factory = parameters.on(exec);
    auto jacobi = factory->generate(a);

    std::vector<V> b_values(n);
    std::mt19937 engine{42};
    std::uniform_real_distribution<double> distribution{0.0, 1.0};
    for (auto& value : b_values) {
        value = static_cast<V>(distribution(engine));
    }
    const auto b = matrix::Dense<V>::create(exec, dim2{n, 1}, array<V>{exec, b_values.begin(), b_values.end()}, 1);
    const auto reference_b = matrix::Dense<V>::create(context.reference(), dim2{n, 1},
                                                      array<V>{context.reference(), b_values.begin(), b_values.end()}, 1);
    auto x = matrix::Dense<V>::create(exec, dim2{n, 1});
    auto reference_x = matrix::Dense<V>::create(context.reference(), dim2{n, 1});
    expected->apply(reference_b, reference_x);
    const auto x_expected = reference_x->copy_to_host();
    const auto error_of = [&](const preconditioner::BlockJacobi<V, index_type>& generated) {
        generated.apply(b, x);
        const auto computed = x->copy_to_host();
        double difference = 0;
        double scale = 0;
        for (size_type i = 0; i < n; ++i) {
            const double d = std::abs(static_cast<double>(computed[i]) - static_cast<double>(x_expected[i]));
            difference = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(difference, d);
            scale = std::max(scale, std::abs(static_cast<double>(x_expected[i])));
        }
        return difference / std::max(scale, std::numeric_limits<double>::min());
    };

    CaseResult result;
    const auto& pointers = jacobi->get_block_pointers();
    double sum_n2 = 0;
    double sum_n3 = 0;
    double largest_cond = 1;
    for (size_type block = 0; block + 1 < pointers.size(); ++block) {
        const double rows = pointers[block + 1] - pointers[block];
        sum_n2 += rows * rows;
        sum_n3 += rows * rows * rows;
        const double cond = expected->get_condition_numbers()[block];
        if (std::isfinite(cond)) {
            largest_cond = std::max(largest_cond, cond);
        }
    }
    const double eps = std::numeric_limits<V>::epsilon();
    result.tolerance = std::max(64.0 * eps, 64.0 * static_cast<double>(parameters.max_block_size) * eps * largest_cond);
    if (parameters.storage_precision == preconditioner::BlockJacobiStorage::adaptive) {
        result.tolerance = std::max(result.tolerance, parameters.accuracy);
    }
    const auto storage_bytes = static_cast<double>(jacobi->get_storage_bytes());
    result.label = phase + " " + matrix_source_name(source) + " bound " + std::to_string(parameters.max_block_size) +
                   " " + fields.get_string("algorithm", "gauss_jordan") + " " +
                   fields.get_string("storage_precision", "working") + " " + fields.get_string("extraction", default_extraction);
    result.details = json{{"matrix", matrix_source_name(source)},
                          {"phase", phase},
                          {"extraction", fields.get_string("extraction", default_extraction)},
                          {"rows", n},
                          {"nonzeros", data.entries.size()},
                          {"num_blocks", jacobi->get_num_blocks()},
                          {"singular_blocks", jacobi->get_num_singular_blocks()},
                          {"storage_bytes", jacobi->get_storage_bytes()},
                          {"working_precision_bytes", sum_n2 * sizeof(V)}};
    if (phase == "generate") {
        const double csr_bytes = static_cast<double>(data.entries.size()) * (sizeof(V) + sizeof(index_type)) +
                                 static_cast<double>(n + 1) * sizeof(index_type);
        result.bytes = csr_bytes + storage_bytes;
        result.flops = 2.0 * sum_n3;
        std::unique_ptr<preconditioner::BlockJacobi<V, index_type>> generated;
        result.ours = Measurement{"larch", context.time([&] { generated = factory->generate(a); }), 0.0};
        result.ours.error = error_of(*generated);
        return result;
    }
    result.bytes = storage_bytes + 2.0 * static_cast<double>(n) * sizeof(V);
    result.flops = 2.0 * sum_n2;
    result.ours = Measurement{"larch", context.time([&] { jacobi->apply(b, x); }), 0.0};
    result.ours.error = error_of(*jacobi);
    // the same block-diagonal matrix as CSR: the product a generic SpMV would compute instead
    auto block_diagonal = matrix::Csr<V, index_type>::create(exec, block_diagonal_of(data, pointers));
    block_diagonal->set_spmv_algorithm(matrix::CsrSpmvAlgorithm::larch);
    const auto larch_csr = context.time([&] { block_diagonal->apply(b, x); });
    std::vector<double> sorted = larch_csr;
    std::sort(sorted.begin(), sorted.end());
    result.details["larch_csr_spmv_median_seconds"] = sorted[sorted.size() / 2];
    result.details["block_diagonal_csr_nonzeros"] = block_diagonal->get_num_stored_elements();
    if (dynamic_cast<const CudaExecutor*>(exec.get()) != nullptr) {
        block_diagonal->set_spmv_algorithm(matrix::CsrSpmvAlgorithm::vendor);
        // cuSPARSE multiplies by the blocks of A, not their inverses: its time is compared, its result is not
        result.vendor = Measurement{"cuSPARSE CSR SpMV of the block-diagonal matrix",
                                    context.time([&] { block_diagonal->apply(b, x); }), 0.0};
    }
    return result;
}

void validate_block_jacobi(const Fields& fields)
{
    validate_matrix_source(fields.get_object("matrix"));
    const auto check_choice = [&](const std::string& key, const std::vector<std::string>& choices,
                                  const std::string& fallback) {
        const auto value = fields.get_string(key, fallback);
        if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
            fields.fail(key, "must be one of " + join(choices) + ", not \"" + value + "\"");
        }
    };
    check_choice("phase", phases, "");
    check_choice("algorithm", algorithms, "gauss_jordan");
    check_choice("storage_precision", storages, "working");
    check_choice("extraction", extractions, default_extraction);
    fields.get_integer("max_block_size", 32, 1, 1 << 20);
}

const bool registered = register_operation(
    {"block_jacobi",
     "block-Jacobi generation or application (application beside larch's and cuSPARSE's CSR SpMV of the "
     "block-diagonal matrix)",
     {"matrix", "phase", "max_block_size", "algorithm", "storage_precision", "extraction"},
     {"phase", "max_block_size", "algorithm", "storage_precision", "extraction"},
     validate_block_jacobi,
     [](const CaseContext& context) {
         return dispatch_precision(context.precision(),
                                   [&](auto value) { return run_block_jacobi<decltype(value)>(context); });
     }});

}  // namespace
}  // namespace benchmark
}  // namespace larch
