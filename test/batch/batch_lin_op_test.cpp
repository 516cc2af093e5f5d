// BatchLinOp's checks for an operator written outside larch, which does not override get_item_sizes_id.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "larch/base/exception.hpp"
#include "larch/base/executor.hpp"
#include "larch/batch/batch_lin_op.hpp"
#include "larch/batch/vector.hpp"

namespace {

using larch::dim2;
using larch::size_type;

/// x_i = 2 b_i for square items whose sizes the test may change between applies, as a user's operator
/// backed by data of its own could.
class Doubling : public larch::batch::BatchLinOp<double> {
public:
    Doubling(std::shared_ptr<const larch::Executor> exec, std::vector<dim2> sizes)
        : BatchLinOp<double>{std::move(exec)}, sizes_{std::move(sizes)}
    {
    }
    void set_item_sizes(std::vector<dim2> sizes) { sizes_ = std::move(sizes); }
    size_type get_num_items() const override { return sizes_.size(); }
    const std::vector<dim2>& get_item_sizes() const override { return sizes_; }
    std::string get_type_name() const override { return "Doubling"; }

protected:
    void apply_impl(const larch::batch::Vector<double>& b, larch::batch::Vector<double>& x) const override
    {
        const auto count = b.get_layout().get_num_elements();
        for (size_type e = 0; e < count; ++e) {
            x.get_values()[e] = 2.0 * b.get_const_values()[e];
        }
    }

private:
    std::vector<dim2> sizes_;
};

TEST(BatchLinOpOfAUser, ChecksItemSizesOnEveryApplyWithoutALayoutIdOfItsOwn)
{
    const auto ref = larch::make_executor("reference");
    Doubling op{ref, {dim2{2, 2}, dim2{3, 3}}};
    auto b = larch::batch::Vector<double>::create(ref, {2, 3}, 1, {0.0, 1.0, 2.0, 3.0, 4.0});
    auto x = larch::batch::Vector<double>::create(ref, {2, 3}, 1);

    op.apply(*b, *x);
    EXPECT_EQ(x->get_values()[4], 8.0);
    // The same vectors after the operator's item 1 grew: without an id that changes with the sizes,
    // only a check on every apply can see it.
    op.set_item_sizes({dim2{2, 2}, dim2{4, 4}});
    EXPECT_THROW(op.apply(*b, *x), larch::DimensionMismatch);
}

}  // namespace
