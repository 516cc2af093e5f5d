// Uses the installed larch package: builds a small CSR matrix, applies it, checks the result.
#include <cmath>
#include <iostream>

#include <larch/base/executor.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/matrix/dense.hpp>

int main()
{
    const auto exec = larch::make_executor("omp");
    // The 1D Laplacian [2 -1 0; -1 2 -1; 0 -1 2] times (1, 2, 3) is (0, 0, 4).
    larch::matrix_data<double> data{larch::dim2{3}};
    for (int i = 0; i < 3; ++i) {
        data.entries.push_back({i, i, 2.0});
        if (i > 0) {
            data.entries.push_back({i, i - 1, -1.0});
            data.entries.push_back({i - 1, i, -1.0});
        }
    }
    const auto matrix = larch::matrix::Csr<double>::create(exec, data);
    const auto b = larch::matrix::Dense<double>::create(exec, {{1.0}, {2.0}, {3.0}});
    auto x = larch::matrix::Dense<double>::create(exec, larch::dim2{3, 1});
    matrix->apply(b, x);
    const auto values = x->copy_to_host();
    const bool correct = values[0] == 0.0 && values[1] == 0.0 && values[2] == 4.0;
    std::cout << "installed larch: A b = (" << values[0] << ", " << values[1] << ", " << values[2]
              << ") " << (correct ? "as expected" : "WRONG, expected (0, 0, 4)") << std::endl;
    return correct ? 0 : 1;
}
