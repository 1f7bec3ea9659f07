// Lockstep HMC with a fixed integration time or number of steps: chains whose step sizes call for
// fewer steps stop early (masked) while the others finish.
#include <algorithm>
#include <cmath>

#include "trajectory_start.hpp"
#include "variate/inference/kernel.hpp"

namespace variate::inference {
namespace {

class StaticHmc final : public Kernel {
 public:
  StaticHmc(StaticHmcOptions options, std::int64_t chains, std::int64_t dimension)
      : options_(options), chains_(chains), start_(chains, dimension), z_(chains, dimension) {
    VARIATE_CHECK(options.num_steps >= 0 && (options.num_steps > 0 || options.trajectory_length > 0), "HMC",
                  "expected a positive number of steps or trajectory length, got num_steps=", options.num_steps,
                  ", trajectory_length=", options.trajectory_length);
    VARIATE_CHECK(options.jitter >= 0 && options.jitter < 1, "HMC", "expected a jitter in [0, 1), got ",
                  options.jitter);
    steps_.resize(std::size_t(chains));
    moving_.resize(std::size_t(chains));
  }

  void transition(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step_size,
                  std::span<const random::Key> keys, const ChainMask& active, PhasePoints& state,
                  std::span<TransitionStats> stats) override {
    VARIATE_CHECK(state.chains == chains_ && std::int64_t(metrics.size()) == chains_ &&
                      std::int64_t(step_size.size()) == chains_ && std::int64_t(keys.size()) == chains_ &&
                      std::int64_t(active.size()) == chains_ && std::int64_t(stats.size()) == chains_,
                  "HMC::transition", "expected state, metrics, step sizes, keys, mask and stats for ", chains_,
                  " chains");
    std::vector<detail::ChainStream> streams =
        detail::start_trajectories(keys, metrics, active, state, start_, z_, normals_);
    int longest = 0;
    for (std::int64_t c = 0; c < chains_; ++c) {
      if (!active[std::size_t(c)]) continue;
      const double eps = step_size[std::size_t(c)];
      double scale = 1;
      if (options_.jitter > 0) scale += options_.jitter * (2 * streams[std::size_t(c)].uniform() - 1);
      const double steps = options_.num_steps > 0 ? options_.num_steps : options_.trajectory_length / eps;
      const int n = int(std::clamp(std::floor(scale * steps), 1.0, 1e6));
      steps_[std::size_t(c)] = n;
      longest = std::max(longest, n);
    }
    for (int step = 0; step < longest; ++step) {
      for (std::int64_t c = 0; c < chains_; ++c)
        moving_[std::size_t(c)] = active[std::size_t(c)] && step < steps_[std::size_t(c)];
      leapfrog(evaluator, metrics, step_size, moving_, z_, velocity_);
    }
    for (std::int64_t c = 0; c < chains_; ++c) {
      if (!active[std::size_t(c)]) continue;
      const Metric& m = metrics[std::size_t(c)];
      const double h0 = hamiltonian(start_, c, m), h = hamiltonian(z_, c, m);
      const double accept = h0 - h >= 0 ? 1.0 : std::exp(h0 - h);
      if (streams[std::size_t(c)].uniform() < accept) state.copy_chain(z_, c);
      TransitionStats& s = stats[std::size_t(c)];
      s.log_density = state.log_density[std::size_t(c)];
      s.accept_stat = accept;
      s.step_size = step_size[std::size_t(c)];
      s.tree_depth = 0;
      s.n_leapfrog = steps_[std::size_t(c)];
      s.divergent = h - h0 > options_.max_energy_error;
      s.energy = hamiltonian(state, c, m);
    }
  }

 private:
  StaticHmcOptions options_;
  std::int64_t chains_;
  PhasePoints start_, z_;
  std::vector<int> steps_;
  ChainMask moving_;
  std::vector<double> normals_, velocity_;
};

}  // namespace

std::unique_ptr<Kernel> make_static_hmc(StaticHmcOptions options, std::int64_t chains, std::int64_t dimension) {
  return std::make_unique<StaticHmc>(options, chains, dimension);
}

}  // namespace variate::inference
