#pragma once
// Sharded random variables (DESIGN.md layer 6; TFP's experimental.distribute.Sharded): a site whose
// value is split over the devices of a mesh axis. Each device holds its own part, drawn with the
// site's key folded with the device index, and the site's log density is the sum of the parts'
// densities over the axis, the same on every device. Every other site of the program is
// replicated. Inside a mesh run, make_log_joint (tracing::LogJoint) gives such a program the log
// density and gradient of the unsharded model, by the rules this layer registers with it
// (src/distribute/sharded_log_joint.cpp).
//
//   mesh.run([&] {
//     auto w = variate::Normal(zeros({d}), 1.0, "w");                      // replicated
//     Tensor x_i = distribute::shard(x, "data");                           // this device's rows
//     auto y = variate::Sharded(std::make_shared<dist::Bernoulli>(dist::Bernoulli::from_logits(matmul(x_i, w))),
//                               "data", "y");
//   });
//
// Outside a mesh run a Sharded site is its inner distribution on one device, so the same model
// runs unsharded.
#include <string>

#include "variate/tracing/random_variable.hpp"

namespace variate {

namespace distribute {

/// `inner` split over `axis`. Its shapes are this device's part: batch and event shape are the
/// inner distribution's, which may differ from device to device (ragged shards).
class ShardedDistribution final : public Distribution {
 public:
  ShardedDistribution(DistributionPtr inner, std::string axis);
  /// "Sharded(<inner family>)", e.g. "Sharded(Normal)".
  const char* name() const override { return name_.c_str(); }
  const Distribution& inner() const { return *inner_; }

  /// This device's part: inner.sample(fold_in(key, axis_index)), or inner.sample(key) outside a mesh.
  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  /// The log density of the whole split value, a scalar that is the same on every device: the psum
  /// over the axis of the sum of local_log_prob (a collective; every device must call it). Outside
  /// a mesh, the sum of the inner log density. Inside a program, tracing::LogJoint uses
  /// local_log_prob and keeps the batch dims of a batch of states.
  Tensor log_prob(const Tensor& value) const override;
  /// The inner distribution's log density of this device's part.
  Tensor local_log_prob(const Tensor& value) const override { return inner_->log_prob(value); }
  Tensor pointwise_log_prob(const Tensor& value) const override { return inner_->pointwise_log_prob(value); }
  std::string_view shard_axis() const override { return axis_; }
  Constraint support() const override { return inner_->support(); }
  /// This device's part's, from the inner distribution.
  Tensor mean() const override { return inner_->mean(); }
  Tensor variance() const override { return inner_->variance(); }
  Tensor cdf(const Tensor& value) const override { return inner_->cdf(value); }

 private:
  DistributionPtr inner_;
  std::string axis_, name_;
};

}  // namespace distribute

/// A site of `inner` split over `axis`: RandomVariable(ShardedDistribution(inner, axis), name,
/// sample_shape). The sample shape is this device's.
RandomVariable Sharded(DistributionPtr inner, std::string axis, std::string name = "", Shape sample_shape = {});

}  // namespace variate
