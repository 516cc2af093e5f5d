// batch_solve: a batch of small sparse systems of different sizes solved at once, each item converging on its
// own (batch::Bicgstab, Cg or Gmres); prints every item's status, iterations and true residual, then a
// summary. The items come from Matrix Market files or are generated (1D and 2D Laplacians of 8..300 rows).
// The README's batched solver example is an excerpt of this program.
//
// Usage: batch_solve [executor] [--solver bicgstab|cg|gmres] [--jacobi] [--tolerance t (0 < t < 1)]
//                    [--max-iterations n] (--generate N | file.mtx ...)
// Exits 1 on bad arguments, after a message naming the first of them; otherwise 0 (items that do not converge
// are reported, not errors).
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include <larch/base/executor.hpp>
#include <larch/batch/csr.hpp>
#include <larch/batch/solver/bicgstab.hpp>
#include <larch/batch/solver/cg.hpp>
#include <larch/batch/solver/gmres.hpp>
#include <larch/batch/vector.hpp>
#include <larch/generate/problems.hpp>
#include <larch/io/batch_matrix_market.hpp>

#include "flag_value.hpp"
#include "matrix_index.hpp"

namespace {

const char* const usage =
    "usage: batch_solve [executor] [--solver bicgstab|cg|gmres] [--jacobi] [--tolerance t (0 < t < 1)]\n"
    "                   [--max-iterations n] (--generate N | file.mtx ...)\n"
    "Each flag is given at most once.\n";

struct Options {
    std::string executor = larch::best_available_executor_name();
    std::string solver = "bicgstab";
    bool jacobi = false;
    double tolerance = 1e-10;
    larch::size_type max_iterations = 1000;
    larch::size_type generate = 0;
    std::vector<std::string> files;
};

/// `count` items: 1D Laplacians of 8..300 rows and 2D Laplacians on 3x3..17x17 grids, alternating.
std::vector<larch::matrix_data<double>> generated_items(larch::size_type count)
{
    std::mt19937 engine{42};
    std::uniform_int_distribution<larch::size_type> rows{8, 300};
    std::uniform_int_distribution<larch::size_type> grid{3, 17};
    std::vector<larch::matrix_data<double>> items;
    for (larch::size_type item = 0; item < count; ++item) {
        items.push_back(item % 2 == 0 ? larch::generate::tridiagonal<double>(rows(engine))
                                      : larch::generate::laplace_2d<double>(grid(engine)));
    }
    return items;
}

/**
 * Throws BadInput when `count` generated items would not fit the host's memory. They are built on the host one
 * after another, so an extra digit in --generate would otherwise fill the memory for minutes and end in a bare
 * std::bad_alloc, or in the process being killed where the kernel overcommits memory.
 */
void check_generated_items_fit(larch::size_type count)
{
    // about 500 stored entries per item on average (tridiagonals of 8..300 rows, 5-point grids of 3..17 points
    // a side), each held as a matrix_data entry and as a batch::Csr value and column index: a lower bound (the
    // vectors and the solver's workspace come on top; 20,000 items took 24 KB each), so no batch that fits is
    // refused
    constexpr double bytes_per_item =
        500.0 * (sizeof(larch::matrix_data<double>::entry) + sizeof(double) + sizeof(std::int32_t));
    const double needed = static_cast<double>(count) * bytes_per_item;
    const double available = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
    if (available > 0 && needed > available) {
        const auto gigabytes = [](double bytes) { return std::to_string(static_cast<long long>(bytes / 1e9)); };
        throw larch::BadInput(__FILE__, __LINE__,
                              "--generate " + std::to_string(count) + " needs about " + gigabytes(needed) +
                                  " GB for its items alone, more than the " + gigabytes(available) +
                                  " GB of memory of this machine");
    }
}

/// The batched solver of `options.solver` with the shared criteria (one tolerance for every item).
std::unique_ptr<larch::batch::BatchIterativeSolver<double>> make_solver(
    const Options& options, std::shared_ptr<const larch::Executor> exec,
    std::shared_ptr<const larch::batch::Csr<double>> a)
{
    const auto preconditioner =
        options.jacobi ? larch::batch::ItemPreconditioner::jacobi : larch::batch::ItemPreconditioner::none;
    if (options.solver == "cg") {
        return larch::batch::Cg<double>::build()
            .with_max_iterations(options.max_iterations)
            .with_tolerance(options.tolerance)
            .with_preconditioner(preconditioner)
            .on(exec)
            ->generate(a);
    }
    if (options.solver == "gmres") {
        return larch::batch::Gmres<double>::build()
            .with_krylov_dim(30)
            .with_max_iterations(options.max_iterations)
            .with_tolerance(options.tolerance)
            .with_preconditioner(preconditioner)
            .on(exec)
            ->generate(a);
    }
    // Each item stops on its own relative residual (with_item_tolerances: one tolerance per item).
    return larch::batch::Bicgstab<double>::build()
        .with_max_iterations(options.max_iterations)
        .with_tolerance(options.tolerance)
        .with_preconditioner(preconditioner)
        .on(exec)
        ->generate(a);
}

/// False, after a message naming the offending argument, if the arguments are not a valid command line.
bool parse(int argc, char** argv, Options& options)
try {
    std::vector<std::string> flags;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&] { return larch::examples::next_flag_value(argc, argv, i); };
        if (arg.rfind("--", 0) == 0) {
            flags.push_back(arg);
        }
        if (arg == "--solver") {
            options.solver = value();
            if (options.solver != "bicgstab" && options.solver != "cg" && options.solver != "gmres") {
                throw larch::BadInput(__FILE__, __LINE__,
                                      "--solver expects bicgstab, cg or gmres, got '" + options.solver + "'");
            }
        } else if (arg == "--jacobi") {
            options.jacobi = true;
        } else if (arg == "--tolerance") {
            options.tolerance = larch::examples::relative_tolerance_value(arg, value());
        } else if (arg == "--max-iterations") {
            options.max_iterations = larch::examples::flag_value<larch::size_type>(arg, value());
        } else if (arg == "--generate") {
            options.generate = larch::examples::flag_value<larch::size_type>(arg, value());
            check_generated_items_fit(options.generate);
        } else if (larch::examples::is_matrix_market_file_name(arg)) {
            options.files.push_back(arg);
        } else if (i == 1 && arg.rfind("-", 0) != 0) {
            options.executor = arg;
        } else {
            throw larch::BadInput(__FILE__, __LINE__,
                                  "unexpected argument '" + arg + "' (matrix files are named *.mtx)");
        }
    }
    larch::examples::reject_repeated_flags(flags);
    if ((options.generate > 0) == !options.files.empty()) {
        throw larch::BadInput(__FILE__, __LINE__,
                              "the items come from --generate N (N >= 1) or from .mtx files, one of the two");
    }
    return true;
} catch (const larch::BadInput& error) {
    std::cerr << "batch_solve: " << error.get_message() << "\n";
    return false;
}

}  // namespace

int main(int argc, char** argv)
{
    // --help anywhere, even after an argument that would be rejected, asks only for the usage
    for (int i = 1; i < argc; ++i) {
        if (std::string{argv[i]} == "--help" || std::string{argv[i]} == "-h") {
            std::cout << usage;
            return 0;
        }
    }
    Options options;
    if (!parse(argc, argv, options)) {
        std::cerr << usage;
        return 1;
    }
    try {
        const auto exec = larch::make_executor(options.executor);
        const auto& paths = options.files;

        // A batch of items of any sizes and patterns, from files or generated.
        std::shared_ptr<const larch::batch::Csr<double>> a =
            paths.empty() ? larch::batch::Csr<double>::create(exec, generated_items(options.generate))
                          : larch::io::read_batch_matrix_market<larch::batch::Csr<double>>(paths, exec);
        std::vector<larch::size_type> rows;
        for (larch::size_type item = 0; item < a->get_num_items(); ++item) {
            const auto size = a->get_item_size(item);
            // the solver would name the item by its index only
            if (size.rows != size.cols) {
                const std::string source = paths.empty() ? "" : " (" + paths[item] + ")";
                throw larch::BadInput(__FILE__, __LINE__,
                                      "item " + std::to_string(item) + source + " is " + larch::to_string(size) +
                                          "; the batched solvers take square items only");
            }
            rows.push_back(size.rows);
        }
        auto b = larch::batch::Vector<double>::create(exec, rows);
        b->fill(1.0);
        auto x = larch::batch::Vector<double>::create(exec, rows);
        x->fill(0.0);  // the initial guess

        auto solver = make_solver(options, exec, a);
        const auto start = std::chrono::steady_clock::now();
        solver->apply(*b, *x);  // every item on its own: finished items stop working
        const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const auto result = solver->get_result();
        for (larch::size_type item = 0; item < result.get_num_items(); ++item) {
            const std::string source = paths.empty() ? "" : paths[item] + ", ";
            std::cout << "item " << item << " (" << source << rows[item] << " rows): "
                      << larch::batch::to_string(result.get_status(item)) << " after "
                      << result.get_iterations(item) << " iterations, true residual "
                      << result.get_residual_norm(item) << " (threshold " << result.get_threshold(item) << ")\n";
        }
        std::cout << solver->get_type_name() << " on " << exec->get_name() << ": " << result.get_num_items()
                  << " items in " << seconds << " s; converged " << result.count(larch::batch::ItemStatus::converged)
                  << ", max_iterations " << result.count(larch::batch::ItemStatus::max_iterations) << ", breakdown "
                  << result.count(larch::batch::ItemStatus::breakdown) << ", non_finite "
                  << result.count(larch::batch::ItemStatus::non_finite) << ", residual_gap "
                  << result.count(larch::batch::ItemStatus::residual_gap) << "; most iterations "
                  << result.get_max_iterations() << "\n";
    } catch (const std::exception& error) {
        std::cerr << "batch_solve: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
