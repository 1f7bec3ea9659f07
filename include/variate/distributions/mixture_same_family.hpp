#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// MixtureSameFamily(mixture_logits, components_distribution) (TFP; the mixture distribution is
/// given by its Categorical logits): K components of one family, held as the last batch axis of
/// `components_distribution`, mixed with weights softmax(mixture_logits) over the last axis:
///   log p(x) = logsumexp_k( log_softmax(mixture_logits)_k + log p_k(x) ).
/// mixture_logits has shape (..., K) (entries may be -inf: a component that is never chosen);
/// components_distribution has batch shape (..., K). batch_shape is the broadcast of both leading
/// shapes, event_shape the components'. Draws pick a component per batch element
/// (random::categorical) and take that component's draw, so they are differentiable in the
/// components' parameters but not in the logits (as in TFP).
class MixtureSameFamily final : public Distribution {
 public:
  MixtureSameFamily(Tensor mixture_logits, DistributionPtr components_distribution);
  const char* name() const override { return "MixtureSameFamily"; }
  const Tensor& mixture_logits() const { return logits_; }
  const DistributionPtr& components_distribution() const { return components_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return components_->support(); }
  /// sum_k w_k mean_k.
  Tensor mean() const override;
  /// The law of total variance: sum_k w_k (variance_k + (mean_k - mean)^2), element-wise.
  Tensor variance() const override;

 private:
  // softmax(logits) shaped to multiply the components' batch + event shaped moments.
  Tensor weights() const;
  // sum over the component axis of a (..., K) + event shaped tensor.
  Tensor sum_components(const Tensor& x) const;

  Tensor logits_;
  DistributionPtr components_;
};

}  // namespace variate::dist
