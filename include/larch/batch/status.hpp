// Per-item status of batched factorizations (MAGMA-style info) and the helper that turns failures into
// an exception when the caller wants one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "larch/base/array.hpp"
#include "larch/base/exception.hpp"

namespace larch {
namespace batch {

/**
 * Thrown by throw_if_any_failed(): some items of a batch are singular or numerically singular.
 * A BadInput, so callers that treat all input errors alike catch it as such.
 */
class SingularItems : public BadInput {
public:
    SingularItems(const std::string& file, int line, const std::string& message,
                  std::vector<size_type> items)
        : BadInput(file, line, message), items_{std::move(items)}
    {}

    /// Indices of the failing items, ascending.
    const std::vector<size_type>& get_items() const noexcept { return items_; }

private:
    std::vector<size_type> items_;
};

/**
 * Indices of the items whose info entry is nonzero. `info` (on any executor) holds one entry per item:
 * 0 = success, k > 0 = elimination step k (1-based) met a pivot p with
 * !(|p| > max(n * eps * ||A_i||_inf, the smallest normal number of T)) (an exact zero, NaN, a pivot below
 * the rounding level of the item, or a subnormal one, whose reciprocal may overflow: the item is
 * numerically singular in precision T).
 */
std::vector<size_type> find_failed_items(const array<std::int32_t>& info);

/**
 * Throws SingularItems if any info entry is nonzero; the message starts with `context`, gives the
 * number of failing items and lists the first ones with their failing step.
 */
void throw_if_any_failed(const array<std::int32_t>& info, const std::string& context);

}  // namespace batch
}  // namespace larch
