// Per-item status of batched factorizations: finding failed items and throwing on request.
#include "larch/batch/status.hpp"

namespace larch {
namespace batch {

namespace {

std::vector<size_type> failed_items(const std::vector<std::int32_t>& host)
{
    std::vector<size_type> failed;
    for (size_type item = 0; item < host.size(); ++item) {
        if (host[item] != 0) {
            failed.push_back(item);
        }
    }
    return failed;
}

}  // namespace

std::vector<size_type> find_failed_items(const array<std::int32_t>& info)
{
    return failed_items(info.copy_to_host());
}

void throw_if_any_failed(const array<std::int32_t>& info, const std::string& context)
{
    const auto host = info.copy_to_host();
    auto failed = failed_items(host);
    if (failed.empty()) {
        return;
    }
    constexpr size_type max_listed = 10;
    std::string message = context + ": " + std::to_string(failed.size()) + " of " +
                          std::to_string(host.size()) +
                          " items are singular or numerically singular (item: failing step):";
    for (size_type i = 0; i < failed.size() && i < max_listed; ++i) {
        message += " " + std::to_string(failed[i]) + ": " + std::to_string(host[failed[i]]);
    }
    if (failed.size() > max_listed) {
        message += " ...";
    }
    throw SingularItems(__FILE__, __LINE__, message, std::move(failed));
}

}  // namespace batch
}  // namespace larch
