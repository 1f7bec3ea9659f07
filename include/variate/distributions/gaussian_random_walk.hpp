#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// GaussianRandomWalk(scale, num_steps): a path x_1..x_n (event shape [num_steps]) started at 0 with
/// independent Normal(0, scale) steps, NumPyro's semantics: x_1 ~ Normal(0, scale) and
/// x_t - x_{t-1} ~ Normal(0, scale), so
///   log p(x) = sum_t Normal(x_t - x_{t-1} | 0, scale),  x_0 = 0,
///   mean 0, variance t scale^2 at step t, entropy n (log(scale) + log(2 pi e) / 2).
/// (Stan writes the same model as x[1] ~ normal(0, sigma); x[2:] ~ normal(x[:n-1], sigma).)
/// Reference: NumPyro GaussianRandomWalk. Each scale in the batch drives one path. Samples are
/// reparameterized (cumulative sums of scale * eps).
class GaussianRandomWalk final : public Distribution {
 public:
  GaussianRandomWalk(Tensor scale, std::int64_t num_steps);
  const char* name() const override { return "GaussianRandomWalk"; }
  const Tensor& scale() const { return scale_; }
  std::int64_t num_steps() const { return event_shape()[0]; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::real(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor entropy() const override;

 private:
  Tensor scale_;
};

}  // namespace variate::dist
