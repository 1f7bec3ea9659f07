#include "variate/inference/sampler.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include "chain_random.hpp"
#include "chees_kernel.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::inference {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Keys: chain c's key is split_at(seed, c); each use folds in its own tag and counter, so the
// draws of a chain are a function of (seed, chain) only.
enum class KeyUse : std::uint64_t { transition = 0, init = 1, step_size_search = 2 };
random::Key use_key(random::Key chain, KeyUse use, std::uint64_t counter) {
  return random::fold_in(random::fold_in(chain, std::uint64_t(use)), counter);
}

/// The time a resumed chain spent in its earlier sessions.
struct Spent {
  double warmup_seconds = 0, sampling_seconds = 0;
};

/// Adds up `values` over the devices of the mesh running on this thread, if any.
void sum_over_mesh(std::span<double> values, const char* what) {
  if (const std::string* axis = distribute::running_axis()) distribute::psum_in_place(values, *axis, what);
}

/// A batch of chains advanced in lockstep: one chain (threaded runs) or all (vectorized runs).
class ChainBatch {
 public:
  ChainBatch(const Target& target, const SamplerOptions& o, std::vector<int> ids)
      : target_(target),
        o_(o),
        ids_(std::move(ids)),
        n_(std::int64_t(ids_.size())),
        d_(target.dimension),
        evaluator_(target),
        state_(n_, d_),
        saved_(n_, d_),
        all_(std::size_t(n_), 1) {
    for (int id : ids_) chain_keys_.push_back(random::split_at(random::Key(o.seed), std::uint64_t(id)));
    kernel_ = make_kernel();
    metrics_.assign(std::size_t(n_), shard(o.initial_metric ? *o.initial_metric : Metric::unit(o.metric, d_)));
    step_.assign(std::size_t(n_), o.initial_step_size);
    stats_.resize(std::size_t(n_));
    keys_.resize(std::size_t(n_));
    search_count_.assign(std::size_t(n_), 0);
    if (o.metric_adaptation == MetricAdaptation::stan_windows) schedule_.emplace(o.num_warmup, o.windows);
    for (std::int64_t c = 0; c < n_; ++c) {
      dual_.emplace_back(o.step_size_adaptation);
      if (fisher())
        fisher_.emplace_back(o.metric, d_, o.num_warmup, o.fisher);
      else
        welford_.emplace_back(o.metric, d_);
      if (o.warm_start.empty()) continue;
      const WarmStart& w = o.warm_start[std::size_t(ids_[std::size_t(c)]) % o.warm_start.size()];
      metrics_[std::size_t(c)] = shard(w.metric);
      step_[std::size_t(c)] = w.step_size;
    }
    prior_.resize(std::size_t(n_));
  }

  /// kernel_threads, if set, gives the OpenMP threads for this batch's kernels before each
  /// transition (threaded runs hand the cores of finished workers to the chains still running).
  void run(const DrawCallback& on_draw, std::vector<ChainResult>& results,
           const std::function<int()>& kernel_threads = {}) {
    if (stop_requested()) {  // stopped before this batch began
      interrupted_ = true;
      return;
    }
    const bool adapting = o_.adapt && o_.num_warmup > 0;
    const std::int64_t first = start(adapting);
    const std::int64_t total = o_.num_warmup + o_.num_draws;
    auto phase_start = Clock::now();
    bool sampling = first > o_.num_warmup;
    if (sampling) {  // resumed after warm-up
      for (std::int64_t c = 0; c < n_; ++c) {
        ChainResult& r = results[std::size_t(ids_[std::size_t(c)])];
        r.warmup_seconds = prior_[std::size_t(c)].warmup_seconds;
        r.step_size = step_[std::size_t(c)];
        r.metric = metrics_[std::size_t(c)];
      }
    }
    const auto checkpoint = [&](std::int64_t iteration) {
      for (std::int64_t c = 0; c < n_; ++c) o_.on_checkpoint(chain_state(c, iteration, sampling, phase_start, results));
    };
    for (std::int64_t it = first; it < total; ++it) {
      if (stop_requested()) {
        interrupted_ = true;
        if (o_.checkpoint_every > 0) checkpoint(it);
        break;
      }
      const bool warmup = it < o_.num_warmup;
      if (it == o_.num_warmup) {  // warm-up ends: fix the averaged step size
        sampling = true;
        for (std::int64_t c = 0; c < n_; ++c) {
          ChainResult& r = results[std::size_t(ids_[std::size_t(c)])];
          r.warmup_seconds = prior_[std::size_t(c)].warmup_seconds + seconds_since(phase_start);
          if (adapting)
            step_[std::size_t(c)] =
                chees_ ? chees_adaptation_->final_step_size() : dual_[std::size_t(c)].final_step_size();
          r.step_size = step_[std::size_t(c)];
          r.metric = metrics_[std::size_t(c)];
        }
        if (chees_ && adapting) trajectory_length_ = chees_adaptation_->final_trajectory_length();
        phase_start = Clock::now();
      }
      if (chees_)
        chees_->set_trajectory(warmup && adapting ? chees_adaptation_->trajectory_length() : trajectory_length_,
                               halton_jitter(it + 1));
      if (kernel_threads) omp_set_num_threads(kernel_threads());
      for (std::int64_t c = 0; c < n_; ++c)
        keys_[std::size_t(c)] = use_key(chain_keys_[std::size_t(c)], KeyUse::transition, std::uint64_t(it));
      kernel_->transition(evaluator_, metrics_, step_, keys_, all_, state_, stats_);
      if (warmup && adapting) adapt(it);
      for (std::int64_t c = 0; c < n_; ++c) {
        ChainResult& r = results[std::size_t(ids_[std::size_t(c)])];
        const std::span<const double> q(state_.q_of(c), std::size_t(d_));
        if (!warmup) {
          r.draws.insert(r.draws.end(), q.begin(), q.end());
          r.stats.push_back(stats_[std::size_t(c)]);
        } else {
          r.warmup_leapfrog_steps += stats_[std::size_t(c)].n_leapfrog;
        }
        if (on_draw)
          on_draw(Draw{ids_[std::size_t(c)], it, warmup, &stats_[std::size_t(c)], q, &metrics_[std::size_t(c)]});
      }
      if (o_.checkpoint_every > 0 && ((it + 1) % o_.checkpoint_every == 0 || it + 1 == total)) checkpoint(it + 1);
    }
    const double elapsed = seconds_since(phase_start);
    for (std::int64_t c = 0; c < n_; ++c) {
      ChainResult& r = results[std::size_t(ids_[std::size_t(c)])];
      const Spent& prior = prior_[std::size_t(c)];
      if (sampling) {
        r.sampling_seconds = prior.sampling_seconds + elapsed;
      } else {  // stopped during warm-up, or nothing to do
        r.warmup_seconds = prior.warmup_seconds + elapsed;
        r.step_size = step_[std::size_t(c)];
        r.metric = metrics_[std::size_t(c)];
      }
    }
  }

  bool interrupted() const { return interrupted_; }
  std::int64_t target_calls() const { return evaluator_.calls(); }

 private:
  std::unique_ptr<Kernel> make_kernel() {
    switch (o_.algorithm) {
      case Algorithm::nuts: return make_nuts(o_.nuts, n_, d_);
      case Algorithm::hmc: return make_static_hmc(o_.hmc, n_, d_);
      case Algorithm::chees: {
        chees_adaptation_.emplace(o_.chees, o_.step_size_adaptation);
        auto kernel = std::make_unique<CheesKernel>(o_.chees, n_, d_);
        chees_ = kernel.get();
        return kernel;
      }
    }
    ::variate::detail::fail("sample: unknown sampler algorithm ", int(o_.algorithm));
  }

  /// The metric over the target's coordinates: sharded like them when the target is.
  Metric shard(Metric m) const {
    return target_.shard_axis.empty() ? m : m.sharded_over(target_.shard_axis, target_.replicated_dimension);
  }

  /// Whether to stop now. On a mesh the devices decide together, so that all stop at the same
  /// iteration and none is left waiting in a collective.
  bool stop_requested() const {
    double stop = o_.stop && o_.stop->load() ? 1.0 : 0.0;
    sum_over_mesh({&stop, 1}, "sampler stop flag");
    return stop > 0;
  }

  /// Sets the chains up to run from their first iteration, which it returns: as a checkpoint left
  /// them, or from an initial point (random or warm start) and, when adapting, a step-size search.
  std::int64_t start(bool adapting) {
    // Resuming runs one chain per batch, or a vectorized batch whose chains share one iteration
    // count (check_lockstep_resume).
    if (!o_.resume.empty() && o_.resume[std::size_t(ids_[0])]) {
      for (std::int64_t c = 0; c < n_; ++c) restore(c, *o_.resume[std::size_t(ids_[std::size_t(c)])]);
      if (chees_) restore_chees(*o_.resume[std::size_t(ids_[0])]->chees);
      return o_.resume[std::size_t(ids_[0])]->iteration;
    }
    if (o_.warm_start.empty()) {
      initialize();
    } else {
      initialize_warm();
    }
    if (chees_)
      trajectory_length_ = o_.chees.initial_trajectory_length > 0 ? o_.chees.initial_trajectory_length : step_[0];
    if (!adapting) return 0;
    // nutpie starts from the gradient at the initial point; a given metric (a whitened target's
    // unit one) is kept instead.
    if (fisher() && o_.warm_start.empty() && !o_.initial_metric)
      for (std::int64_t c = 0; c < n_; ++c)
        metrics_[std::size_t(c)] = shard(fisher_[std::size_t(c)].initial_metric({state_.grad_of(c), std::size_t(d_)}));
    const std::vector<double> given = step_;
    search_step_size();
    // As Stan: the first dual averaging shrinks toward 10 x the step size the user gave (or the
    // warm start's), not the one the search found (later windows restart from the searched one).
    for (std::int64_t c = 0; c < n_; ++c) dual_[std::size_t(c)].restart(given[std::size_t(c)]);
    if (chees_) start_chees();
    return 0;
  }

  /// The chains share the median of their searched step sizes, and start with one step (or the
  /// given trajectory length).
  void start_chees() {
    std::vector<double> sorted = step_;
    std::nth_element(sorted.begin(), sorted.begin() + n_ / 2, sorted.end());
    step_.assign(std::size_t(n_), sorted[std::size_t(n_ / 2)]);
    chees_adaptation_->restart(step_[0], o_.chees.initial_trajectory_length);
  }

  void restore(std::int64_t c, const ChainState& s) {
    std::copy(s.position.begin(), s.position.end(), state_.q_of(c));
    std::copy(s.gradient.begin(), s.gradient.end(), state_.grad_of(c));
    state_.log_density[std::size_t(c)] = s.log_density;
    step_[std::size_t(c)] = s.step_size;
    metrics_[std::size_t(c)] = shard(s.metric);
    dual_[std::size_t(c)].restore(s.dual_averaging);
    if (fisher())
      fisher_[std::size_t(c)].restore(*s.fisher, s.iteration);
    else
      welford_[std::size_t(c)].restore(s.welford);
    search_count_[std::size_t(c)] = s.step_size_searches;
    prior_[std::size_t(c)] = {s.warmup_seconds, s.sampling_seconds};
  }

  void restore_chees(const CheesState& s) {
    chees_adaptation_->restore(s.adaptation);
    pooled_.reset();
    if (s.pooled) {
      pooled_.emplace(MetricKind::diagonal, d_);
      pooled_->restore(*s.pooled);
    }
    trajectory_length_ = s.trajectory_length;
  }

  /// Chain c's state before iteration `iteration`, with the time spent so far.
  ChainState chain_state(std::int64_t c, std::int64_t iteration, bool sampling, Clock::time_point phase_start,
                         const std::vector<ChainResult>& results) const {
    const auto i = std::size_t(c);
    ChainState s;
    s.chain = ids_[i];
    s.iteration = iteration;
    s.position.assign(state_.q_of(c), state_.q_of(c) + d_);
    s.gradient.assign(state_.grad.begin() + c * d_, state_.grad.begin() + (c + 1) * d_);
    s.log_density = state_.log_density[i];
    s.step_size = step_[i];
    s.metric = metrics_[i];
    s.dual_averaging = dual_[i].state();
    if (fisher())
      s.fisher = fisher_[i].state();
    else
      s.welford = welford_[i].state();
    s.step_size_searches = search_count_[i];
    const double now = seconds_since(phase_start);
    s.warmup_seconds = sampling ? results[std::size_t(ids_[i])].warmup_seconds : prior_[i].warmup_seconds + now;
    s.sampling_seconds = sampling ? prior_[i].sampling_seconds + now : 0;
    if (chees_)
      s.chees = CheesState{chees_adaptation_->state(),
                           pooled_ ? std::optional<WelfordState>(pooled_->state()) : std::nullopt, trajectory_length_};
    return s;
  }

  /// The warm starts' positions, which must have a finite log density and gradient.
  void initialize_warm() {
    for (std::int64_t c = 0; c < n_; ++c) {
      const WarmStart& w = o_.warm_start[std::size_t(ids_[std::size_t(c)]) % o_.warm_start.size()];
      std::copy(w.position.begin(), w.position.end(), state_.q_of(c));
    }
    evaluator_.evaluate(state_, all_);
    for (std::int64_t c = 0; c < n_; ++c) {
      bool finite = std::isfinite(state_.log_density[std::size_t(c)]);
      for (std::int64_t i = 0; i < d_ && finite; ++i) finite = std::isfinite(state_.grad_of(c)[i]);
      VARIATE_CHECK(
          finite, "sample", "chain ", ids_[std::size_t(c)] + 1,
          ": the warm start's position has a non-finite log density or gradient (", state_.log_density[std::size_t(c)],
          ")", evaluator_.last_error().empty() ? std::string() : "; the model's error: " + evaluator_.last_error());
    }
    check_batching();
  }

  void initialize() {
    if (!o_.initial_positions.empty()) return start_at_given_positions();
    std::vector<detail::ChainStream> streams;
    for (std::int64_t c = 0; c < n_; ++c)
      streams.push_back(detail::chain_stream(use_key(chain_keys_[std::size_t(c)], KeyUse::init, 0)));
    ChainMask pending = all_;
    const auto uniform = [radius = o_.init_radius](detail::ChainStream& s) {
      return radius * (2.0 * s.uniform() - 1.0);
    };
    for (int attempt = 0;; ++attempt) {
      bool any = false;
      for (std::int64_t c = 0; c < n_; ++c) {
        if (!pending[std::size_t(c)]) continue;
        any = true;
        detail::fill_coordinates(streams[std::size_t(c)],
                                 use_key(chain_keys_[std::size_t(c)], KeyUse::init, std::uint64_t(attempt) + 1),
                                 metrics_[std::size_t(c)], state_.q_of(c), uniform);
      }
      if (!any) return check_batching();
      VARIATE_CHECK(
          attempt < o_.max_init_tries, "sample", "chain ", first_pending(pending) + 1,
          ": no initial value with a finite log density and gradient after ", o_.max_init_tries,
          " attempts, uniform in (-", o_.init_radius, ", ", o_.init_radius, ") on the unconstrained space",
          evaluator_.last_error().empty() ? std::string() : "; the model's last error: " + evaluator_.last_error());
      evaluator_.evaluate(state_, pending);
      // A sharded gradient may be finite on one device and not on another: count on all of them.
      std::vector<double> nonfinite(std::size_t(n_), 0.0);
      for (std::int64_t c = 0; c < n_; ++c) {
        if (!pending[std::size_t(c)]) continue;
        bool finite = std::isfinite(state_.log_density[std::size_t(c)]);
        for (std::int64_t i = 0; i < d_ && finite; ++i) finite = std::isfinite(state_.grad_of(c)[i]);
        nonfinite[std::size_t(c)] = finite ? 0.0 : 1.0;
      }
      sum_over_mesh(nonfinite, "sampler initial-point check");
      for (std::int64_t c = 0; c < n_; ++c)
        if (pending[std::size_t(c)] && nonfinite[std::size_t(c)] == 0) pending[std::size_t(c)] = 0;
    }
  }

  void start_at_given_positions() {
    for (std::int64_t c = 0; c < n_; ++c)
      std::copy_n(o_.initial_positions.begin() + std::ptrdiff_t(ids_[std::size_t(c)]) * d_, d_, state_.q_of(c));
    evaluator_.evaluate(state_, all_);
    for (std::int64_t c = 0; c < n_; ++c) {
      bool finite = std::isfinite(state_.log_density[std::size_t(c)]);
      for (std::int64_t i = 0; i < d_ && finite; ++i) finite = std::isfinite(state_.grad_of(c)[i]);
      VARIATE_CHECK(
          finite, "sample", "chain ", ids_[std::size_t(c)] + 1,
          ": the given initial position has a non-finite log density or gradient",
          evaluator_.last_error().empty() ? std::string() : "; the model's last error: " + evaluator_.last_error());
    }
    check_batching();
  }

  /// A vectorized batch needs a model that broadcasts a leading chain dimension. If the batch
  /// fails where each chain alone works, say so now rather than fall back to one chain per call
  /// for the whole run.
  void check_batching() {
    if (n_ == 1) return;
    std::vector<double> lp(static_cast<std::size_t>(n_)), grad(static_cast<std::size_t>(n_ * d_));
    try {
      target_.evaluate(state_.q, n_, lp, grad);
    } catch (const std::exception& e) {
      ::variate::detail::fail("sample: vectorized chains: the log density of a batch of ", n_,
                              " states fails although each state alone evaluates (", e.what(),
                              "); write the model so that a leading chain dimension broadcasts (right-aligned, e.g. "
                              "expand_dims(mu, -1) * x), or run threaded chains");
    }
  }

  int first_pending(const ChainMask& pending) const {
    for (std::int64_t c = 0; c < n_; ++c)
      if (pending[std::size_t(c)]) return ids_[std::size_t(c)];
    return 0;
  }

  /// Stan's heuristic: from the current step size, double (or halve) until the acceptance
  /// probability of one leapfrog step crosses 0.8.
  void search_step_size() {
    saved_ = state_;
    ChainMask active(std::size_t(n_), 0);
    std::vector<int> direction(std::size_t(n_), 0);
    for (std::int64_t c = 0; c < n_; ++c) {
      const double eps = step_[std::size_t(c)];
      active[std::size_t(c)] = eps > 0 && eps <= 1e7 && std::isfinite(eps);
    }
    const double log_threshold = std::log(0.8);
    for (bool first = true;; first = false) {
      bool any = false;
      for (std::int64_t c = 0; c < n_; ++c) {
        if (!active[std::size_t(c)]) continue;
        any = true;
        state_.copy_chain(saved_, c);
        const random::Key key =
            use_key(chain_keys_[std::size_t(c)], KeyUse::step_size_search, search_count_[std::size_t(c)]++);
        auto stream = detail::chain_stream(key);
        normals_.resize(std::size_t(d_));
        detail::fill_coordinates(stream, key, metrics_[std::size_t(c)], normals_.data(),
                                 [](detail::ChainStream& s) { return s.normal(); });
        metrics_[std::size_t(c)].momentum_from_normals(normals_.data(), state_.p_of(c));
        h0_scratch_.resize(std::size_t(n_));
        h0_scratch_[std::size_t(c)] = hamiltonian(state_, c, metrics_[std::size_t(c)]);
      }
      if (!any) break;
      leapfrog(evaluator_, metrics_, step_, active, state_, velocity_);
      for (std::int64_t c = 0; c < n_; ++c) {
        if (!active[std::size_t(c)]) continue;
        const double delta = h0_scratch_[std::size_t(c)] - hamiltonian(state_, c, metrics_[std::size_t(c)]);
        int& dir = direction[std::size_t(c)];
        if (first) {
          dir = delta > log_threshold ? 1 : -1;
          continue;
        }
        if ((dir == 1 && !(delta > log_threshold)) || (dir == -1 && !(delta < log_threshold))) {
          active[std::size_t(c)] = 0;
          continue;
        }
        double& eps = step_[std::size_t(c)];
        eps = dir == 1 ? 2 * eps : 0.5 * eps;
        VARIATE_CHECK(eps <= 1e7, "sample", "chain ", ids_[std::size_t(c)] + 1,
                      ": the step size grew past 1e7 during the step-size search; the posterior is probably "
                      "improper (check the priors)");
        VARIATE_CHECK(eps > 0, "sample", "chain ", ids_[std::size_t(c)] + 1,
                      ": no acceptably small step size; the log density may be discontinuous or non-finite");
      }
    }
    for (std::int64_t c = 0; c < n_; ++c) state_.copy_chain(saved_, c);
  }

  bool fisher() const { return o_.metric_adaptation == MetricAdaptation::fisher; }

  void adapt(std::int64_t it) {
    if (chees_) return adapt_chees(it);
    if (fisher()) return adapt_by_fisher_divergence(it);
    if (o_.metric_adaptation == MetricAdaptation::none) {
      for (std::int64_t c = 0; c < n_; ++c)
        step_[std::size_t(c)] = dual_[std::size_t(c)].update(stats_[std::size_t(c)].accept_stat);
      return;
    }
    const bool window_end = schedule_->ends_slow_window(it);
    for (std::int64_t c = 0; c < n_; ++c) {
      step_[std::size_t(c)] = dual_[std::size_t(c)].update(stats_[std::size_t(c)].accept_stat);
      if (schedule_->in_slow_window(it)) welford_[std::size_t(c)].add({state_.q_of(c), std::size_t(d_)});
      if (window_end) {
        metrics_[std::size_t(c)] = shard(welford_[std::size_t(c)].regularized_metric());
        welford_[std::size_t(c)].restart();
      }
    }
    if (!window_end) return;
    search_step_size();
    for (std::int64_t c = 0; c < n_; ++c) dual_[std::size_t(c)].restart(step_[std::size_t(c)]);
  }

  /// The metric changes a little at most iterations, so the step size's dual averaging goes on
  /// through them without a new search; it starts over once for the final window's fixed metric.
  void adapt_by_fisher_divergence(std::int64_t it) {
    for (std::int64_t c = 0; c < n_; ++c) {
      const auto k = std::size_t(c);
      step_[k] = dual_[k].update(stats_[k].accept_stat);
      const std::span<const double> q(state_.q_of(c), std::size_t(d_)), grad(state_.grad_of(c), std::size_t(d_));
      if (std::optional<Metric> m = fisher_[k].add(it, q, grad, metrics_[k])) metrics_[k] = shard(std::move(*m));
      if (fisher_[k].ends_metric_adaptation(it)) dual_[k].restart(step_[k]);
    }
  }

  /// ChEES's warm-up (chees.hpp). For its first three quarters the diagonal metric follows the
  /// chains' cross-chain variance, iteration by iteration; it is then fixed to the variance pooled
  /// over all chains and the second half of that stretch, and the step size and trajectory length
  /// start their averages over for the fixed metric in the last quarter.
  void adapt_chees(std::int64_t it) {
    chees_adaptation_->update(chees_->last_accept(), chees_->last_gradient());
    const std::int64_t fixed_from = 3 * o_.num_warmup / 4;
    if (it < fixed_from) {
      WelfordEstimator now(MetricKind::diagonal, d_);
      if (!pooled_) pooled_.emplace(MetricKind::diagonal, d_);
      for (std::int64_t c = 0; c < n_; ++c) {
        const std::span<const double> q(state_.q_of(c), std::size_t(d_));
        now.add(q);
        if (it >= fixed_from / 2) pooled_->add(q);
      }
      const bool last = it + 1 == fixed_from;
      metrics_.assign(std::size_t(n_), last ? pooled_->regularized_metric() : now.regularized_metric());
      if (last) chees_adaptation_->restart(chees_adaptation_->step_size(), 0);
    }
    step_.assign(std::size_t(n_), chees_adaptation_->step_size());
  }

  const Target& target_;
  const SamplerOptions& o_;
  std::vector<int> ids_;
  std::int64_t n_, d_;
  Evaluator evaluator_;
  PhasePoints state_, saved_;
  ChainMask all_;
  std::vector<random::Key> chain_keys_, keys_;
  std::unique_ptr<Kernel> kernel_;
  std::vector<Metric> metrics_;
  std::vector<double> step_;
  std::vector<TransitionStats> stats_;
  std::vector<std::uint64_t> search_count_;
  std::optional<WarmupSchedule> schedule_;
  std::vector<DualAveraging> dual_;
  std::vector<WelfordEstimator> welford_;  // stan_windows
  std::vector<FisherAdaptation> fisher_;   // fisher
  std::vector<double> normals_, velocity_, h0_scratch_;
  std::vector<Spent> prior_;      // time spent in earlier sessions (resumed chains)
  CheesKernel* chees_ = nullptr;  // kernel_, when it is ChEES
  std::optional<CheesAdaptation> chees_adaptation_;
  std::optional<WelfordEstimator> pooled_;  // ChEES: the positions the fixed metric comes from
  double trajectory_length_ = 0;            // ChEES, after warm-up
  bool interrupted_ = false;
};

const char* metric_name(MetricKind kind) {
  switch (kind) {
    case MetricKind::diagonal: return "diagonal";
    case MetricKind::dense: return "dense";
    case MetricKind::low_rank: return "low-rank";
  }
  return "unknown";
}

// Whether a chain's resume state or warm start fits the run: its chain, iteration, sizes, metric,
// and the state of the run's metric adaptation (Fisher's windows, or Stan's Welford sums).
void check_resume(const Target& target, const SamplerOptions& o, int c, const ChainState& s) {
  const std::int64_t d = target.dimension, total = o.num_warmup + o.num_draws;
  const auto size = [](const std::vector<double>& v) { return std::int64_t(v.size()); };
  VARIATE_CHECK(
      s.chain == c && s.iteration >= 0 && s.iteration <= total && size(s.position) == d && size(s.gradient) == d &&
          s.metric.dimension() == d && s.metric.kind() == o.metric && s.step_size > 0 && std::isfinite(s.step_size),
      "sample", "the resume state for chain ", c + 1, " does not fit this run: it is chain ", s.chain + 1,
      " at iteration ", s.iteration, " with ", s.position.size(), " coordinates, a ", metric_name(s.metric.kind()),
      " metric of dimension ", s.metric.dimension(), " and step size ", s.step_size, "; this run has ", total,
      " iterations, ", d, " coordinates and a ", metric_name(o.metric), " metric");
  const bool fisher = o.metric_adaptation == MetricAdaptation::fisher;
  VARIATE_CHECK(s.fisher.has_value() == fisher, "sample", "the resume state for chain ", c + 1, " was made by ",
                s.fisher ? "Fisher-divergence" : "Stan's windowed", " metric adaptation, this run uses ",
                fisher ? "Fisher-divergence" : "Stan's windowed", " adaptation");
  // The windows' sizes, here rather than when the chain restores them, so that no chain starts.
  if (s.fisher) FisherAdaptation(o.metric, d, o.num_warmup, o.fisher).restore(*s.fisher, s.iteration);
}

// What makes a ChEES state unusable: a non-positive or non-finite step size or trajectory length,
// a negative count or mean square, pooled sums of another dimension. Empty when it is usable.
std::string chees_state_fault(const CheesState& s, std::int64_t dimension) {
  const CheesAdaptationState& a = s.adaptation;
  const auto positive = [](double v) { return v > 0 && std::isfinite(v); };
  if (!positive(a.step_size) || !positive(a.trajectory_length))
    return "its step size " + std::to_string(a.step_size) + " and trajectory length " +
           std::to_string(a.trajectory_length) + " must be positive and finite";
  if (!(a.mean_square >= 0) || !std::isfinite(a.mean_square) || !std::isfinite(a.log_length_average) || a.count < 0 ||
      a.dual.count < 0 || !std::isfinite(a.dual.mu) || !std::isfinite(a.dual.s_bar) || !std::isfinite(a.dual.x_bar))
    return "its averages must be finite, with counts and mean square >= 0";
  if (!(s.trajectory_length >= 0) || !std::isfinite(s.trajectory_length))
    return "its trajectory length after warm-up " + std::to_string(s.trajectory_length) + " must be finite and >= 0";
  if (s.pooled && (s.pooled->count < 0 || std::int64_t(s.pooled->mean.size()) != dimension ||
                   std::int64_t(s.pooled->m2.size()) != dimension))
    return "its pooled sums must have a count >= 0 and " + std::to_string(dimension) + " means and sums of squares";
  return {};
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool same_chees_state(const CheesState& x, const CheesState& y) {
  const CheesAdaptationState &a = x.adaptation, &b = y.adaptation;
  const bool pooled = x.pooled.has_value() == y.pooled.has_value() &&
                      (!x.pooled || (x.pooled->count == y.pooled->count && same_bits(x.pooled->mean, y.pooled->mean) &&
                                     same_bits(x.pooled->m2, y.pooled->m2)));
  return same_bits(a.dual.mu, b.dual.mu) && same_bits(a.dual.s_bar, b.dual.s_bar) &&
         same_bits(a.dual.x_bar, b.dual.x_bar) && a.dual.count == b.dual.count && same_bits(a.step_size, b.step_size) &&
         same_bits(a.trajectory_length, b.trajectory_length) && same_bits(a.mean_square, b.mean_square) &&
         same_bits(a.log_length_average, b.log_length_average) && a.count == b.count && pooled &&
         same_bits(x.trajectory_length, y.trajectory_length);
}

// A vectorized batch's chains run in lockstep: all resume from the same iteration. ChEES's also
// share their adaptation: each carries a copy of it, which must be the same and usable.
void check_lockstep_resume(const Target& target, const SamplerOptions& o) {
  const bool chees = o.algorithm == Algorithm::chees;
  const std::optional<ChainState>& first = o.resume.front();
  for (std::size_t c = 0; c < o.resume.size(); ++c) {
    const std::optional<ChainState>& s = o.resume[c];
    VARIATE_CHECK(s.has_value() == first.has_value() && (!s || s->iteration == first->iteration), "sample",
                  "vectorized chains resume together: chain ", c + 1, "'s resume state is ",
                  s ? "at iteration " + std::to_string(s->iteration) : std::string("missing"), ", chain 1's ",
                  first ? "at iteration " + std::to_string(first->iteration) : std::string("missing"));
    if (!s) continue;
    VARIATE_CHECK(s->chees.has_value() == chees, "sample", "the resume state for chain ", c + 1,
                  chees ? " has no ChEES-HMC state: it was made by another sampler"
                        : " holds ChEES-HMC state: it was made by ChEES-HMC, not by this run's sampler");
    if (!chees) continue;
    const std::string fault = chees_state_fault(*s->chees, target.dimension);
    VARIATE_CHECK(fault.empty(), "sample", "chain ", c + 1, "'s ChEES-HMC state is corrupt: ", fault);
    VARIATE_CHECK(same_chees_state(*s->chees, *first->chees), "sample", "chain ", c + 1,
                  "'s copy of the ChEES-HMC state the chains share differs from chain 1's: the states come from "
                  "different runs or iterations");
  }
}

void check_checkpointing(const Target& target, const SamplerOptions& o) {
  VARIATE_CHECK(o.checkpoint_every >= 0, "sample", "checkpoint_every must be >= 0 (0: none), got ", o.checkpoint_every);
  VARIATE_CHECK(o.checkpoint_every == 0 || o.on_checkpoint, "sample", "checkpoint_every is ", o.checkpoint_every,
                " but on_checkpoint is not set");
  VARIATE_CHECK(o.resume.empty() || std::int64_t(o.resume.size()) == o.chains, "sample",
                "resume needs one entry per chain (", o.chains, "), got ", o.resume.size());
  for (std::size_t c = 0; c < o.resume.size(); ++c)
    if (o.resume[c]) check_resume(target, o, int(c), *o.resume[c]);
  if (o.vectorized && !o.resume.empty()) check_lockstep_resume(target, o);
  for (const WarmStart& w : o.warm_start)
    VARIATE_CHECK(std::int64_t(w.position.size()) == target.dimension && w.metric.dimension() == target.dimension &&
                      w.metric.kind() == o.metric && w.step_size > 0 && std::isfinite(w.step_size),
                  "sample", "a warm start needs ", target.dimension, " coordinates, a ", metric_name(o.metric),
                  " metric of that dimension and a positive step size; got ", w.position.size(), " coordinates, a ",
                  metric_name(w.metric.kind()), " metric of dimension ", w.metric.dimension(), " and step size ",
                  w.step_size);
}

void check_chees(const Target& target, const SamplerOptions& o) {
  if (o.algorithm != Algorithm::chees) return;
  VARIATE_CHECK(o.vectorized && o.chains >= 2, "sample",
                "ChEES-HMC adapts across chains that run together: it needs vectorized chains (vectorized = true) "
                "and at least 2 of them (many: 64 to 1024), got ",
                o.vectorized ? "vectorized" : "threaded", " chains and ", o.chains, " of them");
  VARIATE_CHECK(o.metric == MetricKind::diagonal && o.metric_adaptation == MetricAdaptation::stan_windows, "sample",
                "ChEES-HMC learns a diagonal metric from the chains' cross-chain variance; dense, low-rank and "
                "Fisher-divergence metrics are not supported with it");
  VARIATE_CHECK(o.warm_start.empty(), "sample", "warm starts are not supported with ChEES-HMC");
  VARIATE_CHECK(target.shard_axis.empty() && !distribute::running_axis(), "sample",
                "ChEES-HMC is not supported on a mesh of devices");
}

void check_options(const Target& target, const SamplerOptions& o) {
  // A sharded target may have no coordinates on a device with no rows; its dimension is the total.
  double dimension = double(target.dimension);
  if (!target.shard_axis.empty())
    distribute::psum_in_place({&dimension, 1}, target.shard_axis, "sampler dimension check");
  VARIATE_CHECK(dimension >= 1 && target.evaluate, "sample",
                "the model has no continuous latent variables to sample (dimension ", dimension, ")");
  VARIATE_CHECK(o.chains >= 1, "sample", "chains must be at least 1, got ", o.chains);
  VARIATE_CHECK(o.num_warmup >= 0 && o.num_draws >= 0, "sample", "warm-up and draw counts must be >= 0, got ",
                o.num_warmup, " and ", o.num_draws);
  VARIATE_CHECK(o.threads >= 0, "sample", "threads must be >= 0 (0 = one per core), got ", o.threads);
  VARIATE_CHECK(o.initial_step_size > 0 && std::isfinite(o.initial_step_size), "sample",
                "initial_step_size must be positive and finite, got ", o.initial_step_size);
  VARIATE_CHECK(o.init_radius > 0 && o.max_init_tries >= 1, "sample",
                "init_radius must be positive and max_init_tries >= 1, got ", o.init_radius, " and ", o.max_init_tries);
  const bool given = !o.initial_positions.empty() || o.initial_metric;
  VARIATE_CHECK(!given || target.shard_axis.empty(), "sample",
                "initial positions and metrics are not supported for a sharded target");
  VARIATE_CHECK(o.initial_positions.empty() ||
                    std::int64_t(o.initial_positions.size()) == std::int64_t(o.chains) * target.dimension,
                "sample", "initial_positions must hold chains x dimension = ", o.chains, " x ", target.dimension,
                " numbers, got ", o.initial_positions.size());
  VARIATE_CHECK(
      !o.initial_metric || (o.initial_metric->kind() == o.metric && o.initial_metric->dimension() == target.dimension),
      "sample", "initial_metric must be ", o.metric == MetricKind::dense ? "dense" : "diagonal", " of dimension ",
      target.dimension, ", got a ",
      o.initial_metric && o.initial_metric->kind() == MetricKind::dense ? "dense" : "diagonal", " metric of dimension ",
      o.initial_metric ? o.initial_metric->dimension() : 0);
  VARIATE_CHECK(o.metric_adaptation == MetricAdaptation::fisher || o.metric != MetricKind::low_rank, "sample",
                "a low-rank metric is learned by Fisher-divergence adaptation only (metric_adaptation = fisher)");
  VARIATE_CHECK(o.metric_adaptation != MetricAdaptation::fisher || o.metric != MetricKind::dense, "sample",
                "Fisher-divergence adaptation learns a diagonal or a low-rank metric, not a dense one; use the "
                "low-rank metric, or Stan's windows for a dense one");
  const auto& a = o.step_size_adaptation;
  VARIATE_CHECK(a.target_accept > 0 && a.target_accept < 1 && a.gamma > 0 && a.t0 >= 0 && a.kappa > 0, "sample",
                "step-size adaptation needs 0 < target_accept < 1, gamma > 0, t0 >= 0, kappa > 0; got ",
                a.target_accept, ", ", a.gamma, ", ", a.t0, ", ", a.kappa);
  check_checkpointing(target, o);
  check_chees(target, o);
}

}  // namespace

SampleResult sample(const Target& target, const SamplerOptions& o, const DrawCallback& on_draw) {
  check_options(target, o);
  SampleResult result;
  result.dimension = target.dimension;
  result.chains.resize(std::size_t(o.chains));
  // On a mesh device the chains run on the calling thread (collectives belong to the device's
  // thread), with the kernel threads the mesh gave the device.
  const bool on_device = distribute::running_axis() != nullptr;
  const int threads = o.threads > 0 ? o.threads
                      : on_device   ? omp_get_max_threads()
                                    : int(std::max(1u, std::thread::hardware_concurrency()));

  if (o.vectorized || o.chains == 1 || threads == 1 || on_device) {
    // One batch per thread-free pass: either all chains vectorized, or chains one after another.
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    std::vector<std::vector<int>> batches;
    if (o.vectorized) {
      batches.emplace_back();
      for (int c = 0; c < o.chains; ++c) batches.back().push_back(c);
    } else {
      for (int c = 0; c < o.chains; ++c) batches.push_back({c});
    }
    try {
      for (auto& ids : batches) {
        ChainBatch batch(target, o, ids);
        batch.run(on_draw, result.chains);
        result.interrupted = result.interrupted || batch.interrupted();
        result.target_calls += batch.target_calls();
        if (result.interrupted) break;
      }
    } catch (...) {
      omp_set_num_threads(saved);
      throw;
    }
    omp_set_num_threads(saved);
    return result;
  }

  // Threaded chains: workers take chains in order; each chain's kernels get the cores left over.
  // A worker that finds no chain left hands its cores to the chains still running, so that the
  // last chains of a run do not go on one core each while the others idle.
  const int workers = std::min(threads, o.chains);
  const int inner = std::max(1, threads / workers);
  std::atomic<int> busy{workers};
  const std::function<int()> kernel_threads = [&] {
    return std::max(inner, threads / std::max(1, busy.load(std::memory_order_relaxed)));
  };
  std::atomic<int> next{0};
  std::mutex mutex;
  // The error reported is the lowest-numbered failing chain's, whatever the timing: a chain is
  // skipped only when a lower one has failed, so that one always runs.
  std::vector<std::exception_ptr> errors(std::size_t(o.chains));
  int first_failed = o.chains;
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      omp_set_num_threads(inner);
      for (int c = next++; c < o.chains; c = next++) {
        {
          std::lock_guard lock(mutex);
          if (first_failed < c) continue;
        }
        try {
          ChainBatch batch(target, o, {c});
          batch.run(on_draw, result.chains, kernel_threads);
          std::lock_guard lock(mutex);
          result.interrupted = result.interrupted || batch.interrupted();
          result.target_calls += batch.target_calls();
        } catch (...) {
          std::lock_guard lock(mutex);
          errors[std::size_t(c)] = std::current_exception();
          first_failed = std::min(first_failed, c);
        }
      }
      --busy;
    });
  }
  for (auto& t : pool) t.join();
  if (first_failed < o.chains) std::rethrow_exception(errors[std::size_t(first_failed)]);
  return result;
}

}  // namespace variate::inference
