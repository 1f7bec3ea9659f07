#pragma once
// `variate sample --init-from DIR`: new chains that start where an earlier run's chains ended, with
// their adapted metric and step size (a warm start), read from that run's checkpoints.
#include <vector>

#include "sample_context.hpp"
#include "variate/inference/chain_state.hpp"

namespace variate::cli {

/// The warm start of each chain checkpointed in <init_from>/checkpoint/ (the run must have used
/// --checkpoint-every), in chain order. Throws variate::Error when there is none, or when one is of
/// another model or parameter layout, has another --metric, or had not finished its warm-up.
std::vector<inference::WarmStart> read_warm_starts(const SampleContext& job);

}  // namespace variate::cli
