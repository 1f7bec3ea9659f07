#pragma once
#include <optional>

#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Independent(base, reinterpreted_batch_ndims) (TFP): the last `reinterpreted_batch_ndims` batch
/// axes of `base` become event axes, so log_prob sums base.log_prob over them:
///   batch_shape = base.batch_shape[:-n],  event_shape = base.batch_shape[-n:] + base.event_shape,
///   log p(x) = sum over those n axes of log p_base(x).
/// Without `reinterpreted_batch_ndims` every batch axis is reinterpreted (TFP's default). Draws,
/// mean, variance and support are the base's.
class Independent final : public Distribution {
 public:
  Independent(DistributionPtr base, std::optional<int> reinterpreted_batch_ndims = std::nullopt);
  const char* name() const override { return "Independent"; }
  const DistributionPtr& distribution() const { return base_; }
  int reinterpreted_batch_ndims() const { return ndims_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return base_->support(); }
  Tensor mean() const override { return base_->mean(); }
  Tensor variance() const override { return base_->variance(); }

 private:
  struct Layout {
    Shape batch_shape, event_shape;
    int ndims;
  };
  static Layout layout(const DistributionPtr& base, std::optional<int> reinterpreted_batch_ndims);
  Independent(DistributionPtr base, const Layout& layout);

  DistributionPtr base_;
  int ndims_;
};

}  // namespace variate::dist
