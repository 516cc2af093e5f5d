// BiCGSTAB's omega with the safeguard of Sleijpen and van der Vorst (1995), the one rule of the
// single-system BiCGSTAB (bicgstab_step_rules.hpp), the batched one (core/batch/solver/
// krylov_item_algorithms.hpp) and IDR(s)'s omega step (core/solver/idr_step_rules.hpp).
#pragma once

#include <cmath>

#include "core/base/host_device.hpp"

namespace larch {
namespace bicgstab_omega {

/// omega = t^T s / t^T t minimizes ||s - omega t||. Where |cos(t, s)| is below kappa it is enlarged to
/// kappa / |cos| times that ("maintaining the convergence"): a tiny omega makes the next rho = r_hat^T r
/// lose its accuracy and the BiCG coefficients with it. kappa = 0 leaves omega alone.
template <typename T>
LARCH_HOST_DEVICE T safeguarded(T t_s, T t_t, T s_s, T kappa)
{
    const T omega = t_s / t_t;
    const T cosine = std::abs(t_s) / (std::sqrt(t_t) * std::sqrt(s_s));
    return cosine < kappa ? omega * (kappa / cosine) : omega;
}

}  // namespace bicgstab_omega
}  // namespace larch
