// Bad input to the distributed module fails on every process with a clear exception, and no process is left
// waiting: mismatched partitions, a vector of another partition, a process passing another size, column
// count (to an apply, a vector reduction or a global vector) or root, a row a process does not own, an
// unreadable file, a file of another size than the partition, a null executor on one process, a partition
// over another communicator, bad partition ranges. (A hang would end at the ctest timeout.)
#include <gtest/gtest.h>

#include <cmath>

#include "larch/distributed/matrix.hpp"
#include "larch/distributed/vector.hpp"
#include "larch/generate/problems.hpp"
#include "larch/solver/cg.hpp"
#include "test/distributed/distributed_test_utils.hpp"

namespace larch {
namespace test {
namespace {

using Dense = matrix::Dense<double>;
using Vector = distributed::Vector<double>;
using Matrix = distributed::Matrix<double>;

const size_type n = 12;

/// After an error thrown on every process, nothing was left half-done: the next collective operation (the
/// norm of a vector of ones) works on every process.
void expect_next_collective_works(std::shared_ptr<const Executor> exec,
                                  std::shared_ptr<const distributed::Partition> partition)
{
    const auto ok = Vector::create(exec, partition, 1);
    ok->fill(1.0);
    EXPECT_DOUBLE_EQ(ok->compute_norm2()[0], std::sqrt(static_cast<double>(n)));
}

/// Two columns on the last process and one elsewhere: operands consistent on each process whose column
/// counts differ between processes.
size_type columns_differing_on_the_last_process()
{
    const auto comm = world();
    return comm->rank() == comm->size() - 1 ? 2 : 1;
}

std::shared_ptr<const Matrix> laplace(std::shared_ptr<const distributed::Partition> partition)
{
    return share(Matrix::create_from_global(make_executor("reference"), partition,
                                            generate::tridiagonal<double, std::int32_t>(n)));
}

TEST(DistributedErrors, MatrixApplyToAVectorOfAnotherPartitionThrowsEverywhere)
{
    if (world()->size() == 1) {
        GTEST_SKIP() << "one process has a single partition of 12 rows";
    }
    const auto exec = make_executor("reference");
    const auto matrix = laplace(make_partition(PartitionKind::uniform, n));
    const auto other = make_partition(PartitionKind::uneven, n);
    const auto b = Vector::create(exec, other, 1);
    b->fill(1.0);
    auto x = Vector::create(exec, other, 1);
    std::string message;
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>([&] { matrix->apply(b, x); }, &message));
    EXPECT_NE(message.find("rows"), std::string::npos) << message;
    // A solver on the matrix refuses it the same way, on every process.
    const auto solver = solver::Cg<double>::build().with_criteria(stop::max_iterations(10)).on(exec)->generate(matrix);
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>([&] { solver->apply(b, x); }));
    expect_next_collective_works(exec, matrix->get_partition());
}

TEST(DistributedErrors, DotOfVectorsOfDifferentPartitionsThrowsEverywhere)
{
    if (world()->size() == 1) {
        GTEST_SKIP() << "one process has a single partition of 12 rows";
    }
    const auto exec = make_executor("reference");
    const auto a = Vector::create(exec, make_partition(PartitionKind::uniform, n), 1);
    const auto b = Vector::create(exec, make_partition(PartitionKind::first_empty, n), 1);
    a->fill(1.0);
    b->fill(1.0);
    EXPECT_TRUE(throws_everywhere<BadInput>([&] { a->compute_dot(*b); }));
}

TEST(DistributedErrors, AProcessPassingAnotherSizeThrowsEverywhere)
{
    const auto comm = world();
    const auto last = comm->rank() == comm->size() - 1;
    // A uniform partition of another number of rows on the last process (needs a second process).
    if (comm->size() > 1) {
        std::string message;
        EXPECT_TRUE(throws_everywhere<BadInput>(
            [&] { distributed::Partition::create_uniform(comm, last ? n + 1 : n); }, &message));
        // The message names both sizes, not only that they differ.
        EXPECT_NE(message.find("process " + std::to_string(comm->size() - 1) + " passed " + std::to_string(n + 1) +
                               " but process 0 " + std::to_string(n)),
                  std::string::npos)
            << message;
    }
    // With one process too: matrix data or a vector of another size than the partition's.
    // Matrix data of another size on the last process.
    const auto partition = make_partition(PartitionKind::uniform, n);
    const auto data = generate::tridiagonal<double, std::int32_t>(last ? n + 1 : n);
    matrix_data<double> mine{data.size};
    for (const auto& e : data.entries) {
        if (partition->get_owner(static_cast<size_type>(e.row)) == comm->rank()) {
            mine.entries.push_back(e);
        }
    }
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>(
        [&] { Matrix::create_from_local(make_executor("reference"), partition, mine); }));
    // A global vector of another length on the last process.
    const auto global = Dense::create(make_executor("reference"), std::vector<double>(last ? n - 1 : n, 1.0));
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>(
        [&] { Vector::create_from_global(make_executor("reference"), partition, *global); }));
}

TEST(DistributedErrors, ARowTheProcessDoesNotOwnThrowsEverywhere)
{
    const auto comm = world();
    const auto partition = make_partition(PartitionKind::uniform, n);
    matrix_data<double> mine{dim2{n, n}};
    // Process 0 also passes the last row, which another process owns (with one process: a column outside).
    if (comm->rank() == 0) {
        mine.entries.push_back({static_cast<std::int32_t>(comm->size() > 1 ? n - 1 : 0),
                                static_cast<std::int32_t>(comm->size() > 1 ? 0 : n), 1.0});
    }
    std::string message;
    EXPECT_TRUE(throws_everywhere<BadInput>(
        [&] { Matrix::create_from_local(make_executor("reference"), partition, mine); }, &message));
    EXPECT_NE(message.find(comm->size() > 1 ? "does not own" : "outside"), std::string::npos) << message;
}

TEST(DistributedErrors, BadRootDataAndUnreadableFileThrowEverywhere)
{
    const auto comm = world();
    const auto partition = make_partition(PartitionKind::uneven, n);
    // The root's data is not square: every process learns it.
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>([&] {
        Matrix::create_from_global(make_executor("reference"), partition, matrix_data<double>{dim2{n, n + 1}});
    }));
    std::string message;
    EXPECT_TRUE(throws_everywhere<BadInput>(
        [&] { Matrix::read_matrix_market(make_executor("reference"), comm, "/nonexistent/larch.mtx"); }, &message));
    EXPECT_NE(message.find("larch.mtx"), std::string::npos) << message;
}

TEST(DistributedErrors, RootsThatDifferBetweenProcessesThrowEverywhere)
{
    const auto comm = world();
    const auto exec = make_executor("reference");
    const auto partition = make_partition(PartitionKind::uniform, n);
    const auto data = generate::tridiagonal<double, std::int32_t>(n);
    // A root that is no process, passed by every process alike.
    std::string message;
    EXPECT_TRUE(throws_everywhere<BadInput>(
        [&] { Matrix::create_from_global(exec, partition, data, comm->size()); }, &message));
    EXPECT_NE(message.find("root " + std::to_string(comm->size())), std::string::npos) << message;
    if (comm->size() == 1) {
        return;
    }
    // Each process names itself the root: process 0 would scatter to processes that wait for another root.
    EXPECT_TRUE(
        throws_everywhere<BadInput>([&] { Matrix::create_from_global(exec, partition, data, comm->rank()); }, &message));
    EXPECT_NE(message.find("process 1 passed root 1 but process 0 root 0"), std::string::npos) << message;
    // Nothing was left half-done: the same root on every process builds the matrix.
    const auto matrix = Matrix::create_from_global(exec, partition, data, comm->size() - 1);
    EXPECT_EQ(matrix->get_partition()->get_global_rows(), n);
}

TEST(DistributedErrors, AColumnCountThatDiffersBetweenProcessesThrowsEverywhere)
{
    const auto comm = world();
    if (comm->size() == 1) {
        GTEST_SKIP() << "one process has no other process to differ from";
    }
    const auto exec = make_executor("reference");
    const auto matrix = laplace(make_partition(PartitionKind::uniform, n));
    const size_type columns = columns_differing_on_the_last_process();
    const auto b = Vector::create(exec, matrix->get_partition(), columns);
    b->fill(1.0);
    auto x = Vector::create(exec, matrix->get_partition(), columns);
    std::string message;
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>([&] { matrix->apply(b, x); }, &message));
    EXPECT_NE(message.find("columns"), std::string::npos) << message;
    // A solver on the matrix refuses it the same way, on every process.
    const auto solver = solver::Cg<double>::build().with_criteria(stop::max_iterations(10)).on(exec)->generate(matrix);
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>([&] { solver->apply(b, x); }));
    expect_next_collective_works(exec, matrix->get_partition());
}

TEST(DistributedErrors, VectorReductionsWithAColumnCountThatDiffersBetweenProcessesThrowEverywhere)
{
    const auto comm = world();
    if (comm->size() == 1) {
        GTEST_SKIP() << "one process has no other process to differ from";
    }
    const auto exec = make_executor("reference");
    const auto partition = make_partition(PartitionKind::uneven, n);
    const size_type columns = columns_differing_on_the_last_process();
    const auto a = Vector::create(exec, partition, columns);
    a->fill(1.0);
    const auto b = Vector::create(exec, partition, columns);
    b->fill(2.0);
    std::string message;
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>([&] { a->compute_norm2(); }, &message));
    EXPECT_NE(message.find("2 columns on process " + std::to_string(comm->size() - 1)), std::string::npos)
        << message;
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>([&] { a->compute_dot(*b); }, &message));
    EXPECT_NE(message.find("compute_dot"), std::string::npos) << message;
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>([&] { a->gather_global(exec); }, &message));
    EXPECT_NE(message.find("gather_global"), std::string::npos) << message;
    expect_next_collective_works(exec, partition);
}

TEST(DistributedErrors, AGlobalVectorWithAColumnCountThatDiffersBetweenProcessesThrowsEverywhere)
{
    const auto comm = world();
    if (comm->size() == 1) {
        GTEST_SKIP() << "one process has no other process to differ from";
    }
    const auto exec = make_executor("reference");
    const auto partition = make_partition(PartitionKind::uneven, n);
    const size_type columns = columns_differing_on_the_last_process();
    const auto global = Dense::create(exec, dim2{n, columns}, std::vector<double>(n * columns, 1.0));
    std::string message;
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>(
        [&] { Vector::create_from_global(exec, partition, *global); }, &message));
    EXPECT_NE(message.find("create_from_global"), std::string::npos) << message;
    EXPECT_NE(message.find("2 columns on process " + std::to_string(comm->size() - 1) + " but 1 on process 0"),
              std::string::npos)
        << message;
    // Nothing was left half-done: the same column count on every process builds the vector.
    const auto ok = Vector::create_from_global(exec, partition, *Dense::create(exec, std::vector<double>(n, 1.0)));
    EXPECT_DOUBLE_EQ(ok->compute_norm2()[0], std::sqrt(static_cast<double>(n)));
}

TEST(DistributedErrors, ReadingWithAPartitionOverAnotherCommunicatorThrowsEverywhere)
{
    const auto comm = world();
    const auto path = matrix_path("bcsstk01");
    // bcsstk01 is among the small matrices every clone has (test/data/matrices): missing is a failure
    ASSERT_FALSE(path.empty()) << "bcsstk01.mtx is missing from " << LARCH_MATRICES_DIR;
    const auto exec = make_executor("reference");
    {
        // The same processes in the same order (a duplicate of the world): the file reads as usual.
        MPI_Comm duplicate{};
        MPI_Comm_dup(MPI_COMM_WORLD, &duplicate);
        {
            const auto partition = distributed::Partition::create_uniform(mpi::communicator::create(duplicate), 48);
            EXPECT_EQ(Matrix::read_matrix_market(exec, comm, path, partition)->get_partition()->get_global_rows(),
                      48u);
        }
        MPI_Comm_free(&duplicate);
    }
    if (comm->size() == 1) {
        return;
    }
    // The world in reverse order: process 0 of the partition's communicator is not the one that read.
    MPI_Comm reversed{};
    MPI_Comm_split(MPI_COMM_WORLD, 0, comm->size() - comm->rank(), &reversed);
    {
        const auto partition = distributed::Partition::create_uniform(mpi::communicator::create(reversed), 48);
        std::string message;
        EXPECT_TRUE(throws_everywhere<BadInput>([&] { Matrix::read_matrix_market(exec, comm, path, partition); },
                                                &message));
        EXPECT_NE(message.find("another communicator"), std::string::npos) << message;
    }
    MPI_Comm_free(&reversed);
}

TEST(DistributedErrors, ReadingAFileWhoseRowsDifferFromThePartitionNamesTheFileEverywhere)
{
    const auto comm = world();
    const auto path = matrix_path("bcsstk01");
    // bcsstk01 is among the small matrices every clone has (test/data/matrices): missing is a failure
    ASSERT_FALSE(path.empty()) << "bcsstk01.mtx is missing from " << LARCH_MATRICES_DIR;
    // bcsstk01 has 48 rows; the partition 40.
    const auto partition = distributed::Partition::create_uniform(comm, 40);
    std::string message;
    EXPECT_TRUE(throws_everywhere<DimensionMismatch>(
        [&] { Matrix::read_matrix_market(make_executor("reference"), comm, path, partition); }, &message));
    EXPECT_NE(message.find("bcsstk01.mtx has 48 rows but the partition 40"), std::string::npos) << message;
}

TEST(DistributedErrors, ANullExecutorOnOneProcessThrowsEverywhere)
{
    const auto comm = world();
    const auto partition = make_partition(PartitionKind::uniform, n);
    const auto exec = comm->rank() == comm->size() - 1 ? nullptr : make_executor("reference");
    std::string message;
    EXPECT_TRUE(throws_everywhere<BadInput>(
        [&] { Matrix::create_from_global(exec, partition, generate::tridiagonal<double, std::int32_t>(n)); },
        &message));
    EXPECT_NE(message.find("the executor is null"), std::string::npos) << message;
    expect_next_collective_works(make_executor("reference"), partition);
}

TEST(DistributedErrors, BadPartitionRangesThrowEverywhere)
{
    const auto comm = world();
    const auto size = static_cast<size_type>(comm->size());
    // Too few offsets.
    EXPECT_TRUE(throws_everywhere<BadInput>(
        [&] { distributed::Partition::create_from_ranges(comm, std::vector<size_type>(size, 0)); }));
    // Not starting at 0.
    std::vector<size_type> shifted(size + 1, 5);
    EXPECT_TRUE(throws_everywhere<BadInput>([&] { distributed::Partition::create_from_ranges(comm, shifted); }));
    // Decreasing on one process only.
    std::vector<size_type> decreasing(size + 1, 5);
    decreasing.front() = 0;
    if (comm->rank() == 0) {
        decreasing.back() = 4;
    }
    if (size > 1) {
        EXPECT_TRUE(throws_everywhere<BadInput>([&] { distributed::Partition::create_from_ranges(comm, decreasing); }));
    }
    // Valid offsets that differ on the last process.
    std::vector<size_type> offsets(size + 1);
    for (size_type p = 0; p <= size; ++p) {
        offsets[p] = p * 3 + (comm->rank() == comm->size() - 1 && p == size ? 1 : 0);
    }
    if (comm->size() > 1) {
        std::string message;
        EXPECT_TRUE(throws_everywhere<BadInput>([&] { distributed::Partition::create_from_ranges(comm, offsets); },
                                                &message));
        EXPECT_NE(message.find("passed value " + std::to_string(size) + " = " + std::to_string(size * 3 + 1) +
                               " but process 0 " + std::to_string(size * 3)),
                  std::string::npos)
            << message;
    }
}

}  // namespace
}  // namespace test
}  // namespace larch
