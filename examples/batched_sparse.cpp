// batched_sparse: a batch of sparse matrices of different sizes and patterns (batch::Csr), applied to a batch
// of vectors and checked item by item against matrix::Csr; then a batch read from Matrix Market files.
// The README's batched sparse example is an excerpt of this program.
//
// Usage: batched_sparse [executor] [matrix folder]   (exits 1 if an item's product is wrong)
#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <larch/base/executor.hpp>
#include <larch/batch/csr.hpp>
#include <larch/batch/ell.hpp>
#include <larch/batch/vector.hpp>
#include <larch/generate/problems.hpp>
#include <larch/io/batch_matrix_market.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/matrix/dense.hpp>

// The default matrix folder: larch's test/data/matrices, whose path the build passes in, so that the program finds it
// from any working directory (relative to the working directory where it is built without that definition).
#ifndef LARCH_EXAMPLE_MATRIX_DIR
#define LARCH_EXAMPLE_MATRIX_DIR "test/data/matrices"
#endif

namespace {

/// Three items: 2D Laplacians on 3x3 and 5x5 grids, and the tridiagonal matrix of order 4.
std::vector<larch::matrix_data<double>> three_items()
{
    return {larch::generate::laplace_2d<double>(3), larch::generate::laplace_2d<double>(5),
            larch::generate::tridiagonal<double>(4)};
}

}  // namespace

int main(int argc, char** argv)
try {
    const char* const usage = "usage: batched_sparse [executor] [matrix folder]   (defaults: the best executor of "
                              "this machine, " LARCH_EXAMPLE_MATRIX_DIR "; exits 1 if an item's product is wrong)\n";
    // --help anywhere, as in the other programs; any other word starting with '-' is no executor or folder
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << usage;
            return 0;
        }
        if (arg.rfind("-", 0) == 0) {
            std::cerr << "batched_sparse: unknown option '" << arg << "'\n" << usage;
            return 2;
        }
    }
    if (argc > 3) {
        std::cerr << "batched_sparse: unexpected argument '" << argv[3] << "'\n" << usage;
        return 2;
    }
    const auto exec = larch::make_executor(argc > 1 ? argv[1] : larch::best_available_executor_name());
    const std::string folder = argc > 2 ? argv[2] : LARCH_EXAMPLE_MATRIX_DIR;
    const std::vector<larch::size_type> item_rows{9, 25, 4};
    const auto item_cols = item_rows;
    std::vector<double> b_values;
    for (larch::size_type i = 0; i < 38; ++i) {
        b_values.push_back(1.0 + 0.1 * double(i));
    }
    const std::vector<std::string> paths{folder + "/nos4.mtx", folder + "/bcsstk01.mtx"};
    for (const auto& path : paths) {
        if (!std::ifstream{path}) {
            std::cerr << "batched_sparse: cannot open '" << path << "'; give the folder that holds nos4.mtx and "
                      << "bcsstk01.mtx (larch's test/data/matrices) as the second argument\n";
            return 2;
        }
    }

    // One item per matrix: any sizes, nonzero counts and patterns (a shared pattern is detected and stored once).
    std::vector<larch::matrix_data<double>> items = three_items();
    auto a = larch::batch::Csr<double>::create(exec, items);
    a->set_spmv_kernel(larch::batch::CsrSpmvKernel::automatic);  // or scalar, vector, smart, balanced, stream
    auto b = larch::batch::Vector<double>::create(exec, item_cols, 1, b_values);
    auto x = larch::batch::Vector<double>::create(exec, item_rows, 1);
    a->apply(*b, *x);                 // x_i = A_i b_i
    a->apply(2.0, *b, 1.0, *x);       // x_i = 2 A_i b_i + x_i
    auto from_files = larch::io::read_batch_matrix_market<larch::batch::Ell<double>>(paths, exec);

    // Each item against matrix::Csr on the reference executor: x_i = 3 A_i b_i.
    const auto reference = larch::make_executor("reference");
    int wrong = 0;
    larch::size_type offset = 0;
    for (larch::size_type item = 0; item < items.size(); ++item) {
        const auto n = item_rows[item];
        const auto b_item = larch::matrix::Dense<double>::create(
            reference, std::vector<double>(b_values.begin() + offset, b_values.begin() + offset + n));
        auto expected = larch::matrix::Dense<double>::create(reference, larch::dim2{n, 1});
        larch::matrix::Csr<double>::create(reference, items[item])->apply(3.0, b_item, 0.0, expected);
        const auto got = x->copy_item_to_host(item);
        const auto want = expected->copy_to_host();
        double difference = 0;
        for (larch::size_type i = 0; i < n; ++i) {
            const double term = std::abs(got[i] - want[i]) / (1 + std::abs(want[i]));
            // std::max(difference, NaN) is difference: a NaN entry must fail the check, not vanish from it
            difference = std::isnan(term) ? term : std::max(difference, term);
        }
        wrong += difference <= 1e-14 ? 0 : 1;
        std::cout << "item " << item << " (" << n << " rows): relative difference to matrix::Csr " << difference
                  << "\n";
        offset += n;
    }
    std::cout << "read " << from_files->get_num_items() << " items from " << folder << "\n";
    return wrong == 0 && from_files->get_num_items() == 2 ? 0 : 1;
} catch (const std::exception& error) {
    // A bad executor name or a missing matrix folder: a message, not std::terminate.
    std::cerr << "batched_sparse: " << error.what() << "\n";
    return 2;
}
