// Lockstep NUTS: Stan's algorithm (see kernel.hpp), run for a batch of chains with masks. Every
// per-chain decision is taken chain by chain exactly as a lone chain would take it; only the
// leapfrog steps are shared, so a chain's path depends on its key alone.
//
// Chains and coordinates are indexed with std::size_t throughout; PhasePoints takes them as is.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

#include "chain_random.hpp"
#include "variate/inference/kernel.hpp"

namespace variate::inference {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double log_sum_exp(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

/// (chains × dimension) vectors, one row per chain.
struct Rows {
  std::size_t dimension = 0;
  std::vector<double> data;
  Rows() = default;
  Rows(std::size_t chains, std::size_t d) : dimension(d), data(chains * d) {}
  double* operator[](std::size_t c) { return data.data() + c * dimension; }
  const double* operator[](std::size_t c) const { return data.data() + c * dimension; }
};

/// The momentum p at one end of a subtree and its sharp version p♯ = M⁻¹p.
struct EndMomenta {
  Rows p, p_sharp;
  EndMomenta(std::size_t chains, std::size_t d) : p(chains, d), p_sharp(chains, d) {}
};

/// What building a subtree of 2^depth leapfrog steps yields for each chain (the outputs of Stan's
/// build_tree). beg is the end nearest the trajectory the subtree grows from, end the far one.
struct Subtree {
  EndMomenta beg, end;
  Rows rho;                            // the sum of the subtree's momenta
  PhasePoints proposal;                // the point drawn from the subtree, uniformly by weight
  std::vector<double> log_sum_weight;  // log Σ exp(H0 - H) over the subtree's points
  ChainMask active;                    // the chains the subtree is built for
  ChainMask valid;                     // built, with no divergence and no U-turn inside
  Subtree(std::size_t chains, std::size_t d)
      : beg(chains, d),
        end(chains, d),
        rho(chains, d),
        proposal(chains, d),
        log_sum_weight(chains),
        active(chains),
        valid(chains) {}
};

/// The trajectory so far: its forward and backward end points, p♯ at each, and Σp over it.
struct Trajectory {
  PhasePoints fwd, bck;
  Rows p_sharp_fwd, p_sharp_bck, rho;
  Trajectory(std::size_t chains, std::size_t d)
      : fwd(chains, d), bck(chains, d), p_sharp_fwd(chains, d), p_sharp_bck(chains, d), rho(chains, d) {}
};

/// One chain's view of two adjacent runs of leapfrog points that are about to be merged: the
/// first run, then the second continuing it in the direction of integration.
struct Run {
  const double* p_sharp_beg;
  const double* p_sharp_end;
  const double* p_beg;
  const double* p_end;
  const double* rho;
};

/// One chain's bookkeeping over a transition.
struct ChainTally {
  double h0 = 0;              // the Hamiltonian at the starting point
  double log_sum_weight = 0;  // over the whole trajectory
  double sum_metro_prob = 0;
  int n_leapfrog = 0;
  int depth = 0;
  bool divergent = false;
  bool forward = false;  // the direction of the subtree being built
};

class Nuts final : public Kernel {
 public:
  Nuts(NutsOptions options, std::int64_t chains, std::int64_t dimension);
  void transition(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step_size,
                  std::span<const random::Key> keys, const ChainMask& active, PhasePoints& state,
                  std::span<TransitionStats> stats) override;

 private:
  void start(std::size_t c, const random::Key& key, PhasePoints& state);
  /// Builds a subtree of 2^depth leapfrog steps from z_ for the chains in out.active (Stan's
  /// build_tree): the first half into `out` itself, the second into a level's spare subtree,
  /// then merged into `out`.
  void build_tree(int depth, Subtree& out);
  void build_leaf(Subtree& out);
  /// Merges `second` (built after `out`, in the same direction) into `out` for chain c.
  void merge(std::size_t c, Subtree& out, const Subtree& second);
  /// Adds the new subtree to chain c's trajectory; whether the trajectory keeps growing.
  bool extend(std::size_t c);
  /// Whether chain c passes the generalized no-U-turn criterion over the two runs merged, and
  /// across their seam (the first run plus the second's first point, the second plus the first's
  /// last point). Leaves the merged Σp in rho_merged_. The dot products are taken over every
  /// device's coordinates when the metric is sharded: one psum for all six.
  bool no_u_turn(std::size_t c, const Run& first, const Run& second);
  void finish(std::size_t c, PhasePoints& state, double step_size, TransitionStats& s) const;

  NutsOptions options_;
  std::size_t chains_, dim_;
  // The transition's context, valid during transition().
  Evaluator* evaluator_ = nullptr;
  std::span<const Metric> metrics_;
  std::vector<detail::ChainStream> streams_;
  std::vector<ChainTally> tally_;
  std::vector<double> signed_step_;
  ChainMask running_;
  // z_ is the integrator's running point; sample_ the point selected so far.
  PhasePoints z_, sample_;
  Trajectory trajectory_;
  Subtree subtree_;
  std::vector<Subtree> second_halves_;  // [depth - 1]: the second half of a subtree of that depth
  std::vector<double> velocity_, normals_, rho_merged_, rho_seam_first_, rho_seam_second_;
};

Nuts::Nuts(NutsOptions options, std::int64_t chains, std::int64_t dimension)
    : options_(options),
      chains_(std::size_t(chains)),
      dim_(std::size_t(dimension)),
      tally_(chains_),
      signed_step_(chains_),
      running_(chains_),
      z_(chains, dimension),
      sample_(chains, dimension),
      trajectory_(chains_, dim_),
      subtree_(chains_, dim_),
      normals_(dim_),
      rho_merged_(dim_),
      rho_seam_first_(dim_),
      rho_seam_second_(dim_) {
  VARIATE_CHECK(options.max_tree_depth >= 1 && options.max_tree_depth <= 30, "NUTS",
                "max_tree_depth must be in [1, 30], got ", options.max_tree_depth);
  VARIATE_CHECK(options.max_energy_error > 0, "NUTS", "max_energy_error must be positive, got ",
                options.max_energy_error);
  second_halves_.reserve(std::size_t(options.max_tree_depth));
  for (int k = 0; k < options.max_tree_depth; ++k) second_halves_.emplace_back(chains_, dim_);
}

bool Nuts::no_u_turn(std::size_t c, const Run& first, const Run& second) {
  const std::size_t d = dim_;
  for (std::size_t i = 0; i < d; ++i) rho_merged_[i] = first.rho[i] + second.rho[i];
  for (std::size_t i = 0; i < d; ++i) rho_seam_first_[i] = first.rho[i] + second.p_beg[i];
  for (std::size_t i = 0; i < d; ++i) rho_seam_second_[i] = second.rho[i] + first.p_end[i];
  // p♯₋·ρ > 0 and p♯₊·ρ > 0 for each of the three.
  struct Check {
    const double* p_sharp_minus;
    const double* p_sharp_plus;
    const double* rho;
  };
  const std::array<Check, 3> checks{Check{first.p_sharp_beg, second.p_sharp_end, rho_merged_.data()},
                                    Check{first.p_sharp_beg, second.p_sharp_beg, rho_seam_first_.data()},
                                    Check{first.p_sharp_end, second.p_sharp_end, rho_seam_second_.data()}};
  const Metric& metric = metrics_[c];
  const auto r = std::size_t(metric.replicated_dimension());
  std::array<double, 6> own{};  // over this device's own coordinates, then summed over the devices
  for (std::size_t k = 0; k < 3; ++k) {
    const Check& x = checks[k];
    for (std::size_t i = r; i < d; ++i) {
      own[2 * k] += x.p_sharp_minus[i] * x.rho[i];
      own[2 * k + 1] += x.p_sharp_plus[i] * x.rho[i];
    }
  }
  metric.sum_over_devices(own, "no-U-turn criterion");
  bool pass = true;
  for (std::size_t k = 0; k < 3; ++k) {
    const Check& x = checks[k];
    double minus = 0, plus = 0;
    for (std::size_t i = 0; i < r; ++i) {
      minus += x.p_sharp_minus[i] * x.rho[i];
      plus += x.p_sharp_plus[i] * x.rho[i];
    }
    pass = pass && minus + own[2 * k] > 0 && plus + own[2 * k + 1] > 0;
  }
  return pass;
}

void Nuts::build_leaf(Subtree& out) {
  leapfrog(*evaluator_, metrics_, signed_step_, out.active, z_, velocity_);
  for (std::size_t c = 0; c < chains_; ++c) {
    out.valid[c] = 0;
    if (!out.active[c]) continue;
    ChainTally& t = tally_[c];
    ++t.n_leapfrog;
    const double h = hamiltonian(z_, c, metrics_[c]);
    if (h - t.h0 > options_.max_energy_error) t.divergent = true;
    out.log_sum_weight[c] = t.h0 - h;
    t.sum_metro_prob += t.h0 - h > 0 ? 1.0 : std::exp(t.h0 - h);
    out.proposal.copy_chain(z_, c);
    const double* p = z_.p_of(c);
    metrics_[c].velocity(p, out.beg.p_sharp[c]);
    std::copy_n(out.beg.p_sharp[c], dim_, out.end.p_sharp[c]);
    std::copy_n(p, dim_, out.rho[c]);
    std::copy_n(p, dim_, out.beg.p[c]);
    std::copy_n(p, dim_, out.end.p[c]);
    out.valid[c] = !t.divergent;
  }
}

void Nuts::merge(std::size_t c, Subtree& out, const Subtree& second) {
  // Uniform sampling within the new subtree: take the second half's proposal with its share of
  // the weight.
  const double lsw_second = second.log_sum_weight[c];
  const double lsw = log_sum_exp(out.log_sum_weight[c], lsw_second);
  out.log_sum_weight[c] = lsw;
  if (lsw_second > lsw || streams_[c].uniform() < std::exp(lsw_second - lsw))
    out.proposal.copy_chain(second.proposal, c);
  out.valid[c] =
      no_u_turn(c, Run{out.beg.p_sharp[c], out.end.p_sharp[c], out.beg.p[c], out.end.p[c], out.rho[c]},
                Run{second.beg.p_sharp[c], second.end.p_sharp[c], second.beg.p[c], second.end.p[c], second.rho[c]});
  std::copy_n(rho_merged_.data(), dim_, out.rho[c]);
  std::copy_n(second.end.p[c], dim_, out.end.p[c]);
  std::copy_n(second.end.p_sharp[c], dim_, out.end.p_sharp[c]);
}

void Nuts::build_tree(int depth, Subtree& out) {
  if (depth == 0) return build_leaf(out);
  build_tree(depth - 1, out);
  Subtree& second = second_halves_[std::size_t(depth - 1)];
  bool any = false;
  for (std::size_t c = 0; c < chains_; ++c) {
    second.active[c] = out.active[c] && out.valid[c];
    any = any || second.active[c];
  }
  if (!any) return;
  build_tree(depth - 1, second);
  for (std::size_t c = 0; c < chains_; ++c) {
    if (!second.active[c]) continue;
    if (second.valid[c])
      merge(c, out, second);
    else
      out.valid[c] = 0;
  }
}

bool Nuts::extend(std::size_t c) {
  ChainTally& t = tally_[c];
  Trajectory& tr = trajectory_;
  ++t.depth;
  // Biased progressive sampling: a new subtree heavier than the old trajectory always wins.
  const double lsw_subtree = subtree_.log_sum_weight[c];
  if (lsw_subtree > t.log_sum_weight || streams_[c].uniform() < std::exp(lsw_subtree - t.log_sum_weight))
    sample_.copy_chain(subtree_.proposal, c);
  t.log_sum_weight = log_sum_exp(t.log_sum_weight, lsw_subtree);
  // The old trajectory, run towards the end the subtree grew from, then the subtree.
  const Run old = t.forward ? Run{tr.p_sharp_bck[c], tr.p_sharp_fwd[c], tr.bck.p_of(c), tr.fwd.p_of(c), tr.rho[c]}
                            : Run{tr.p_sharp_fwd[c], tr.p_sharp_bck[c], tr.fwd.p_of(c), tr.bck.p_of(c), tr.rho[c]};
  const bool persist = no_u_turn(
      c, old,
      Run{subtree_.beg.p_sharp[c], subtree_.end.p_sharp[c], subtree_.beg.p[c], subtree_.end.p[c], subtree_.rho[c]});
  std::copy_n(rho_merged_.data(), dim_, tr.rho[c]);
  (t.forward ? tr.fwd : tr.bck).copy_chain(z_, c);
  std::copy_n(subtree_.end.p_sharp[c], dim_, (t.forward ? tr.p_sharp_fwd : tr.p_sharp_bck)[c]);
  return persist;
}

void Nuts::start(std::size_t c, const random::Key& key, PhasePoints& state) {
  // Momentum p ~ N(0, M).
  double* p = state.p_of(c);
  detail::fill_coordinates(streams_[c], key, metrics_[c], normals_.data(),
                           [](detail::ChainStream& s) { return s.normal(); });
  metrics_[c].momentum_from_normals(normals_.data(), p);
  for (PhasePoints* pt : {&z_, &trajectory_.fwd, &trajectory_.bck, &sample_}) pt->copy_chain(state, c);
  metrics_[c].velocity(p, trajectory_.p_sharp_fwd[c]);
  std::copy_n(trajectory_.p_sharp_fwd[c], dim_, trajectory_.p_sharp_bck[c]);
  std::copy_n(p, dim_, trajectory_.rho[c]);
  tally_[c] = ChainTally{.h0 = hamiltonian(state, c, metrics_[c])};
}

void Nuts::finish(std::size_t c, PhasePoints& state, double step_size, TransitionStats& s) const {
  const ChainTally& t = tally_[c];
  state.copy_chain(sample_, c);
  s.log_density = state.log_density[c];
  s.n_leapfrog = t.n_leapfrog;
  s.accept_stat = t.n_leapfrog > 0 ? t.sum_metro_prob / t.n_leapfrog : 0.0;
  s.step_size = step_size;
  s.tree_depth = t.depth;
  s.divergent = t.divergent;
  s.energy = hamiltonian(state, c, metrics_[c]);
}

void Nuts::transition(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step_size,
                      std::span<const random::Key> keys, const ChainMask& active, PhasePoints& state,
                      std::span<TransitionStats> stats) {
  VARIATE_CHECK(state.chains == std::int64_t(chains_) && state.dimension == std::int64_t(dim_) &&
                    metrics.size() == chains_ && step_size.size() == chains_ && keys.size() == chains_ &&
                    active.size() == chains_ && stats.size() == chains_,
                "NUTS::transition", "expected state, metrics, step sizes, keys, mask and stats for ", chains_,
                " chains of dimension ", dim_);
  evaluator_ = &evaluator;
  metrics_ = metrics;
  streams_.clear();
  for (std::size_t c = 0; c < chains_; ++c) {
    streams_.push_back(detail::chain_stream(keys[c]));
    running_[c] = active[c];
    if (active[c]) start(c, keys[c], state);
  }
  for (int depth = 0; depth < options_.max_tree_depth; ++depth) {
    bool any = false;
    for (std::size_t c = 0; c < chains_; ++c) {
      subtree_.active[c] = running_[c];
      if (!running_[c]) continue;
      any = true;
      ChainTally& t = tally_[c];
      t.forward = streams_[c].uniform() > 0.5;
      signed_step_[c] = t.forward ? step_size[c] : -step_size[c];
      // The new subtree grows from the end in its direction.
      z_.copy_chain(t.forward ? trajectory_.fwd : trajectory_.bck, c);
    }
    if (!any) break;
    // One lockstep call serves both directions.
    build_tree(depth, subtree_);
    for (std::size_t c = 0; c < chains_; ++c)
      if (running_[c]) running_[c] = subtree_.valid[c] && extend(c);
  }
  for (std::size_t c = 0; c < chains_; ++c)
    if (active[c]) finish(c, state, step_size[c], stats[c]);
  evaluator_ = nullptr;
}

}  // namespace

std::unique_ptr<Kernel> make_nuts(NutsOptions options, std::int64_t chains, std::int64_t dimension) {
  return std::make_unique<Nuts>(options, chains, dimension);
}

}  // namespace variate::inference
