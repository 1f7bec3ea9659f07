#pragma once
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// Ordered: R^K -> strictly increasing vectors (the `ordered` support), Stan's transform (Stan
/// Reference Manual, "Ordered vector"): y_1 = x_1, y_k = y_(k-1) + exp(x_k) for k = 2..K. The
/// Jacobian is lower triangular with diagonal (1, exp(x_2), ..., exp(x_K)), so
/// log|det J| = x_2 + ... + x_K. Inverse: x_1 = y_1, x_k = log(y_k - y_(k-1)). K >= 1 (K = 1 is the
/// identity). The default bijector of Constraint::ordered(), e.g. for the cut points of an ordinal
/// regression (Stan's `ordered[K] c; c ~ normal(0, 5);`):
///
///   auto c = variate::Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(0.0, 5.0),
///                                                               Shape{3}),
///                                Constraint::ordered(), "c");
class Ordered final : public Bijector {
 public:
  const char* name() const override { return "Ordered"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  int forward_event_ndims() const override { return 1; }
  Constraint forward_image(const Constraint& domain) const override;
};

/// PositiveOrdered: R^K -> positive, strictly increasing vectors (the `positive_ordered` support),
/// Stan's transform (Stan Reference Manual, "Positive ordered vector"): y_1 = exp(x_1),
/// y_k = y_(k-1) + exp(x_k), i.e. y = cumsum(exp(x)); log|det J| = x_1 + ... + x_K. Inverse:
/// x_1 = log y_1, x_k = log(y_k - y_(k-1)). K >= 1. The default bijector of
/// Constraint::positive_ordered(), e.g. for increasing rates or event times:
///
///   auto t = variate::Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Exponential>(1.0),
///                                                               Shape{3}),
///                                Constraint::positive_ordered(), "t");
class PositiveOrdered final : public Bijector {
 public:
  const char* name() const override { return "PositiveOrdered"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  int forward_event_ndims() const override { return 1; }
  Constraint forward_image(const Constraint& domain) const override;
};

}  // namespace variate::dist
