#pragma once
// Distributions with TFP semantics (layer 4): a distribution has a batch shape (independent,
// differently parameterized copies) and an event shape (one draw); `sample(key, sample_shape)`
// returns sample_shape + batch_shape + event_shape; `log_prob(x)` returns the batch-shaped
// (broadcast with x's leading dims) log density, differentiable in x and in the parameters.
// Values outside the support have log density -inf, never NaN.
#include <memory>
#include <string_view>

#include "variate/autodiff/ops.hpp"
#include "variate/distributions/constraint.hpp"
#include "variate/random/key.hpp"

namespace variate {

/// The base of every distribution family: batch and event shapes, `sample`, `log_prob` and `support`
/// with TFP's semantics (described at the top of this header).
class Distribution {
 public:
  virtual ~Distribution() = default;

  /// The family's name as TFP spells it ("Normal"), used in error messages.
  virtual const char* name() const = 0;
  /// The shape of the independent, differently parameterized copies.
  const Shape& batch_shape() const { return batch_shape_; }
  /// The shape of one draw.
  const Shape& event_shape() const { return event_shape_; }
  /// The dtype of values (f64 or f32 for continuous families; counts use the floating dtype of the
  /// parameters, as in TFP; Categorical returns i64).
  DType dtype() const { return dtype_; }

  /// Draws of shape sample_shape + batch_shape + event_shape, determined by `key`.
  virtual Tensor sample(random::Key key, const Shape& sample_shape = {}) const = 0;
  /// The log density (or mass) of `value`, batch-shaped; -inf outside the support, never NaN.
  virtual Tensor log_prob(const Tensor& value) const = 0;
  /// The set the values lie in, which picks the bijector to unconstrained space.
  virtual Constraint support() const = 0;

  /// The mean, in closed form where the family has one; otherwise throws naming the family (as do
  /// variance and cdf).
  virtual Tensor mean() const;
  /// The variance, in closed form where the family has one.
  virtual Tensor variance() const;
  /// The cumulative distribution function P(X <= value), where the family has a closed form.
  virtual Tensor cdf(const Tensor& value) const;
  /// The quantile function F^-1(p) for p in (0, 1) (continuous families that have a closed form or a
  /// stable composition; TFP's quantile). Differentiable in p and the parameters.
  virtual Tensor icdf(const Tensor& p) const;
  /// The differential (or Shannon, for discrete families) entropy -E[log p(X)] in nats, batch-shaped.
  virtual Tensor entropy() const;

  /// A distribution split over the devices of a mesh axis (distribute::Sharded, TFP's
  /// experimental_shard_axis_names) names that axis; every other distribution returns "".
  virtual std::string_view shard_axis() const { return {}; }
  /// The log density of this device's part of the value alone; log_prob is its sum over the
  /// shard axis. The same as log_prob for a distribution that is not sharded.
  virtual Tensor local_log_prob(const Tensor& value) const { return log_prob(value); }
  /// The log density as one term per observation, for pointwise log-likelihoods (LOO, WAIC): for
  /// most families local_log_prob, a term per element of the batch; a family whose event is a set
  /// of independent observations (the GLMs: one per row of x) splits it into their terms.
  virtual Tensor pointwise_log_prob(const Tensor& value) const { return local_log_prob(value); }

  /// Convenience: sample_shape + batch_shape + event_shape.
  Shape sample_full_shape(const Shape& sample_shape) const;

 protected:
  /// For the families: their batch and event shapes and the dtype of their values.
  Distribution(Shape batch_shape, Shape event_shape, DType dtype)
      : batch_shape_(batch_shape), event_shape_(event_shape), dtype_(dtype) {}

 private:
  Shape batch_shape_, event_shape_;
  DType dtype_;
};

using DistributionPtr = std::shared_ptr<const Distribution>;

}  // namespace variate
