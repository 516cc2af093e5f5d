// distributed::Matrix and distributed::Vector against one process: SpMV (one and two columns, with and
// without alpha/beta), dot and norm, on generated and real matrices, every partition kind and each way of
// creating the matrix, on the reference and omp executors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "larch/distributed/matrix.hpp"
#include "larch/distributed/vector.hpp"
#include "larch/generate/problems.hpp"
#include "larch/io/matrix_market.hpp"
#include "test/distributed/distributed_test_utils.hpp"

namespace larch {
namespace test {
namespace {

using Csr = matrix::Csr<double>;
using Dense = matrix::Dense<double>;
using Vector = distributed::Vector<double>;
using Matrix = distributed::Matrix<double>;

enum class Creation { scatter, local_rows, matrix_market };

/// A global n x cols matrix of deterministic, varied values (the same on every process).
std::unique_ptr<Dense> global_vector(std::shared_ptr<const Executor> exec, size_type n, size_type cols, double shift)
{
    std::vector<double> values(n * cols);
    for (size_type i = 0; i < values.size(); ++i) {
        values[i] = std::sin(0.37 * static_cast<double>(i) + shift) + 0.1 * shift;
    }
    return Dense::create(exec, dim2{n, cols}, values);
}

std::unique_ptr<Matrix> create(Creation creation, std::shared_ptr<const Executor> exec,
                               std::shared_ptr<const distributed::Partition> partition,
                               const matrix_data<double>& data, const std::string& path)
{
    switch (creation) {
    case Creation::scatter:
        // Only the root's data counts: the others pass an empty set.
        return Matrix::create_from_global(exec, partition,
                                          partition->get_communicator()->rank() == 0 ? data : matrix_data<double>{});
    case Creation::local_rows: {
        matrix_data<double> mine{data.size};
        const auto begin = partition->get_local_begin();
        for (const auto& e : data.entries) {
            const auto row = static_cast<size_type>(e.row);
            if (row >= begin && row < begin + partition->get_local_rows()) {
                mine.entries.push_back(e);
            }
        }
        return Matrix::create_from_local(exec, partition, mine);
    }
    case Creation::matrix_market:
        return Matrix::read_matrix_market(exec, partition->get_communicator(), path, partition);
    }
    return nullptr;
}

/// x(i) of the distributed product against the single-process Csr product: the rows' sums are split into
/// a local and a non-local part, so each may differ by a few roundings of the row's sum of |a_ij b_j|
/// (64 eps covers rows of up to ~30 entries); with one process they are bitwise equal.
void expect_rows_match(const Dense& expected, const Dense& distributed_global, const Dense& magnitudes, int processes)
{
    const auto eps = std::numeric_limits<double>::epsilon();
    for (size_type i = 0; i < expected.get_size().rows; ++i) {
        for (size_type j = 0; j < expected.get_size().cols; ++j) {
            if (processes == 1) {
                ASSERT_EQ(distributed_global.at(i, j), expected.at(i, j)) << "row " << i << " col " << j;
            } else {
                ASSERT_NEAR(distributed_global.at(i, j), expected.at(i, j), 64 * eps * magnitudes.at(i, j))
                    << "row " << i << " col " << j;
            }
        }
    }
}

struct Problem {
    std::string name;
    matrix_data<double> data;
    std::string path;  // written for the Matrix Market creation
};

std::vector<Problem> problems()
{
    std::vector<Problem> result;
    result.push_back({"laplace_2d(9)", generate::laplace_2d<double, std::int32_t>(9), ""});
    result.push_back({"convection_diffusion_2d(8)", generate::convection_diffusion_2d<double, std::int32_t>(8, 0.7), ""});
    for (const std::string name : {"gre_115", "west0479", "494_bus"}) {
        const auto path = matrix_path(name);
        if (!path.empty()) {
            result.push_back({name, io::read_matrix_market_data<double, std::int32_t>(path), path});
        }
    }
    // The process count names the files: ctest starts the runs of 1..4 processes side by side, and a name
    // shared by all of them let one run read a file another was writing.
    const auto run_id = world()->size();
    for (auto& problem : result) {
        if (problem.path.empty()) {
            // Every process uses the same file name; process 0 writes it, the others wait.
            problem.path = ::testing::TempDir() + "larch_distributed_np" + std::to_string(run_id) + "_" +
                           std::to_string(&problem - result.data()) + ".mtx";
            if (world()->rank() == 0) {
                io::write_matrix_market(problem.path, problem.data);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    return result;
}

TEST(DistributedMatrix, AppliesAsTheSingleProcessCsrOnEveryPartitionAndCreation)
{
    const auto processes = world()->size();
    const auto host = make_executor("reference");
    for (const auto& exec : test_executors()) {
        for (const auto& problem : problems()) {
            const auto n = problem.data.size.rows;
            // The oracle: the same product by the whole Csr on one process (on the same executor), and the
            // product of the magnitudes (on the host) that bounds each row's rounding.
            const auto a = Csr::create(exec, problem.data);
            auto abs_data = problem.data;
            for (auto& e : abs_data.entries) {
                e.value = std::abs(e.value);
            }
            const auto abs_a = Csr::create(host, abs_data);
            const auto b = global_vector(host, n, 2, 0.5);
            const auto x0 = global_vector(host, n, 2, 1.5);
            auto abs_b = b->clone_dense(host);
            auto abs_x0 = x0->clone_dense(host);
            for (auto* d : {abs_b.get(), abs_x0.get()}) {
                for (size_type i = 0; i < n * 2; ++i) {
                    d->get_values()[i] = std::abs(d->get_values()[i]);
                }
            }
            auto expected = Dense::create(exec, dim2{n, 2});
            a->apply(b->clone_dense(exec), expected);
            auto magnitudes = Dense::create(host, dim2{n, 2});
            abs_a->apply(abs_b, magnitudes);
            // alpha A b + beta x0 with alpha = -0.5, beta = 2.
            auto expected_scaled = x0->clone_dense(exec);
            a->apply(-0.5, b->clone_dense(exec), 2.0, expected_scaled);
            auto magnitudes_scaled = abs_x0->clone_dense(host);
            abs_a->apply(0.5, abs_b, 2.0, magnitudes_scaled);
            for (const auto kind : partition_kinds()) {
                for (const auto creation : {Creation::scatter, Creation::local_rows, Creation::matrix_market}) {
                    SCOPED_TRACE(problem.name + ", " + exec->get_name() + ", " + to_string(kind) +
                                 " partition, creation " + std::to_string(static_cast<int>(creation)));
                    const auto partition = make_partition(kind, n);
                    const auto matrix = create(creation, exec, partition, problem.data, problem.path);
                    ASSERT_EQ(matrix->get_size(), (dim2{partition->get_local_rows(), partition->get_local_rows()}));
                    const auto local_b = Vector::create_from_global(exec, partition, *b);
                    auto local_x = Vector::create(exec, partition, 2);
                    matrix->apply(local_b, local_x);
                    expect_rows_match(*expected->clone_dense(host), *local_x->gather_global(host), *magnitudes,
                                      processes);
                    auto local_x0 = Vector::create_from_global(exec, partition, *x0);
                    matrix->apply(-0.5, local_b, 2.0, local_x0);
                    expect_rows_match(*expected_scaled->clone_dense(host), *local_x0->gather_global(host),
                                      *magnitudes_scaled, processes);
                }
            }
        }
    }
}

TEST(DistributedMatrix, SplitsRowsIntoLocalAndCompressedNonLocalBlocks)
{
    // Tridiagonal: every block boundary needs exactly the neighbouring rows' values.
    const auto exec = make_executor("reference");
    const size_type n = 10;
    const auto partition = make_partition(PartitionKind::uneven, n);
    const auto matrix = Matrix::create_from_global(exec, partition, generate::tridiagonal<double, std::int32_t>(n));
    const auto begin = partition->get_local_begin();
    const auto rows = partition->get_local_rows();
    std::vector<size_type> expected_ghosts;
    if (rows > 0 && begin > 0) {
        expected_ghosts.push_back(begin - 1);
    }
    if (rows > 0 && begin + rows < n) {
        expected_ghosts.push_back(begin + rows);
    }
    EXPECT_EQ(matrix->get_ghost_columns(), expected_ghosts);
    EXPECT_EQ(matrix->get_non_local_matrix()->get_size(), (dim2{rows, expected_ghosts.size()}));
    EXPECT_EQ(matrix->get_local_matrix()->get_size(), (dim2{rows, rows}));
    // Entries: the local block holds rows * 3 minus the ones cut off at the block's ends.
    const auto nonzeros = matrix->get_local_matrix()->get_num_stored_elements() + matrix->get_non_local_matrix()->get_num_stored_elements();
    const auto expected_nonzeros = rows == 0 ? 0 : 3 * rows - (begin == 0 ? 1 : 0) - (begin + rows == n ? 1 : 0);
    EXPECT_EQ(nonzeros, expected_nonzeros);
}

TEST(DistributedVector, DotAndNormGiveTheWholeVectorsValuesOnEveryProcess)
{
    const auto comm = world();
    const auto eps = std::numeric_limits<double>::epsilon();
    for (const auto& exec : test_executors()) {
        const auto executor = exec->get_name();
        const size_type n = 1000;
        const auto a = global_vector(exec, n, 3, 0.25);
        const auto b = global_vector(exec, n, 3, 2.0);
        const auto expected_dot = a->compute_dot(*b);
        const auto expected_norm = a->compute_norm2();
        for (const auto kind : partition_kinds()) {
            SCOPED_TRACE(executor + ", " + to_string(kind));
            const auto partition = make_partition(kind, n);
            const auto local_a = Vector::create_from_global(exec, partition, *a);
            const auto local_b = Vector::create_from_global(exec, partition, *b);
            const auto dot = local_a->compute_dot(*local_b);
            const auto norm = local_a->compute_norm2();
            // Another grouping of the same n products: at most about n eps of sum |a_i b_i| (<= ||a|| ||b||) apart;
            // with one process bitwise equal.
            for (size_type j = 0; j < 3; ++j) {
                const auto scale = expected_norm[j] * b->compute_norm2()[j];
                if (comm->size() == 1) {
                    EXPECT_EQ(dot[j], expected_dot[j]);
                    EXPECT_EQ(norm[j], expected_norm[j]);
                } else {
                    EXPECT_NEAR(dot[j], expected_dot[j], n * eps * scale);
                    EXPECT_NEAR(norm[j], expected_norm[j], n * eps * expected_norm[j]);
                }
                // The same bits on every process: the solvers' branches depend on it.
                double mine[2] = {dot[j], norm[j]};
                double all_max[2];
                double all_min[2];
                MPI_Allreduce(mine, all_max, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                MPI_Allreduce(mine, all_min, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
                EXPECT_EQ(all_max[0], all_min[0]);
                EXPECT_EQ(all_max[1], all_min[1]);
            }
        }
    }
}

TEST(DistributedVector, NormOfHugeEntriesDoesNotOverflow)
{
    const auto exec = make_executor("reference");
    const size_type n = 8;
    const auto partition = make_partition(PartitionKind::uniform, n);
    const auto global = Dense::create(exec, std::vector<double>(n, 1e300));
    const auto local = Vector::create_from_global(exec, partition, *global);
    EXPECT_NEAR(local->compute_norm2()[0], 1e300 * std::sqrt(8.0), 1e286);
}

TEST(Communicator, MapsEachProcessToItsExecutor)
{
    const auto comm = world();
    EXPECT_GE(comm->local_rank(), 0);
    EXPECT_LT(comm->local_rank(), comm->local_size());
    EXPECT_EQ(mpi::map_rank_to_executor(*comm, "omp"), "omp");
    if (!is_backend_built("cuda")) {
        EXPECT_THROW(mpi::map_rank_to_executor(*comm, "cuda"), BackendNotBuilt);
    } else if (CudaExecutor::get_num_devices() == 0) {
        EXPECT_THROW(mpi::map_rank_to_executor(*comm, "cuda"), DeviceNotFound);
    } else {
        EXPECT_EQ(mpi::map_rank_to_executor(*comm, "cuda"),
                  "cuda:" + std::to_string(comm->local_rank() % CudaExecutor::get_num_devices()));
    }
}

}  // namespace
}  // namespace test
}  // namespace larch
