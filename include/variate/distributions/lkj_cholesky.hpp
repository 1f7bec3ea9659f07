#pragma once
#include <cstdint>

#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// LKJCholesky(dimension d, concentration eta) over lower Cholesky factors L of d x d correlation
/// matrices (event shape [d, d], batch shape = eta's shape). It is the LKJ distribution
/// p(Omega) = det(Omega)^(eta - 1) / c_d(eta) pushed through Omega = L L^T (Lewandowski, Kurowicka
/// & Joe 2009; Stan Functions Reference, "LKJ Cholesky distribution"):
///   log p(L) = sum_{i=2}^{d} (d - i + 2 eta - 2) log L_ii - log c_d(eta),
/// a density over the strictly lower entries. With LKJ's eq. 16,
///   c_d(eta) = 2^(sum_{k=1}^{d-1} (2 eta - 2 + d - k)(d - k)) prod_{k=1}^{d-1} B(b_k, b_k)^(d - k),
///   b_k = eta + (d - k - 1) / 2,
/// which the duplication formula Gamma(2b) = 2^(2b - 1) Gamma(b) Gamma(b + 1/2) / sqrt(pi) turns into
/// the form evaluated here, free of the large cancelling powers of 2:
///   log c_d(eta) = sum_{j=1}^{d-1} j (log(pi) / 2 + lgamma(eta + (j - 1) / 2) - lgamma(eta + j / 2)).
/// Differentiable in L and eta. Samples use the onion method (LKJ 2009, section 3.2) written for the
/// Cholesky factor: row i (i = 1, ..., d - 1, from 0) is (sqrt(y) u, sqrt(1 - y), 0, ...) with
/// y ~ Beta(i / 2, eta + (d - 1 - i) / 2) and u uniform on the unit sphere in R^i. Each
/// off-diagonal correlation then has the marginal Beta(eta - 1 + d / 2, eta - 1 + d / 2) on
/// (-1, 1), with variance 1 / (2 eta + d - 1). Draws are differentiable in eta through the beta
/// draws' implicit reparameterization gradients.
class LKJCholesky final : public Distribution {
 public:
  LKJCholesky(std::int64_t dimension, Tensor concentration);

  const char* name() const override { return "LKJCholesky"; }
  std::int64_t dimension() const { return event_shape()[0]; }
  const Tensor& concentration() const { return concentration_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::corr_cholesky(); }
  /// log c_d(eta), batch-shaped and differentiable in eta.
  Tensor log_normalizer() const;

 private:
  Tensor concentration_;
};

}  // namespace variate::dist
