// variable_batch: a batch of small dense matrices of different orders, inverted (Gauss-Jordan), conditioned
// (cond_inf of each item) and solved (Gauss-Huard) on one executor; one item is singular on purpose and is
// reported by index instead of stopping the batch. Checks every solved item against A_i x_i = b_i on the host.
//
// Usage: variable_batch [executor]   (exits 1 if a regular item is solved inaccurately, 2 on a bad argument)
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <larch/base/executor.hpp>
#include <larch/batch/cond_estimator.hpp>
#include <larch/batch/dense.hpp>
#include <larch/batch/gauss_huard.hpp>
#include <larch/batch/gauss_jordan.hpp>
#include <larch/batch/status.hpp>
#include <larch/batch/vector.hpp>

int main(int argc, char** argv)
try {
    // --help anywhere, as in the other programs; any other word starting with '-' is no executor
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << "usage: variable_batch [executor]   (default: the best of this machine; exits 1 if a "
                         "regular item is solved inaccurately, 2 on a bad argument)\n";
            return 0;
        }
        if (arg.rfind("-", 0) == 0) {
            std::cerr << "variable_batch: unknown option '" << arg << "' (the program takes an executor only)\n";
            return 2;
        }
    }
    if (argc > 2) {
        std::cerr << "variable_batch: unexpected argument '" << argv[2] << "' (the program takes an executor only)\n";
        return 2;
    }
    const auto exec = larch::make_executor(argc > 1 ? argv[1] : larch::best_available_executor_name());

    // Items of orders 1, 3, 7, 2 and 5, row-major and concatenated: a_ij = 1 / (i + j + 1) + (i == j) * n,
    // except item 3, [[1, 2], [2, 4]], which is singular.
    const std::vector<larch::size_type> orders{1, 3, 7, 2, 5};
    std::vector<larch::dim2> sizes;
    std::vector<double> values;
    for (larch::size_type item = 0; item < orders.size(); ++item) {
        const auto n = orders[item];
        sizes.push_back(larch::dim2{n});
        for (larch::size_type i = 0; i < n; ++i) {
            for (larch::size_type j = 0; j < n; ++j) {
                values.push_back(item == 3 ? double((i + 1) * (j + 1)) : 1.0 / double(i + j + 1) + (i == j) * double(n));
            }
        }
    }
    const auto a = larch::share(larch::batch::Dense<double>::create(exec, sizes, values));

    // Inversion: per item 0, or the elimination step that met a (near-)zero pivot.
    auto inverse = larch::batch::Dense<double>::create_with_layout_of(exec, *a);
    const auto info = larch::batch::invert(*a, *inverse);
    const auto singular = larch::batch::find_failed_items(info);

    // Condition numbers in the infinity norm, +inf for a singular item.
    const auto cond = larch::batch::CondEstimator<double>::build().on(exec)->generate(a);
    const auto numbers = cond->get_condition_numbers().copy_to_host();

    // Gauss-Huard solve of A_i x_i = b_i with b_i = (1, ..., 1).
    larch::size_type total_rows = 0;
    for (const auto n : orders) {
        total_rows += n;
    }
    const auto b = larch::batch::Vector<double>::create(exec, orders, 1, std::vector<double>(total_rows, 1.0));
    auto x = larch::batch::Vector<double>::create_with_layout_of(exec, *b);
    const auto gauss_huard = larch::batch::GaussHuard<double>::build().on(exec)->generate(a);
    gauss_huard->solve(*b, *x);

    int wrong = 0;
    larch::size_type offset = 0;
    for (larch::size_type item = 0; item < orders.size(); ++item) {
        const auto n = orders[item];
        const bool is_singular = std::find(singular.begin(), singular.end(), item) != singular.end();
        std::cout << "item " << item << " (" << n << "x" << n << "): cond_inf " << numbers[item];
        if (is_singular) {
            std::cout << ", singular: skipped\n";
        } else {
            // max_i |b_i - (A x)_i| relative to cond * eps: the accuracy a backward-stable solve promises
            const auto solution = x->copy_item_to_host(item);
            double residual = 0;
            for (larch::size_type i = 0; i < n; ++i) {
                double row = 1.0;
                for (larch::size_type j = 0; j < n; ++j) {
                    row -= values[offset + i * n + j] * solution[j];
                }
                // std::max(residual, NaN) is residual: a NaN solution must not read as accurate
                residual = std::isnan(row) ? row : std::max(residual, std::abs(row));
            }
            const bool accurate = residual <= 100 * n * 1e-16 * (1 + numbers[item]);
            wrong += accurate ? 0 : 1;
            std::cout << ", max |b - A x| = " << residual << (accurate ? "" : "  INACCURATE") << "\n";
        }
        offset += n * n;
    }
    std::cout << singular.size() << " singular item(s) reported by index: ";
    for (const auto item : singular) {
        std::cout << item << " ";
    }
    std::cout << "\n";
    const bool singular_found = singular.size() == 1 && singular[0] == 3 && std::isinf(numbers[3]);
    return wrong == 0 && singular_found ? 0 : 1;
} catch (const std::exception& error) {
    // A bad executor name: a message, not std::terminate.
    std::cerr << "variable_batch: " << error.what() << "\n";
    return 2;
}
