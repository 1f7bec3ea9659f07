#pragma once
#include "variate/distributions/bijector.hpp"
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Reparameterized(base, bijector): the distribution `base` (its density, draws, support, shapes)
/// whose site inference unconstrains through `bijector` instead of the default bijector of the
/// base's support (TFP's `experimental_default_event_space_bijector` override, NumPyro's
/// TransformReparam / LocScaleReparam, Stan's `<offset=, multiplier=>` declarations). The model
/// and its density do not change, only the coordinates the sampler moves in, with the bijector's
/// log|det J| added by inference (dist::unconstraining_bijector).
///
/// `bijector` must map R^n onto the base's support: its forward_image(real) must be that support
/// (same kind, same bounds), and it must act on no more trailing axes than the base's event spans
/// (a vector bijector on a batch of scalars would tie independent batch members together; wrap the
/// base in Independent or Sample first). Its parameters may be other sites' values. Non-centering
/// eight schools by declaration (see also variate::WithOffsetMultiplier):
///
///   auto mu = variate::Normal(0.0, 5.0, "mu");
///   auto tau = variate::HalfCauchy(0.0, 5.0, "tau");
///   auto theta = variate::Reparameterized(std::make_shared<dist::Normal>(mu, tau),
///                                         std::make_shared<dist::OffsetMultiplier>(mu, tau), "theta", {8});
///
/// Throws naming Reparameterized and the bijector when the image differs from the support, or is
/// not known (a user-written bijector must override Bijector::forward_image).
class Reparameterized final : public Distribution {
 public:
  Reparameterized(DistributionPtr base, BijectorPtr bijector);
  const char* name() const override { return "Reparameterized"; }
  const DistributionPtr& distribution() const { return base_; }
  const BijectorPtr& bijector() const { return bijector_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override {
    return base_->sample(key, sample_shape);
  }
  Tensor log_prob(const Tensor& value) const override { return base_->log_prob(value); }
  Constraint support() const override { return base_->support(); }
  Tensor mean() const override { return base_->mean(); }
  Tensor variance() const override { return base_->variance(); }
  Tensor cdf(const Tensor& value) const override { return base_->cdf(value); }
  Tensor icdf(const Tensor& p) const override { return base_->icdf(p); }
  Tensor entropy() const override { return base_->entropy(); }
  std::string_view shard_axis() const override { return base_->shard_axis(); }
  Tensor local_log_prob(const Tensor& value) const override { return base_->local_log_prob(value); }
  Tensor pointwise_log_prob(const Tensor& value) const override { return base_->pointwise_log_prob(value); }

 private:
  DistributionPtr base_;
  BijectorPtr bijector_;
};

}  // namespace variate::dist
