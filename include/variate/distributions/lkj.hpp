#pragma once
#include <cstdint>

#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// LKJ(dimension d, concentration eta) over d x d correlation matrices Omega (event shape [d, d],
/// batch shape = eta's shape; Lewandowski, Kurowicka & Joe 2009; Stan Functions Reference, "LKJ
/// correlation distribution"):
///   log p(Omega) = (eta - 1) log det(Omega) - log c_d(eta),
/// a density over the strictly lower entries, with LKJCholesky's normalizer c_d(eta) (LKJ 2009,
/// eq. 16). log det(Omega) = 2 sum_i log L_ii through the Cholesky factor L. Values that are not
/// correlation matrices (asymmetric, a diagonal entry off 1, not positive definite) get -inf.
/// Samples are L L^T with L an LKJCholesky draw (the onion method), differentiable in eta through
/// its beta draws. Each off-diagonal entry has the marginal Beta(eta - 1 + d/2, eta - 1 + d/2) on
/// (-1, 1): mean 0 and variance 1 / (2 eta + d - 1). The default bijector is CorrMatrix.
class LKJ final : public Distribution {
 public:
  LKJ(std::int64_t dimension, Tensor concentration);

  const char* name() const override { return "LKJ"; }
  std::int64_t dimension() const { return event_shape()[0]; }
  const Tensor& concentration() const { return concentration_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::corr_matrix(); }
  /// The identity, and 1 / (2 eta + d - 1) off the diagonal (0 on it).
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  Tensor concentration_;
};

}  // namespace variate::dist
