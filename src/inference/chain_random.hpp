#pragma once
// The random stream of one chain for one transition: uniforms for NUTS's choices and normals for
// the momentum, all drawn from the transition's key.
#include "random/stream.hpp"

namespace variate::inference::detail {

using ChainStream = random::detail::Stream;

inline ChainStream chain_stream(random::Key key) { return ChainStream(key, 0); }

}  // namespace variate::inference::detail
