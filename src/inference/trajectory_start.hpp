#pragma once
// The start of a fixed-length HMC trajectory for every active chain of a batch, shared by the
// static-length kernels (HMC and ChEES): a fresh momentum per chain from its own stream, and the
// start point saved for the acceptance test.
#include <span>
#include <vector>

#include "chain_random.hpp"
#include "variate/inference/hamiltonian.hpp"

namespace variate::inference::detail {

/// Draws each active chain's momentum into `state` from the stream of its key, and copies the
/// chain into `start` (kept for the Metropolis test) and `z` (moved by the leapfrog steps).
/// Returns every chain's stream, inactive ones included, positioned after the momentum draws.
std::vector<ChainStream> start_trajectories(std::span<const random::Key> keys, std::span<const Metric> metrics,
                                            const ChainMask& active, PhasePoints& state, PhasePoints& start,
                                            PhasePoints& z, std::vector<double>& normals);

}  // namespace variate::inference::detail
