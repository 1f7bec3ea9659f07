#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Sample(base, sample_shape) (TFP's tfd.Sample): `sample_shape` iid draws of `base` as one event,
///   batch_shape = base.batch_shape,  event_shape = sample_shape + base.event_shape,
///   log p(x) = sum over the sample_shape axes of log p_base(x).
/// The iid axes sit between the batch and the base's event axes, as TFP places them.
class Sample final : public Distribution {
 public:
  Sample(DistributionPtr base, Shape sample_shape);
  const char* name() const override { return "Sample"; }
  const DistributionPtr& distribution() const { return base_; }
  const Shape& sample_shape() const { return sample_shape_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return base_->support(); }
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  // A batch_shape + base event_shape tensor repeated along the iid axes.
  Tensor repeat(const Tensor& x) const;

  DistributionPtr base_;
  Shape sample_shape_;
};

}  // namespace variate::dist
