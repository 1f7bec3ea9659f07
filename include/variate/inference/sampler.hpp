#pragma once
// The sampling driver: initialization, Stan's warm-up (step-size search, dual averaging, windowed
// metric adaptation) and the draws, for many chains, either as parallel threads (one chain per
// worker) or vectorized (all chains in one lockstep batch, one target call per leapfrog step).
//
//   inference::SamplerOptions options;          // NUTS, diagonal metric, 4 chains, 1000 + 1000
//   auto result = inference::sample(target, options, [](const inference::Draw& d) { ... });
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "variate/inference/adaptation.hpp"
#include "variate/inference/chain_state.hpp"
#include "variate/inference/chees.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/fisher_adaptation.hpp"
#include "variate/inference/kernel.hpp"

namespace variate::inference {

/// chees: ChEES-HMC (chees.hpp), for vectorized runs of many chains only.
enum class Algorithm { nuts, hmc, chees };

/// How warm-up learns the metric: Stan's windows of Welford estimates of the draws' covariance
/// (diagonal or dense metrics), nutpie's Fisher divergence from the draws and their gradients
/// (diagonal or low-rank metrics; fisher_adaptation.hpp), or not at all: the metric stays the
/// unit one (Stan's unit_e) or initial_metric, and warm-up adapts the step size alone. That suits
/// coordinates already whitened (a Laplace start), where a few hundred warm-up draws would only
/// add noise to a metric that is about right.
enum class MetricAdaptation { stan_windows, fisher, none };

struct SamplerOptions {
  Algorithm algorithm = Algorithm::nuts;
  NutsOptions nuts;
  StaticHmcOptions hmc;
  CheesOptions chees;
  MetricKind metric = MetricKind::diagonal;
  MetricAdaptation metric_adaptation = MetricAdaptation::stan_windows;
  int chains = 4;
  std::int64_t num_warmup = 1000;
  std::int64_t num_draws = 1000;
  std::uint64_t seed = 0;
  /// Worker threads; 0 means one per core. Threaded chains run one chain per worker; a
  /// vectorized run gives the threads to the target's kernels instead.
  int threads = 0;
  bool vectorized = false;
  /// Warm-up adapts the step size and the metric; without it, warm-up iterations are plain draws
  /// that are not kept.
  bool adapt = true;
  DualAveragingOptions step_size_adaptation;  // ChEES uses its gamma, t0 and kappa, and its own target
  WarmupOptions windows;                      // stan_windows
  FisherOptions fisher;                       // fisher
  double initial_step_size = 1;
  /// Initial values: uniform in (-init_radius, init_radius) on the unconstrained space, retried up
  /// to max_init_tries times per chain until the log density and its gradient are finite.
  double init_radius = 2;
  int max_init_tries = 100;
  /// When not empty, the chains start here instead: (chains x dimension) row-major, chain c in row
  /// c, each with a finite log density and gradient (a Pathfinder draw, say). Unsharded targets only.
  std::vector<double> initial_positions;
  /// When set, the metric warm-up starts from (and a run without adaptation keeps), instead of
  /// the unit metric (Stan's windows) or the one from the gradient at the initial point (Fisher):
  /// of kind `metric` and the target's dimension. Unsharded targets only.
  std::optional<Metric> initial_metric;
  /// When set and true, every chain stops after its current iteration (Ctrl-C); draws made so far
  /// have been delivered and are kept in the result.
  const std::atomic<bool>* stop = nullptr;

  /// Checkpoints: when checkpoint_every > 0, on_checkpoint gets each chain's state after every
  /// checkpoint_every-th iteration, after its last one and when it stops (`stop`), from the chain's
  /// thread, after on_draw of that iteration (a vectorized batch's chains one after another). Not
  /// for chains on a mesh of devices: they throw "not supported".
  std::int64_t checkpoint_every = 0;
  std::function<void(const ChainState&)> on_checkpoint;
  /// Resuming: chain c continues from resume[c] when that is set (a checkpoint of chain c made
  /// with the same options and seed), and otherwise starts as a new chain; either way its draws are those
  /// of a run that never stopped. Empty, or one entry per chain; vectorized chains resume together
  /// (all set, at one iteration) or start together. A resumed chain's ChainResult
  /// holds the draws made in this call only.
  std::vector<std::optional<ChainState>> resume;
  /// Warm starts: chain c starts from warm_start[c % size] (position, metric, step size) instead
  /// of a random point, the unit metric and initial_step_size; warm-up, if any, then adapts from
  /// there.
  std::vector<WarmStart> warm_start;
};

/// One iteration of one chain, as delivered to the callback.
struct Draw {
  int chain = 0;
  std::int64_t iteration = 0;  // counts warm-up and draws from 0
  bool warmup = false;
  const TransitionStats* stats = nullptr;
  std::span<const double> position;  // unconstrained
  const Metric* metric = nullptr;    // the chain's metric; adapted once warm-up is over
};
/// Called for every iteration of every chain in order within a chain; threaded chains call it
/// from their own threads, concurrently, so it must be thread-safe across chains.
using DrawCallback = std::function<void(const Draw&)>;

struct ChainResult {
  double step_size = 0;                // after adaptation
  Metric metric;                       // after adaptation
  std::vector<double> draws;           // (draws × dimension) unconstrained positions after warm-up
  std::vector<TransitionStats> stats;  // per kept draw
  /// Leapfrog steps (one gradient each) of the warm-up transitions made in this call; those of the
  /// kept draws are their stats' n_leapfrog. Initialization and step-size searches are not counted
  /// (SampleResult::target_calls counts every evaluation).
  std::int64_t warmup_leapfrog_steps = 0;
  double warmup_seconds = 0, sampling_seconds = 0;
  std::int64_t draw_count() const { return std::int64_t(stats.size()); }
};

struct SampleResult {
  std::int64_t dimension = 0;
  std::vector<ChainResult> chains;
  bool interrupted = false;
  std::int64_t target_calls = 0;  // all chains, all phases
};

/// Unconstrained coordinate `i` of every kept draw, one vector per chain: the shape the
/// diagnostics (ess_bulk, rhat, summarize) take.
ChainDraws coordinate_draws(const SampleResult& result, std::int64_t i);

/// Runs the chains. The same options and seed give the same draws whatever the thread count.
/// Throws variate::Error for invalid options, or naming the chain when no finite initial point
/// is found (with the model's last error message) or the step-size search fails.
SampleResult sample(const Target& target, const SamplerOptions& options, const DrawCallback& on_draw = {});

}  // namespace variate::inference
