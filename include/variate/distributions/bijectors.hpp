#pragma once
// Element-wise bijectors (TFP names): each maps every element on its own, so log|det J| is the sum
// of log|dy/dx| per element and forward_log_det_jacobian returns one term per element (x's shape
// broadcast with the parameters'). Log determinants are analytic and written in the forms that stay
// finite for large |x| (log_sigmoid, softplus). Parameters are converted to the input's dtype, so an
// f32 model stays f32.
//
// The vector bijectors live in stick_breaking.hpp, ordered.hpp, unit_vector.hpp, lower_cholesky.hpp
// and corr_cholesky.hpp, the trainable flows (nn modules) in masked_autoregressive_flow.hpp,
// inverse_autoregressive_flow.hpp and real_nvp_coupling.hpp, composition in chain.hpp and
// invert.hpp, and the support-to-bijector registry in default_bijector.hpp.
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// y = x; log|det J| = 0.
class Identity final : public Bijector {
 public:
  const char* name() const override { return "Identity"; }
  Tensor forward(const Tensor& x) const override { return x; }
  Tensor inverse(const Tensor& y) const override { return y; }
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  Constraint forward_image(const Constraint& domain) const override { return domain; }
};

/// y = exp(x), onto (0, inf); log|dy/dx| = x, log|dx/dy| = -log(y). Stan's transform for positive
/// parameters (Stan Reference Manual, "Lower bounded scalar").
class Exp final : public Bijector {
 public:
  const char* name() const override { return "Exp"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  Constraint forward_image(const Constraint& domain) const override;
};

/// y = softplus(x) = log(1 + exp(x)), onto (0, inf); x = y + log(-expm1(-y)) (exact for small y
/// and for large y); log|dy/dx| = log_sigmoid(x), log|dx/dy| = -log(-expm1(-y)).
class Softplus final : public Bijector {
 public:
  const char* name() const override { return "Softplus"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  Constraint forward_image(const Constraint& domain) const override;
};

/// y = sigmoid(x) = 1 / (1 + exp(-x)), onto (0, 1); x = log(y) - log1p(-y);
/// log|dy/dx| = log_sigmoid(x) + log_sigmoid(-x), log|dx/dy| = -log(y) - log1p(-y).
/// Stan's transform for parameters in (0, 1) (Stan Reference Manual, "Lower and upper bounded
/// scalar").
class Sigmoid final : public Bijector {
 public:
  const char* name() const override { return "Sigmoid"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  Constraint forward_image(const Constraint& domain) const override;
};

/// y = low + (high - low) sigmoid(x), onto (low, high) (TFP's Sigmoid(low, high); Stan Reference
/// Manual, "Lower and upper bounded scalar"); x = log(y - low) - log(high - y);
/// log|dy/dx| = log(high - low) + log_sigmoid(x) + log_sigmoid(-x),
/// log|dx/dy| = log(high - low) - log(y - low) - log(high - y).
/// `low` < `high` element-wise; both may be tensors with gradients that broadcast against x.
class Interval final : public Bijector {
 public:
  Interval(Tensor low, Tensor high);
  const char* name() const override { return "Interval"; }
  const Tensor& low() const { return low_; }
  const Tensor& high() const { return high_; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  Constraint forward_image(const Constraint& domain) const override;

 private:
  Tensor low_, high_;
};

/// y = x + shift; log|det J| = 0. Maps positive to greater_than(shift), so Chain({Shift(low), Exp})
/// is the bijector onto (low, inf).
class Shift final : public Bijector {
 public:
  explicit Shift(Tensor shift);
  const char* name() const override { return "Shift"; }
  const Tensor& shift() const { return shift_; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  Constraint forward_image(const Constraint& domain) const override;

 private:
  Tensor shift_;
};

/// y = x * scale with scale != 0; log|dy/dx| = log|scale|.
class Scale final : public Bijector {
 public:
  explicit Scale(Tensor scale);
  const char* name() const override { return "Scale"; }
  const Tensor& scale() const { return scale_; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  /// Real maps to real for any scale; bounded supports only for a positive scale (a negative one
  /// would swap the bounds element by element).
  Constraint forward_image(const Constraint& domain) const override;

 private:
  Tensor scale_;
};

/// y = offset + multiplier * x with multiplier > 0: Stan's affine transform for
/// `real<offset=mu, multiplier=tau>` (Stan Reference Manual, "Affinely transformed real");
/// x = (y - offset) / multiplier; log|dy/dx| = log(multiplier). As the unconstraining bijector of a
/// site (Reparameterized) it declares the non-centered parameterization of a hierarchical model
/// while the model keeps its centered form: with theta ~ Normal(mu, tau) the sampler sees
/// x = (theta - mu) / tau, standard normal a priori whatever mu and tau are. offset and multiplier
/// may be other sites' values (tensors with gradients that broadcast against x): inference
/// rebuilds the bijector from them at every evaluation. Eight schools, non-centered by declaration:
///
///   auto mu = variate::Normal(0.0, 5.0, "mu");
///   auto tau = variate::HalfCauchy(0.0, 5.0, "tau");
///   auto theta = variate::WithOffsetMultiplier(std::make_shared<dist::Normal>(mu, tau), mu, tau, "theta", {8});
///
/// (Shift and Scale chained give the same map; this one checks Stan's conditions, a finite offset
/// and a positive multiplier, naming them.)
class OffsetMultiplier final : public Bijector {
 public:
  OffsetMultiplier(Tensor offset, Tensor multiplier);
  const char* name() const override { return "OffsetMultiplier"; }
  const Tensor& offset() const { return offset_; }
  const Tensor& multiplier() const { return multiplier_; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  /// Real onto real.
  Constraint forward_image(const Constraint& domain) const override;

 private:
  Tensor offset_, multiplier_;
};

/// y = tanh(x), onto (-1, 1); x = atanh(y) = (log1p(y) - log1p(-y)) / 2;
/// log|dy/dx| = log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2 x)),
/// log|dx/dy| = -log1p(y) - log1p(-y).
class Tanh final : public Bijector {
 public:
  const char* name() const override { return "Tanh"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  Constraint forward_image(const Constraint& domain) const override;
};

}  // namespace variate::dist
