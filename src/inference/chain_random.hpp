#pragma once
// The random stream of one chain for one transition: uniforms for NUTS's choices and normals for
// the momentum, all drawn from the transition's key.
#include "random/stream.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/inference/metric.hpp"

namespace variate::inference::detail {

using ChainStream = random::detail::Stream;

inline ChainStream chain_stream(random::Key key) { return ChainStream(key, 0); }

/// Fills the `metric.dimension()` coordinates of `out` with draw(stream). The replicated
/// coordinates come from the chain's stream, so they and every later draw from it are the same on
/// all devices; the coordinates of a sharded metric that are this device's own come from a stream
/// of `key` folded with the device index, so each device draws its own.
template <class Draw>
void fill_coordinates(ChainStream& chain, random::Key key, const Metric& metric, double* out, Draw draw) {
  const std::int64_t r = metric.replicated_dimension(), d = metric.dimension();
  for (std::int64_t i = 0; i < r; ++i) out[i] = draw(chain);
  if (r == d) return;
  const int device = distribute::axis_index(metric.shard_axis());
  ChainStream own = chain_stream(random::fold_in(random::fold_in(key, "device"), std::uint64_t(device)));
  for (std::int64_t i = r; i < d; ++i) out[i] = draw(own);
}

}  // namespace variate::inference::detail
