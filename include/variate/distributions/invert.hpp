#pragma once
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// Invert(b) swaps b's directions (TFP's Invert): forward is b.inverse, inverse is b.forward, and
/// the log determinants swap likewise. Invert(Exp) is the log transform.
class Invert final : public Bijector {
 public:
  explicit Invert(BijectorPtr bijector);
  const char* name() const override { return "Invert"; }
  const BijectorPtr& bijector() const { return bijector_; }

  Tensor forward(const Tensor& x) const override { return bijector_->inverse(x); }
  Tensor inverse(const Tensor& y) const override { return bijector_->forward(y); }
  Tensor forward_log_det_jacobian(const Tensor& x) const override { return bijector_->inverse_log_det_jacobian(x); }
  Tensor inverse_log_det_jacobian(const Tensor& y) const override { return bijector_->forward_log_det_jacobian(y); }
  int forward_event_ndims() const override { return bijector_->inverse_event_ndims(); }
  int inverse_event_ndims() const override { return bijector_->forward_event_ndims(); }
  Shape forward_shape(const Shape& x_shape) const override { return bijector_->inverse_shape(x_shape); }
  Shape inverse_shape(const Shape& y_shape) const override { return bijector_->forward_shape(y_shape); }
  /// The wrapped bijector's image of real maps back to real; other domains are not known.
  Constraint forward_image(const Constraint& domain) const override;

 private:
  BijectorPtr bijector_;
};

}  // namespace variate::dist
