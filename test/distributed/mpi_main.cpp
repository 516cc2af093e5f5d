// The main() of the distributed tests: GoogleTest inside MPI. Process 0 prints the usual report, every other
// process prints only its failures (prefixed with its rank); the exit status is the worst of all processes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {

class FailurePrinter : public ::testing::EmptyTestEventListener {
public:
    explicit FailurePrinter(int rank) : rank_{rank} {}

    void OnTestPartResult(const ::testing::TestPartResult& result) override
    {
        if (result.failed()) {
            std::printf("[process %d] %s:%d: failure\n%s\n", rank_, result.file_name() ? result.file_name() : "?",
                        result.line_number(), result.summary());
            std::fflush(stdout);
        }
    }

private:
    int rank_;
};

}  // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new FailurePrinter(rank));
    }
    const int result = RUN_ALL_TESTS();
    int worst = 0;
    MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
