#pragma once
// Bijectors that depend on a context tensor as well as their input, as Pyro's ConditionalTransform:
// the flow layers of an amortized guide whose encoder also outputs a context h for them (Kingma
// et al. 2016's inverse autoregressive flow with context, section 4).
#include <memory>

#include "variate/distributions/bijector.hpp"

namespace variate {

/// A family of bijectors indexed by a context: given(h) is the bijector at h, an ordinary Bijector
/// (a layer of a Chain, the bijector of a TransformedDistribution) whose gradients reach h too.
class ConditionalBijector {
 public:
  virtual ~ConditionalBijector() = default;
  /// The bijector at `context`, whose batch axes broadcast against those of the values it maps.
  virtual BijectorPtr given(const Tensor& context) const = 0;
  /// Trailing axes that one input value spans (Bijector::forward_event_ndims of every given(h)).
  virtual int forward_event_ndims() const = 0;
};

using ConditionalBijectorPtr = std::shared_ptr<const ConditionalBijector>;

}  // namespace variate
