#pragma once
#include <optional>

#include "variate/distributions/bijector.hpp"
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// TransformedDistribution(distribution, bijector) (TFP): Y = f(X) for X ~ distribution and f the
/// bijector's forward map;
///   log p(y) = log p_X(f^-1(y)) + log|det d f^-1 / dy|,
/// with the inverse log determinant summed over the event axes it does not already cover (an
/// element-wise Exp on a base with event shape [3] adds three terms). batch_shape is the base's,
/// event_shape = bijector.forward_shape(base event_shape); the bijector's parameters must broadcast
/// within the base's batch and event shape. The support is the bijector's image of the base's
/// support (Exp on a Normal gives positive), and values outside it have log density -inf. Draws
/// are f(draws of the base), reparameterized when the base's are.
class TransformedDistribution final : public Distribution {
 public:
  TransformedDistribution(DistributionPtr distribution, BijectorPtr bijector);
  const char* name() const override { return "TransformedDistribution"; }
  const DistributionPtr& distribution() const { return base_; }
  const BijectorPtr& bijector() const { return bijector_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  /// Throws when the bijector cannot name its image of the base's support.
  Constraint support() const override;

 private:
  /// The density formula itself, for values inside the image.
  Tensor log_prob_inside(const Tensor& y, int event) const;
  DistributionPtr base_;
  BijectorPtr bijector_;
  std::optional<Constraint> support_;
};

}  // namespace variate::dist
