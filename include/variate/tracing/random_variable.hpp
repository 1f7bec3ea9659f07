#pragma once
// The one user-facing abstraction: a random variable is a distribution, a site name and a value.
// It converts to its value, so arithmetic on random variables is arithmetic on tensors:
//
//   tracing::Seed seed{random::Key(0)};
//   auto mu = variate::Normal(0.0, 10.0, "mu");
//   auto x = variate::Normal(mu, 1.0, "x", {100});   // 100 draws around mu
//   Tensor centered = x - mu;
#include <string>
#include <type_traits>

#include "variate/autodiff/ops.hpp"
#include "variate/tracing/tracer.hpp"

namespace variate {

/// The role of a site whose value the program gives itself.
enum class GivenValue {
  observed,       // data: its density term counts (factor())
  deterministic,  // a quantity computed by the program (generated quantity): no density term
};

/// A named random variable (Edward2's one abstraction): a distribution and its value, created
/// through the active tracers, usable wherever a Tensor is.
class RandomVariable {
 public:
  /// Creates the site: the value comes from the active tracers, or is drawn with the site's key.
  /// An empty name is replaced by a generated one ("Normal", "Normal_1", ...).
  RandomVariable(DistributionPtr distribution, std::string name = "", Shape sample_shape = {});
  /// Creates a site whose value the program gives (`role` says how it counts); tracers still see
  /// it (Trace records it, Intervene may replace it).
  RandomVariable(DistributionPtr distribution, std::string name, Tensor value, GivenValue role);

  const std::string& name() const { return name_; }
  const Distribution& distribution() const { return *distribution_; }
  const DistributionPtr& distribution_ptr() const { return distribution_; }
  const Shape& sample_shape() const { return sample_shape_; }
  const Tensor& value() const { return value_; }
  operator const Tensor&() const { return value_; }  // NOLINT(google-explicit-constructor): by design
  /// Elements of the value, NumPy-style (`beta(0)`, `x(i, j)`: one index per leading axis),
  /// differentiable. With a batch of states (vectorized chains) the leading axis is the batch: index
  /// the trailing axes with slice() there.
  template <class... Index>
  requires(std::is_integral_v<Index>&&...) Tensor operator()(Index... i) const { return value_(i...); }
  /// The log density of the value, summed over all its dims.
  Tensor log_prob() const;

 private:
  DistributionPtr distribution_;
  std::string name_;
  Shape sample_shape_;
  Tensor value_;
};

namespace tracing {
/// A site's log density `lp` summed over all dims but the leading `keep` (the dims of a batch of
/// program states, e.g. chains).
Tensor sum_site_terms(const Tensor& lp, int keep = 0);
}  // namespace tracing

}  // namespace variate
