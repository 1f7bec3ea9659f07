#pragma once
// Binary vectors whose elements are Bernoulli given the ones before them, with logits from an
// autoregressive Transformer: the Image Transformer's likelihood on binarized images (Parmar et
// al. 2018), the pixels in raster order.
#include "variate/distributions/distribution.hpp"
#include "variate/nn/autoregressive_transformer.hpp"

namespace variate::dist {

/// log p(x) = sum_t [x_t l_t - softplus(l_t)], l = network.logits(x), l_t a function of x_<t
/// alone, so that the terms are the conditionals log p(x_t | x_<t) and their sum is a normalized
/// log density over {0, 1}^T. Event shape (T), no batch shape; values (..., T) of the network's
/// dtype. Differentiable in the network's parameters (and in x through the logits). Samples are
/// ancestral, position by position with the network's cached decoding, position t drawn with the
/// t-th of T uniforms from the key; they carry no gradient (a discrete law).
class AutoregressiveBernoulli final : public Distribution {
 public:
  /// `network` must outlive the distribution.
  explicit AutoregressiveBernoulli(const nn::AutoregressiveTransformer& network);

  const char* name() const override { return "AutoregressiveBernoulli"; }
  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::boolean(); }
  /// The conditionals log p(x_t | x_<t) of each position, (..., T); log_prob is their sum.
  Tensor position_log_probs(const Tensor& value) const;

 private:
  const nn::AutoregressiveTransformer& network_;
};

}  // namespace variate::dist
