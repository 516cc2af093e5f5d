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
LARCH_HOST_DEVICE T enlarged(T omega, T cosine, T kappa)
{
    return cosine < kappa ? omega * (kappa / cosine) : omega;
}

/// From the products t^T s, t^T t and s^T s.
template <typename T>
LARCH_HOST_DEVICE T safeguarded(T t_s, T t_t, T s_s, T kappa)
{
    return enlarged(t_s / t_t, std::abs(t_s) / (std::sqrt(t_t) * std::sqrt(s_s)), kappa);
}

/// From t^T s and the norms ||t||, ||s|| (computed as scaled sums, so finite and nonzero where their
/// squares are not): t^T t underflows to a subnormal or 0 below ||t|| = 1e-154 in double, which made
/// omega inaccurate and then infinite as a residual fell that far (IDR on a matrix scaled by 1e-160).
template <typename T>
LARCH_HOST_DEVICE T safeguarded_from_norms(T t_s, T t_norm, T s_norm, T kappa)
{
    return enlarged(t_s / t_norm / t_norm, std::abs(t_s) / t_norm / s_norm, kappa);
}

}  // namespace bicgstab_omega
}  // namespace larch
