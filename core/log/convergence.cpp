// The convergence logger: per-column residual histories, statuses and times of the last apply.
#include "larch/log/convergence.hpp"

#include <sstream>
#include <string>

#include "larch/base/exception.hpp"

namespace larch {
namespace log {

std::string describe_fallbacks(const PreconditionerReport& report)
{
    if (report.num_fallback_blocks == 0 && report.num_zero_diagonal_rows == 0) {
        return {};
    }
    std::ostringstream line;
    line << report.type << ": " << report.num_fallback_blocks << " of " << report.num_blocks
         << " blocks singular, applied as scalar Jacobi (after " << report.num_split_blocks << " splits); "
         << report.num_zero_diagonal_rows << " zero diagonal entries, their rows left unscaled";
    return line.str();
}

void Convergence::on_apply_begin(size_type num_columns)
{
    statuses_.assign(num_columns, stop::Status{});
    histories_.assign(num_columns, {});
    column_times_.assign(num_columns, 0.0);
    solve_time_ = 0;
}

void Convergence::on_iteration(size_type column, size_type iteration, double residual_norm)
{
    (void)iteration;
    if (record_history_ && column < histories_.size()) {
        histories_[column].push_back(residual_norm);
    }
    if (column < statuses_.size()) {
        statuses_[column].iterations = iteration;
    }
}

void Convergence::on_column_end(size_type column, const stop::Status& status, double seconds)
{
    if (column < statuses_.size()) {
        statuses_[column] = status;
        column_times_[column] = seconds;
    }
}

const stop::Status& Convergence::checked(size_type column) const
{
    LARCH_ENSURE(column < statuses_.size(), BadInput,
                 "log::Convergence: column " + std::to_string(column) + " requested but the last apply had " +
                     std::to_string(statuses_.size()) + " column(s)");
    return statuses_[column];
}

const std::vector<double>& Convergence::get_residual_norms(size_type column) const
{
    checked(column);
    return histories_[column];
}

double Convergence::get_column_time(size_type column) const
{
    checked(column);
    return column_times_[column];
}

}  // namespace log
}  // namespace larch
