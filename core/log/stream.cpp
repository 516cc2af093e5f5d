// The stream logger: one progress line every k iterations and one per finished column.
#include "larch/log/stream.hpp"

#include <sstream>
#include <string>

#include "larch/base/exception.hpp"

namespace larch {
namespace log {

std::shared_ptr<Stream> Stream::create(std::ostream& stream, size_type every)
{
    LARCH_ENSURE(every >= 1, BadInput, "log::Stream::create: every must be >= 1 (print every k-th iteration)");
    return std::shared_ptr<Stream>(new Stream(stream, every));
}

void Stream::on_iteration(size_type column, size_type iteration, double residual_norm)
{
    if (iteration % every_ != 0) {
        return;
    }
    std::ostringstream line;
    line.precision(4);
    line << std::scientific << "column " << column << " iteration " << iteration << ": residual "
         << residual_norm << '\n';
    std::lock_guard<std::mutex> guard{mutex_};
    stream_ << line.str() << std::flush;
}

void Stream::on_column_end(size_type column, const stop::Status& status, double seconds)
{
    std::ostringstream line;
    line.precision(3);
    line << "column " << column << " " << stop::to_string(status.reason) << " after " << status.iterations
         << (status.iterations == 1 ? " iteration" : " iterations") << ": true residual " << std::scientific << status.residual_norm << " (" << status.message
         << "), " << std::defaultfloat << seconds << " s\n";
    std::lock_guard<std::mutex> guard{mutex_};
    stream_ << line.str() << std::flush;
}

void Stream::on_preconditioner(const PreconditionerReport& report)
{
    const auto line = describe_fallbacks(report);
    if (line.empty()) {
        return;
    }
    std::lock_guard<std::mutex> guard{mutex_};
    stream_ << line << "\n" << std::flush;
}

}  // namespace log
}  // namespace larch
