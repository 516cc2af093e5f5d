// ProcessGroup's deterministic sums and norms, its agreement on bad input, and the ReductionScope through which
// Dense's reductions complete over a group, checked with a stand-in group whose other processes' contributions
// are fixed numbers (no MPI needed; the MPI tests are test/distributed/).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "larch/base/process_group.hpp"
#include "larch/matrix/dense.hpp"
#include "test/utils/executors.hpp"

namespace larch {
namespace {

/// This process is process 0 of 1 + others.size(); process p > 0 contributes others[p - 1] (one value per
/// gathered entry, the same for every entry) and, as a broadcast root, `message`.
class StandInGroup : public ProcessGroup {
public:
    StandInGroup(std::vector<double> others, std::string message = "")
        : others_{std::move(others)}, message_{std::move(message)}
    {}

    int get_process() const override { return 0; }
    int get_num_processes() const override { return static_cast<int>(others_.size()) + 1; }
    void allgather(const double* local, size_type count, double* all) const override
    {
        std::copy_n(local, count, all);
        for (size_type p = 0; p < others_.size(); ++p) {
            std::fill_n(all + (p + 1) * count, count, others_[p]);
        }
    }
    void broadcast(std::string& text, int root) const override
    {
        if (root != 0) {
            text = message_;
        }
    }

private:
    std::vector<double> others_;
    std::string message_;
};

TEST(ProcessGroup, SumsPartialResultsInProcessOrder)
{
    // (1e16 + 1) - 1e16 is 0 in double (the 1 is lost to rounding); another order would give 1. Every process
    // adds in this one order, so all get the same bits.
    StandInGroup group{{1.0, -1e16}};
    std::vector<double> values{1e16, 1e16};
    group.sum(values);
    EXPECT_EQ(values, (std::vector<double>{0.0, 0.0}));
}

TEST(ProcessGroup, CombinesNormsWithoutOverflowAndKeepsNaNAndInfinity)
{
    std::vector<double> norms{3e300};
    StandInGroup{{4e300}}.combine_norms(norms);
    EXPECT_DOUBLE_EQ(norms[0], 5e300);
    norms = {0.0};
    StandInGroup{{0.0, 0.0}}.combine_norms(norms);
    EXPECT_EQ(norms[0], 0.0);
    norms = {1.0};
    StandInGroup{{std::nan("")}}.combine_norms(norms);
    EXPECT_TRUE(std::isnan(norms[0]));
    norms = {1.0};
    StandInGroup{{std::numeric_limits<double>::infinity()}}.combine_norms(norms);
    EXPECT_EQ(norms[0], std::numeric_limits<double>::infinity());
}

TEST(ProcessGroup, BadInputOnAnotherProcessThrowsHereToo)
{
    // Process 1 reported kind 2 (BadInput) with its message; this process's check passed.
    StandInGroup group{{2.0}, "the data is 3x4"};
    try {
        group.check_on_every_process([] {});
        FAIL() << "no exception";
    } catch (const BadInput& e) {
        EXPECT_EQ(e.get_message(), "on process 1 of 2: the data is 3x4");
    }
    // This process's own failure comes back as it was thrown.
    StandInGroup passing{{0.0}};
    EXPECT_THROW(passing.check_on_every_process([] { LARCH_THROW(DimensionMismatch, "mine"); }), DimensionMismatch);
    EXPECT_NO_THROW(passing.check_on_every_process([] {}));
}

TEST(ReductionScope, CompletesDenseReductionsOverTheGroupAndNests)
{
    for (const auto& name : test::executor_names()) {
        LARCH_EXECUTOR_OR_SKIP(exec, name);
        const auto a = matrix::Dense<double>::create(exec, std::vector<double>{3.0, 0.0});
        const auto b = matrix::Dense<double>::create(exec, std::vector<double>{2.0, 5.0});
        StandInGroup group{{4.0}};
        {
            ReductionScope scope{&group};
            EXPECT_EQ(current_reduction_group(), &group);
            // Process 1 adds 4 to the dot product and has norm 4: ||(3, 0, 4)|| = 5.
            EXPECT_EQ(a->compute_dot(*b)[0], 10.0) << name;
            EXPECT_DOUBLE_EQ(a->compute_norm2()[0], 5.0) << name;
            {
                ReductionScope local{nullptr};
                EXPECT_EQ(a->compute_dot(*b)[0], 6.0) << name;
            }
            EXPECT_EQ(current_reduction_group(), &group);
        }
        EXPECT_EQ(current_reduction_group(), nullptr);
        EXPECT_EQ(a->compute_norm2()[0], 3.0) << name;
    }
}

}  // namespace
}  // namespace larch
