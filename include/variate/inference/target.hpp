#pragma once
// What a sampler needs from a model: the log density on R^D and its gradient, for a batch of
// positions at once. One call serves every chain of a vectorized run, so that chains share one
// pass over the data; a threaded run calls it with one position.
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "variate/core/dtype.hpp"
#include "variate/inference/unconstrained.hpp"

namespace variate::inference {

struct Target {
  std::int64_t dimension = 0;
  /// positions: (batch × dimension) row-major. Writes log_density (batch) and gradient
  /// (batch × dimension). Non-finite values are allowed: the samplers treat them as rejected.
  std::function<void(std::span<const double> positions, std::int64_t batch, std::span<double> log_density,
                     std::span<double> gradient)>
      evaluate;
  /// A sharded target (a model with Sharded sites, inside a mesh run) splits its coordinates over
  /// the devices of `shard_axis`: the first `replicated_dimension` are the same on every device,
  /// the rest are this device's own; the log density and the replicated part of the gradient are
  /// the same on every device. Empty for an ordinary target.
  std::string shard_axis;
  std::int64_t replicated_dimension = 0;
  /// How many calls replayed the recorded kernels of an earlier call instead of running the model
  /// (make_target; docs/inference.md). Empty for a target that never replays.
  std::function<std::int64_t()> replayed_calls;
};

/// The target of `space.log_density`, evaluated in `dtype` (f64, or f32 for speed when the model's
/// data are f32 too), sharded as `space` is. The sampler's state stays in double either way. The
/// target keeps its own copy of the space. The first batch of each size is checked against its
/// states evaluated alone, and a site that mixes the states up is an error naming it. With
/// Jacobian::excluded, the density of the constrained point (what BridgeStan's jacobian=false asks).
Target make_target(Unconstrained space, DType dtype = DType::f64, Jacobian jacobian = Jacobian::included);

}  // namespace variate::inference
