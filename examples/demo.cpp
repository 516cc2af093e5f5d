// demo: SpMV in every storage format on the best executor of this machine, checked against the reference
// executor. Usage: demo [matrix.mtx] [--size N] [--executor NAME] [--repetitions R]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <larch/base/executor.hpp>
#include <larch/generate/problems.hpp>
#include <larch/io/matrix_market.hpp>
#include <larch/matrix/coo.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/matrix/dense.hpp>
#include <larch/matrix/ell.hpp>

#include "flag_value.hpp"

using namespace larch;
using Csr = matrix::Csr<double>;
using Vector = matrix::Dense<double>;

namespace {

const char* const usage = "usage: demo [matrix.mtx] [--size N] [--executor NAME] [--repetitions R]\n";

struct Settings {
    bool help = false;
    std::string matrix_file;  // empty: a generated 3D Laplacian
    int grid_size = 64;       // points per dimension of the generated problem
    bool grid_size_given = false;
    std::string executor = best_available_executor_name();
    int repetitions = 20;
};

/// The value of `flag` as a positive int (a count below 1 was once silently taken as 1).
int positive_value(const std::string& flag, const std::string& text)
{
    const int value = examples::flag_value<int>(flag, text);
    if (value < 1) {
        throw BadInput(__FILE__, __LINE__, flag + " expects a positive integer, got '" + text + "'");
    }
    return value;
}

Settings parse_arguments(int argc, char** argv)
{
    Settings settings;
    std::vector<std::string> flags;  // the flags given, in order: a second value would replace the first
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&] { return examples::next_flag_value(argc, argv, i, std::string{"\n"} + usage); };
        if (arg.rfind("-", 0) == 0) {
            flags.push_back(arg);
        }
        if (arg == "--size") {
            settings.grid_size = positive_value(arg, value());
            settings.grid_size_given = true;
        } else if (arg == "--executor") {
            settings.executor = value();
        } else if (arg == "--repetitions") {
            settings.repetitions = positive_value(arg, value());
        } else if (arg == "--help" || arg == "-h") {
            settings.help = true;
        } else if (arg.rfind("-", 0) != 0 && settings.matrix_file.empty()) {
            settings.matrix_file = arg;
        } else {
            throw BadInput(__FILE__, __LINE__, "unexpected argument '" + arg + "'\n" + usage);
        }
    }
    examples::reject_repeated_flags(flags);
    if (!settings.matrix_file.empty() && settings.grid_size_given) {
        throw BadInput(__FILE__, __LINE__, "--size cannot be combined with the matrix file " + settings.matrix_file +
                                               ": it sizes the generated problem only");
    }
    return settings;
}

/// Median time in seconds of `repetitions` products x = A b after one warm-up product.
double time_spmv(const LinOp& matrix, const Vector& b, Vector& x, int repetitions)
{
    const auto& exec = matrix.get_executor();
    matrix.apply(b, x);
    std::vector<double> seconds;
    for (int i = 0; i < repetitions; ++i) {
        exec->synchronize();
        const auto start = std::chrono::steady_clock::now();
        matrix.apply(b, x);
        exec->synchronize();
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    return seconds[seconds.size() / 2];
}

/// A format passes when every entry of its product agrees with the reference executor's to this relative
/// difference. Formats and executors differ only in the order of each row's sum, whose rounding error is at
/// most (nonzeros in the row) * 2^-53 * (|A| |b|)_i: 1e-12 leaves room for rows of thousands of nonzeros.
constexpr double relative_tolerance = 1e-12;

/// max_i |x_i - ref_i| / (|A| |b|)_i: the difference relative to the magnitude of the terms summed in row i
/// (0 for a row whose terms are all zero), so it reads the same for entries around 1 and around 1e8.
double max_relative_difference(const std::vector<double>& x, const std::vector<double>& reference,
                               const std::vector<double>& magnitude)
{
    double difference = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double absolute = std::abs(x[i] - reference[i]);
        const double term = magnitude[i] > 0 ? absolute / magnitude[i] : absolute;
        // std::max(difference, NaN) is difference: a format that returns NaN must fail, not pass
        difference = std::isnan(term) ? term : std::max(difference, term);
    }
    return difference;
}

}  // namespace

int main(int argc, char** argv)
try {
    const auto settings = parse_arguments(argc, argv);
    if (settings.help) {
        std::cout << usage;
        return 0;
    }
    const auto exec = make_executor(settings.executor);
    const auto reference = make_executor("reference");

    const auto data = settings.matrix_file.empty()
                          ? generate::laplace_3d<double>(settings.grid_size)
                          : io::read_matrix_market_data<double>(settings.matrix_file);
    const auto rows = data.size.rows;
    const auto nonzeros = data.entries.size();
    std::printf("matrix: %s, %zu x %zu, %zu nonzeros; executor: %s\n",
                settings.matrix_file.empty()
                    ? ("3D Laplacian, " + std::to_string(settings.grid_size) + "^3 grid").c_str()
                    : settings.matrix_file.c_str(),
                rows, data.size.cols, nonzeros, exec->get_name().c_str());

    // The oracle: the sequential reference executor's CSR product with b = (1, 1, ..., 1).
    const std::vector<double> ones(data.size.cols, 1.0);
    const auto b_reference = Vector::create(
        reference, dim2{data.size.cols, 1}, array<double>{reference, ones.begin(), ones.end()}, 1);
    auto x_reference = Vector::create(reference, dim2{rows, 1});
    Csr::create(reference, data)->apply(b_reference, x_reference);
    const auto expected = x_reference->copy_to_host();
    std::vector<double> magnitude(rows, 0.0);  // (|A| |b|)_i with b = 1
    for (const auto& entry : data.entries) {
        magnitude[entry.row] += std::abs(entry.value);
    }

    auto b = b_reference->clone_dense(exec);
    auto x = Vector::create(exec, dim2{rows, 1});
    // Bytes of one product: the format's arrays, b and x once each (ELL counts its padding).
    auto csr = Csr::create(exec, data);
    auto csr_vendor = Csr::create(exec, data);
    csr->set_spmv_algorithm(matrix::CsrSpmvAlgorithm::larch);
    csr_vendor->set_spmv_algorithm(matrix::CsrSpmvAlgorithm::vendor);
    auto coo = matrix::Coo<double>::create(exec, data);
    auto ell = matrix::Ell<double>::create(exec, data);
    const double vectors = 8.0 * static_cast<double>(rows + data.size.cols);
    struct Format {
        std::string name;
        const LinOp* matrix;
        double bytes;
    };
    std::vector<Format> formats{
        {"csr", csr.get(), 12.0 * nonzeros + 4.0 * (rows + 1) + vectors},
        {"coo", coo.get(), 16.0 * nonzeros + vectors},
        {"ell", ell.get(), 12.0 * ell->get_num_stored_elements() + vectors}};
    if (dynamic_cast<const CudaExecutor*>(exec.get())) {
        formats.insert(formats.begin() + 1,
                       Format{"csr (cuSPARSE)", csr_vendor.get(), formats.front().bytes});
    }

    std::printf("\nx = A b with b = 1, compared with the reference executor's CSR product: relative difference\n"
                "max_i |x_i - ref_i| / (|A| |b|)_i, pass when <= %.0e\n",
                relative_tolerance);
    std::printf("\n%-16s %12s %10s %10s %14s %6s\n", "format", "time [ms]", "GFLOP/s", "GB/s", "rel. diff",
                "check");
    bool all_pass = true;
    for (const auto& format : formats) {
        const double seconds = time_spmv(*format.matrix, *b, *x, settings.repetitions);
        const double difference = max_relative_difference(x->copy_to_host(), expected, magnitude);
        const bool pass = difference <= relative_tolerance;
        all_pass = all_pass && pass;
        std::printf("%-16s %12.4f %10.2f %10.2f %14.3e %6s\n", format.name.c_str(), 1e3 * seconds,
                    2.0 * nonzeros / seconds / 1e9, format.bytes / seconds / 1e9, difference,
                    pass ? "pass" : "FAIL");
    }
    return all_pass ? 0 : 1;
} catch (const std::exception& error) {
    std::cerr << "demo: " << error.what() << std::endl;
    return 1;
}
