#include "trajectory_start.hpp"

namespace variate::inference::detail {

std::vector<ChainStream> start_trajectories(std::span<const random::Key> keys, std::span<const Metric> metrics,
                                            const ChainMask& active, PhasePoints& state, PhasePoints& start,
                                            PhasePoints& z, std::vector<double>& normals) {
  std::vector<ChainStream> streams;
  streams.reserve(keys.size());
  normals.resize(std::size_t(state.dimension));
  for (std::int64_t c = 0; c < state.chains; ++c) {
    streams.push_back(chain_stream(keys[std::size_t(c)]));
    if (!active[std::size_t(c)]) continue;
    fill_coordinates(streams.back(), keys[std::size_t(c)], metrics[std::size_t(c)], normals.data(),
                     [](ChainStream& s) { return s.normal(); });
    metrics[std::size_t(c)].momentum_from_normals(normals.data(), state.p_of(c));
    start.copy_chain(state, c);
    z.copy_chain(state, c);
  }
  return streams;
}

}  // namespace variate::inference::detail
