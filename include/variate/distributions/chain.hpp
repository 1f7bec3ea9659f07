#pragma once
#include <vector>

#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// Chain({b1, b2, ..., bn}) = b1 o b2 o ... o bn (TFP's order: bn is applied first), so
/// Chain({Shift(low), Exp}) maps x to low + exp(x). log|det J| is the sum of the parts' log
/// determinants at their own inputs; a part that acts on fewer trailing axes than the chain has
/// its log determinant summed over the extra ones (an element-wise Scale after StickBreaking adds
/// one log|scale| per simplex element). Chain({}) is the identity.
class Chain final : public Bijector {
 public:
  explicit Chain(std::vector<BijectorPtr> bijectors);
  const char* name() const override { return "Chain"; }
  const std::vector<BijectorPtr>& bijectors() const { return bijectors_; }

  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  int forward_event_ndims() const override { return forward_event_ndims_; }
  int inverse_event_ndims() const override { return inverse_event_ndims_; }
  Shape forward_shape(const Shape& x_shape) const override;
  Shape inverse_shape(const Shape& y_shape) const override;
  Constraint forward_image(const Constraint& domain) const override;

 private:
  std::vector<BijectorPtr> bijectors_;
  // The event rank of the input each part sees, in application order (bijectors_ reversed).
  std::vector<int> input_event_ndims_;
  int forward_event_ndims_ = 0, inverse_event_ndims_ = 0;
};

}  // namespace variate::dist
