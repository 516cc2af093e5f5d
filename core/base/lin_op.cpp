// Dimension and executor checks that every LinOp::apply passes before any kernel runs.
#include "larch/base/lin_op.hpp"

namespace larch {

void LinOp::validate_apply(const char* operation, const LinOp& b, const LinOp& x) const
{
    const auto name = get_type_name() + "::" + operation;
    if (b.get_size().rows != size_.cols) {
        LARCH_THROW(DimensionMismatch, name + ": b (" + b.get_type_name() + ", " +
                                           to_string(b.get_size()) + ") has " +
                                           std::to_string(b.get_size().rows) +
                                           " rows but the operator (" + to_string(size_) +
                                           ") has " + std::to_string(size_.cols) + " columns");
    }
    if (x.get_size().rows != size_.rows || x.get_size().cols != b.get_size().cols) {
        LARCH_THROW(DimensionMismatch,
                    name + ": x (" + x.get_type_name() + ", " + to_string(x.get_size()) +
                        ") must be " + std::to_string(size_.rows) + "x" +
                        std::to_string(b.get_size().cols) + " for the operator (" +
                        to_string(size_) + ") and b (" + to_string(b.get_size()) + ")");
    }
    for (const LinOp* operand : {&b, &x}) {
        if (!exec_->memory_accessible(*operand->get_executor())) {
            LARCH_THROW(NotSupported, name + ": operand on executor " +
                                          operand->get_executor()->get_name() +
                                          " but the operator lives on " + exec_->get_name() +
                                          "; copy it there first (clone_to)");
        }
    }
}

void LinOp::apply(ptr_param<const LinOp> b, ptr_param<LinOp> x) const
{
    validate_apply("apply", *b, *x);
    apply_impl(*b, *x);
}

void LinOp::apply(double alpha, ptr_param<const LinOp> b, double beta, ptr_param<LinOp> x) const
{
    validate_apply("apply", *b, *x);
    apply_impl(alpha, *b, beta, *x);
}

}  // namespace larch
