#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Factor(log_weight): a term added to a model's log density as it is (Stan's `target +=`,
/// NumPyro's factor and Unit distribution). log_prob(value) is log_weight whatever the value; the
/// site's value is the weight itself, and it has no draws.
class Factor final : public Distribution {
 public:
  explicit Factor(Tensor log_weight);
  const char* name() const override { return "Factor"; }
  const Tensor& log_weight() const { return log_weight_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::real(); }

 private:
  Tensor log_weight_;
};

}  // namespace variate::dist
