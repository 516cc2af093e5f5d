// json_solver_config: a solver described in JSON, then the mistakes people make in such files. Each
// malformed description is rejected when it is read, with a BadInput naming the JSON path of the field.
//
// Usage: json_solver_config [executor]   (exits 1 if a malformed description is accepted)
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <larch/base/executor.hpp>
#include <larch/config/solver_config.hpp>
#include <larch/generate/problems.hpp>
#include <larch/matrix/csr.hpp>
#include <larch/matrix/dense.hpp>
#include <larch/solver/residual.hpp>

int main(int argc, char** argv)
try {
    if (argc > 1 && (std::string{argv[1]} == "--help" || std::string{argv[1]} == "-h")) {
        std::cout << "usage: json_solver_config [executor]   (default: omp; exits 1 if a malformed description is "
                     "accepted)\n";
        return 0;
    }
    const auto exec = larch::make_executor(argc > 1 ? argv[1] : "omp");
    const auto A = larch::share(larch::matrix::Csr<double>::create(exec, larch::generate::laplace_2d<double>(16)));
    const auto b = larch::matrix::Dense<double>::create(exec, std::vector<double>(256, 1.0));
    auto x = larch::matrix::Dense<double>::create(exec, std::vector<double>(256, 0.0));

    const auto solver = larch::config::parse_solver_config<double>(R"({
        "type": "gmres", "restart": 30,
        "criteria": {"max_iterations": 1000, "relative_residual": 1e-10},
        "preconditioner": {"type": "block_jacobi", "max_block_size": 1},
        "monitor": {"every": 10}
    })", exec)->generate(A);
    solver->apply(b, x);
    std::cout << "gmres: " << larch::stop::to_string(solver->get_status().reason) << ", ||b - Ax|| = "
              << larch::residual_norm<double>(A, b, x) << "\n\n";

    // Each malformed description, and the part of the message that must name what is wrong.
    const std::vector<std::pair<std::string, std::string>> malformed{
        {R"({"type": "cg", "criteria": {"max_iterations": 100, "relative_residual": 1e400}})",
         "/criteria/relative_residual: malformed JSON"},
        {R"({"type": "cg", "criteria": {"max_iterations": 100, "max_iterations": 200}})",
         "/criteria/max_iterations: duplicate key"},
        {R"({"type": "cg", "criteria": {"max_iterations": "100"}})", "/criteria/max_iterations: expected"},
        {R"({"type": "cg", "criteria": {"max_iterations": -5}})", "/criteria/max_iterations: expected"},
        {R"({"type": "idr", "kappa": 1.5, "criteria": {"max_iterations": 100}})", "/kappa: expected a number in"},
        {R"({"type": "cg", "criteria": {"max_iterations": 100, "tolerance": 1e-9}})",
         "/criteria/tolerance: unknown field"},
        {R"({"type": "cg", "criteria": {"relative_residual": 1e-9}})", "/criteria: needs \"max_iterations\""},
        {R"({"type": "minres", "criteria": {"max_iterations": 100}})", "/type: unknown solver"},
        {R"({"type": "cg", "monitor": {"every": 0}})", "/monitor/every: expected an integer >= 1"},
        {R"({"type": "cg", "criteria": {"max_iterations": 100},
             "preconditioner": {"type": "block_jacobi", "max_block_size": 0}})",
         "/preconditioner/max_block_size: expected an integer >= 1"},
        {R"({"type": "cg", "criteria": {"max_iterations": 100},)", "malformed JSON"},
    };
    int accepted = 0;
    for (const auto& [text, expected] : malformed) {
        std::cout << text << "\n";
        try {
            larch::config::parse_solver_config<double>(text, exec);
            std::cout << "  ACCEPTED (it should not be)\n";
            ++accepted;
        } catch (const larch::BadInput& error) {
            const std::string message = error.what();
            const bool names_it = message.find(expected) != std::string::npos;
            std::cout << "  -> " << message << (names_it ? "" : "\n  (expected it to say: " + expected + ")")
                      << "\n";
            accepted += names_it ? 0 : 1;
        }
    }
    std::cout << (accepted == 0 ? "every malformed description was rejected with its field path\n"
                                : "SOME MALFORMED DESCRIPTIONS WERE NOT REJECTED AS EXPECTED\n");
    return accepted == 0 ? 0 : 1;
} catch (const std::exception& error) {
    // A bad executor name or a missing matrix folder: a message, not std::terminate.
    std::cerr << "json_solver_config: " << error.what() << "\n";
    return 2;
}
