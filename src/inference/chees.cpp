#include "variate/inference/chees.hpp"

#include <algorithm>
#include <cmath>

#include "chees_kernel.hpp"
#include "trajectory_start.hpp"
#include "variate/core/error.hpp"

namespace variate::inference {

double halton_jitter(std::int64_t n) {
  VARIATE_CHECK(n >= 1, "halton_jitter", "expected an index >= 1, got ", n);
  double value = 0, scale = 0.5;
  for (; n > 0; n /= 2, scale /= 2) value += scale * double(n % 2);
  return value;
}

namespace {

bool finite_row(const double* x, std::int64_t d) {
  for (std::int64_t i = 0; i < d; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

}  // namespace

double chees_gradient(const PhasePoints& start, const PhasePoints& proposal, std::span<const double> velocity,
                      std::span<const double> accept, double jitter) {
  const std::int64_t n = start.chains, d = start.dimension;
  VARIATE_CHECK(proposal.chains == n && proposal.dimension == d && std::int64_t(velocity.size()) == n * d &&
                    std::int64_t(accept.size()) == n,
                "chees_gradient", "expected starts, proposals, velocities and acceptances of ", n, " chains in ", d,
                " dimensions");
  // A chain whose proposal is not finite is rejected; it must not turn the sums into NaN.
  std::vector<double> weight(std::size_t(n), 0.0);
  double total = 0;
  for (std::int64_t c = 0; c < n; ++c) {
    const double a = accept[std::size_t(c)];
    const bool usable = a > 0 && finite_row(proposal.q_of(c), d) && finite_row(velocity.data() + c * d, d);
    weight[std::size_t(c)] = usable ? a : 0.0;
    total += weight[std::size_t(c)];
  }
  if (total <= 0) return 0;
  std::vector<double> start_mean(std::size_t(d), 0.0), proposal_mean(std::size_t(d), 0.0);
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t i = 0; i < d; ++i) {
      start_mean[std::size_t(i)] += start.q_of(c)[i] / double(n);
      if (weight[std::size_t(c)] > 0)
        proposal_mean[std::size_t(i)] += weight[std::size_t(c)] / total * proposal.q_of(c)[i];
    }
  double sum = 0;
  for (std::int64_t c = 0; c < n; ++c) {
    if (weight[std::size_t(c)] == 0) continue;
    double change = 0, along = 0;
    for (std::int64_t i = 0; i < d; ++i) {
      const double x = proposal.q_of(c)[i] - proposal_mean[std::size_t(i)];
      const double x0 = start.q_of(c)[i] - start_mean[std::size_t(i)];
      change += x * x - x0 * x0;
      along += x * velocity[std::size_t(c * d + i)];
    }
    sum += weight[std::size_t(c)] * change * along;
  }
  return jitter * sum / total;
}

CheesAdaptation::CheesAdaptation(CheesOptions options, DualAveragingOptions dual)
    : options_(options), dual_options_(dual) {
  VARIATE_CHECK(options.target_accept > 0 && options.target_accept < 1 && options.learning_rate > 0 &&
                    options.gradient_decay >= 0 && options.gradient_decay < 1 && options.max_leapfrog_steps >= 1 &&
                    options.initial_trajectory_length >= 0,
                "ChEES",
                "expected 0 < target_accept < 1, learning_rate > 0, 0 <= gradient_decay < 1, "
                "max_leapfrog_steps >= 1 and initial_trajectory_length >= 0; got ",
                options.target_accept, ", ", options.learning_rate, ", ", options.gradient_decay, ", ",
                options.max_leapfrog_steps, ", ", options.initial_trajectory_length);
  dual_options_.target_accept = options.target_accept;
  dual_ = DualAveraging(dual_options_);
}

void CheesAdaptation::restart(double step_size, double trajectory_length) {
  dual_.restart(step_size);
  step_size_ = step_size;
  if (trajectory_length > 0) trajectory_length_ = trajectory_length;
  if (trajectory_length_ <= 0) trajectory_length_ = step_size;
  mean_square_ = 0;
  log_length_average_ = std::log(trajectory_length_);
  count_ = 0;
}

void CheesAdaptation::update(std::span<const double> accept, double gradient) {
  // Harmonic mean; a NaN acceptance counts as a rejection.
  double inverse_sum = 0;
  for (double a : accept) inverse_sum += 1.0 / (std::isnan(a) ? 0.0 : std::min(1.0, a));
  step_size_ = dual_.update(inverse_sum > 0 ? double(accept.size()) / inverse_sum : 0.0);
  ++count_;
  // Adam with β₁ = 0 on log T: the gradient in log T is T times the one in T.
  const double g = trajectory_length_ * gradient;
  const double decay = options_.gradient_decay;
  mean_square_ = decay * mean_square_ + (1 - decay) * g * g;
  const double corrected = mean_square_ / (1 - std::pow(decay, double(count_)));
  double log_length = std::log(trajectory_length_);
  if (std::isfinite(g) && corrected > 0) log_length += options_.learning_rate * g / (std::sqrt(corrected) + 1e-8);
  log_length = std::min(log_length, std::log(step_size_ * options_.max_leapfrog_steps));
  trajectory_length_ = std::exp(log_length);
  const double weight = std::pow(double(count_), -dual_options_.kappa);
  log_length_average_ = (1 - weight) * log_length_average_ + weight * log_length;
}

double CheesAdaptation::final_trajectory_length() const { return std::exp(log_length_average_); }

CheesAdaptationState CheesAdaptation::state() const {
  return {dual_.state(), step_size_, trajectory_length_, mean_square_, log_length_average_, count_};
}

void CheesAdaptation::restore(const CheesAdaptationState& s) {
  dual_.restore(s.dual);
  step_size_ = s.step_size;
  trajectory_length_ = s.trajectory_length;
  mean_square_ = s.mean_square;
  log_length_average_ = s.log_length_average;
  count_ = s.count;
}

CheesKernel::CheesKernel(CheesOptions options, std::int64_t chains, std::int64_t dimension)
    : options_(options),
      chains_(chains),
      start_(chains, dimension),
      z_(chains, dimension),
      accept_(std::size_t(chains), 0.0),
      velocities_(std::size_t(chains * dimension), 0.0) {}

void CheesKernel::set_trajectory(double trajectory_length, double jitter) {
  VARIATE_CHECK(trajectory_length > 0 && std::isfinite(trajectory_length) && jitter > 0 && jitter <= 1, "ChEES",
                "expected a positive trajectory length and a jitter in (0, 1], got ", trajectory_length, " and ",
                jitter);
  trajectory_length_ = trajectory_length;
  jitter_ = jitter;
}

void CheesKernel::transition(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step_size,
                             std::span<const random::Key> keys, const ChainMask& active, PhasePoints& state,
                             std::span<TransitionStats> stats) {
  VARIATE_CHECK(state.chains == chains_ && std::int64_t(metrics.size()) == chains_ &&
                    std::int64_t(step_size.size()) == chains_ && std::int64_t(keys.size()) == chains_ &&
                    std::int64_t(active.size()) == chains_ && std::int64_t(stats.size()) == chains_ &&
                    trajectory_length_ > 0,
                "ChEES::transition", "expected state, metrics, step sizes, keys, mask and stats for ", chains_,
                " chains, and a trajectory length");
  const std::int64_t d = state.dimension;
  // The step size is shared, so one step count serves every chain.
  const double steps = std::ceil(jitter_ * trajectory_length_ / step_size[0]);
  const int n = int(std::clamp(steps, 1.0, double(options_.max_leapfrog_steps)));
  std::vector<detail::ChainStream> streams =
      detail::start_trajectories(keys, metrics, active, state, start_, z_, normals_);
  for (int step = 0; step < n; ++step) leapfrog(evaluator, metrics, step_size, active, z_, scratch_);
  for (std::int64_t c = 0; c < chains_; ++c) {
    if (!active[std::size_t(c)]) continue;
    const Metric& m = metrics[std::size_t(c)];
    m.velocity(z_.p_of(c), velocities_.data() + c * d);
    const double h0 = hamiltonian(start_, c, m), h = hamiltonian(z_, c, m);
    const double accept = h0 - h >= 0 ? 1.0 : std::exp(h0 - h);  // 0 when h is +inf (a NaN or -inf density)
    accept_[std::size_t(c)] = accept;
    if (streams[std::size_t(c)].uniform() < accept) state.copy_chain(z_, c);
    TransitionStats& s = stats[std::size_t(c)];
    s.log_density = state.log_density[std::size_t(c)];
    s.accept_stat = accept;
    s.step_size = step_size[std::size_t(c)];
    s.tree_depth = 0;
    s.n_leapfrog = n;
    s.divergent = h - h0 > options_.max_energy_error;
    s.energy = hamiltonian(state, c, m);
  }
}

double CheesKernel::last_gradient() const { return chees_gradient(start_, z_, velocities_, accept_, jitter_); }

}  // namespace variate::inference
