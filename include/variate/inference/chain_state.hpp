#pragma once
// Everything a chain carries from one iteration to the next, so that a run can stop after any
// iteration and go on later with the draws it would have made without stopping (checkpoints), and
// what a new run can take from an earlier one's adaptation (warm starts).
//
//   options.checkpoint_every = 100;
//   options.on_checkpoint = [&](const inference::ChainState& s) { save(s); };
//   ...later, in a new process:
//   options.resume = {saved_chain_0, saved_chain_1, ...};   // same options and seed otherwise
#include <cstdint>
#include <optional>
#include <vector>

#include "variate/inference/adaptation.hpp"
#include "variate/inference/chees.hpp"
#include "variate/inference/fisher_adaptation.hpp"
#include "variate/inference/metric.hpp"

namespace variate::inference {

/// What ChEES-HMC's chains share between two iterations (chees.hpp): the warm-up's adaptation, the
/// pooled positions its fixed metric comes from, and the trajectory length kept after warm-up.
/// Each chain's state carries a copy, so that any one of them restores the batch.
struct CheesState {
  CheesAdaptationState adaptation;
  std::optional<WelfordState> pooled;
  double trajectory_length = 0;
};

/// One chain between two iterations. The random stream needs no state of its own: every
/// transition's key is a function of (seed, chain, iteration) and every step-size search's of
/// (seed, chain, search count), so `iteration` and `step_size_searches` say where the stream is.
struct ChainState {
  int chain = 0;                 // 0-based
  std::int64_t iteration = 0;    // iterations done (warm-up included): the next one to run
  std::vector<double> position;  // unconstrained
  std::vector<double> gradient;  // of the log density at `position`
  double log_density = 0;
  double step_size = 0;  // the step size of the next transition
  Metric metric;         // the metric of the next transition
  DualAveragingState dual_averaging;
  WelfordState welford;               // Stan's windows: the current slow window's sums
  std::optional<FisherState> fisher;  // Fisher-divergence adaptation: its windows instead
  std::uint64_t step_size_searches = 0;
  double warmup_seconds = 0, sampling_seconds = 0;  // spent so far, over every earlier session
  std::optional<CheesState> chees;                  // ChEES-HMC runs only
};

/// Where a new chain starts instead of a random point and a unit metric: an earlier run's adapted
/// metric, step size and last position.
struct WarmStart {
  std::vector<double> position;  // unconstrained
  double step_size = 1;
  Metric metric;
};

}  // namespace variate::inference
