// Dimension, aliasing and executor checks that every LinOp::apply passes before any kernel runs.
#include "larch/base/lin_op.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "larch/base/process_group.hpp"

namespace larch {
namespace {

/// Whether two strided regions share a byte. Regions with one stride (column views of one matrix) overlap
/// when their column ranges do, modulo the stride; any other pair when their bounding ranges do.
bool spans_overlap(const LinOp::memory_span& a, const LinOp::memory_span& b)
{
    if (!a.first || !b.first || a.rows == 0 || b.rows == 0 || a.row_bytes == 0 || b.row_bytes == 0) {
        return false;
    }
    const auto begin_a = reinterpret_cast<std::uintptr_t>(a.first);
    const auto begin_b = reinterpret_cast<std::uintptr_t>(b.first);
    const auto end_a = begin_a + (a.rows - 1) * a.stride_bytes + a.row_bytes;
    const auto end_b = begin_b + (b.rows - 1) * b.stride_bytes + b.row_bytes;
    if (end_a <= begin_b || end_b <= begin_a) {
        return false;
    }
    if (a.stride_bytes != b.stride_bytes || a.stride_bytes == 0 || a.row_bytes + b.row_bytes > a.stride_bytes) {
        return true;
    }
    const auto stride = a.stride_bytes;
    // b's runs start `offset` bytes after a's within each stride period
    const auto offset = (begin_b >= begin_a ? begin_b - begin_a : stride - (begin_a - begin_b) % stride) % stride;
    return offset < a.row_bytes || offset + b.row_bytes > stride;
}

}  // namespace

void LinOp::validate_apply(const char* operation, const LinOp& b, const LinOp& x) const
{
    // Built only when a check fails: apply runs this on every call, inside solver iterations.
    const auto name = [&] { return get_type_name() + "::" + operation; };
    if (b.get_size().rows != size_.cols) {
        LARCH_THROW(DimensionMismatch, name() + ": b (" + b.get_type_name() + ", " +
                                           to_string(b.get_size()) + ") has " +
                                           std::to_string(b.get_size().rows) +
                                           " rows but the operator (" + to_string(size_) +
                                           ") has " + std::to_string(size_.cols) + " columns");
    }
    if (x.get_size().rows != size_.rows || x.get_size().cols != b.get_size().cols) {
        LARCH_THROW(DimensionMismatch,
                    name() + ": x (" + x.get_type_name() + ", " + to_string(x.get_size()) +
                        ") must be " + std::to_string(size_.rows) + "x" +
                        std::to_string(b.get_size().cols) + " for the operator (" +
                        to_string(size_) + ") and b (" + to_string(b.get_size()) + ")");
    }
    const auto overlap = [](const LinOp& first, const LinOp& second) {
        return &first == &second || spans_overlap(first.get_memory_span(), second.get_memory_span());
    };
    if (overlap(b, x)) {
        LARCH_THROW(BadInput, name() + ": x shares memory with b (apply(b, b) or views of one matrix); "
                                     "no operator computes in place, pass a separate x");
    }
    if (overlap(*this, x)) {
        LARCH_THROW(BadInput, name() + ": x shares memory with the operator itself; pass a separate x");
    }
    for (const LinOp* operand : {&b, &x}) {
        if (!exec_->memory_accessible(*operand->get_executor())) {
            LARCH_THROW(NotSupported, name() + ": operand on executor " +
                                          operand->get_executor()->get_name() +
                                          " but the operator lives on " + exec_->get_name() +
                                          "; copy it there first (clone_to)");
        }
    }
}

void LinOp::check_operands(ptr_param<const LinOp> b, ptr_param<LinOp> x) const
{
    LARCH_ENSURE(b.get() && x.get(), BadInput, get_type_name() + "::apply: " + (b.get() ? "x" : "b") + " is null");
    const auto group = get_apply_group();
    // Inside a solve over the same group (its ReductionScope) the operands are the solver's own vectors,
    // whose sizes the solver's apply already checked together: no collective per matrix apply.
    if (!group || group == current_reduction_group()) {
        validate_apply("apply", *b, *x);
        return;
    }
    // Each process checks its own operands; the column count must also agree between processes, or the
    // halo messages and the reductions of the apply would carry different counts on different processes.
    const auto columns = static_cast<double>(b->get_size().cols);
    std::vector<double> all_columns(static_cast<size_type>(group->get_num_processes()));
    group->allgather(&columns, 1, all_columns.data());
    group->check_on_every_process([&] {
        validate_apply("apply", *b, *x);
        if (columns != all_columns.front()) {
            LARCH_THROW(DimensionMismatch, get_type_name() + "::apply: b has " + std::to_string(b->get_size().cols) +
                                               " columns on this process but " +
                                               std::to_string(static_cast<size_type>(all_columns.front())) +
                                               " on process 0 (every process passes the same number of columns)");
        }
    });
}

void LinOp::apply(ptr_param<const LinOp> b, ptr_param<LinOp> x) const
{
    check_operands(b, x);
    apply_impl(*b, *x);
}

void LinOp::apply(double alpha, ptr_param<const LinOp> b, double beta, ptr_param<LinOp> x) const
{
    check_operands(b, x);
    apply_impl(alpha, *b, beta, *x);
}

}  // namespace larch
