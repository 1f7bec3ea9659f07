#pragma once
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// UnitVector: R^K \ {0} -> the unit sphere in R^K (the `unit_vector` support), Stan's transform
/// (Stan Reference Manual, "Unit vector"): y = x / |x|, K >= 2.
///
/// It is not a bijection: every ray {c x : c > 0} maps to one point, so there is no Jacobian
/// determinant. As Stan does, forward_log_det_jacobian returns -|x|^2 / 2 instead, the term that
/// inference adds to the log density. With it, the density on the unconstrained space is
/// p(x / |x|) exp(-|x|^2 / 2): in polar coordinates x = r y this factors into p(y) (with respect to
/// the sphere's surface measure) times r^(K-1) exp(-r^2 / 2), so y has exactly the density p while
/// the norm r, which the model does not see, has a proper chi distribution with K degrees of
/// freedom. Without the term the density would be constant along rays, improper in x, and the
/// sampler's norm would drift off to 0 or infinity. (The term is the standard normal's log density
/// up to a constant, so a flat p makes x standard normal, an easy space for HMC.)
///
/// inverse(y) = y, the point of the ray on the sphere, so inverse(forward(x)) == x only where
/// |x| = 1; inverse_log_det_jacobian(y) = |y|^2 / 2 = 1/2. forward(0) is NaN (a null set that
/// inference never visits: a sampler rejects a NaN density). The default bijector of
/// Constraint::unit_vector(), e.g. a direction uniform on the sphere (Stan's `unit_vector[3] u;`):
///
///   auto u = variate::ImproperUniform(Constraint::unit_vector(), "u", {3});
class UnitVector final : public Bijector {
 public:
  const char* name() const override { return "UnitVector"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  /// -|x|^2 / 2 summed over the last axis (not a log-determinant; see the class comment).
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  int forward_event_ndims() const override { return 1; }
  Constraint forward_image(const Constraint& domain) const override;
};

}  // namespace variate::dist
