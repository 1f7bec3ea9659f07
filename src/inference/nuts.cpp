// Lockstep NUTS: Stan's algorithm (see kernel.hpp), run for a batch of chains with masks. Every
// per-chain decision is taken chain by chain exactly as a lone chain would take it; only the
// leapfrog steps are shared, so a chain's path depends on its key alone.
#include <algorithm>
#include <array>
#include <cmath>
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
  std::int64_t dimension = 0;
  std::vector<double> data;
  void resize(std::int64_t chains, std::int64_t d) {
    dimension = d;
    data.assign(std::size_t(chains * d), 0.0);
  }
  double* operator[](std::int64_t c) { return data.data() + c * dimension; }
  const double* operator[](std::int64_t c) const { return data.data() + c * dimension; }
};

/// The temporaries of one recursion level of build_tree.
struct Level {
  PhasePoints z_propose_final;
  Rows p_init_end, p_sharp_init_end, rho_init, p_final_beg, p_sharp_final_beg, rho_final;
  std::vector<double> log_sum_weight_init, log_sum_weight_final;
  ChainMask valid_init, active_final, valid_final;
};

class Nuts final : public Kernel {
 public:
  Nuts(NutsOptions options, std::int64_t chains, std::int64_t dimension);
  void transition(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step_size,
                  std::span<const random::Key> keys, const ChainMask& active, PhasePoints& state,
                  std::span<TransitionStats> stats) override;

 private:
  /// Builds a subtree of 2^depth leapfrog steps from z for every active chain (Stan's build_tree),
  /// writing the subtree's proposal, end momenta and their sharp versions, adding its momenta to
  /// rho and its weights to log_sum_weight; valid[c] says whether chain c's subtree is usable
  /// (no divergence, no U-turn inside).
  void build_tree(int depth, const ChainMask& active, PhasePoints& z_propose, Rows& p_sharp_beg, Rows& p_sharp_end,
                  Rows& rho, Rows& p_beg, Rows& p_end, std::vector<double>& log_sum_weight, ChainMask& valid);
  /// One no-U-turn check: p♯₋·ρ > 0 and p♯₊·ρ > 0.
  struct Check {
    const double* p_sharp_minus;
    const double* p_sharp_plus;
    const double* rho;
  };
  /// Whether chain c passes the three checks of a merge (the generalized criterion over the merged
  /// trajectory and across its seam), with the dot products taken over every device's coordinates
  /// when the metric is sharded: one psum for all six, whatever their outcome.
  bool no_u_turn(std::int64_t c, const std::array<Check, 3>& checks) const;

  NutsOptions options_;
  std::int64_t chains_, dim_;
  // The transition's context, valid during transition().
  Evaluator* evaluator_ = nullptr;
  std::span<const Metric> metrics_;
  std::vector<detail::ChainStream> streams_;
  std::vector<double> signed_step_, h0_, sum_metro_prob_;
  std::vector<int> n_leapfrog_;
  ChainMask divergent_;
  std::vector<double> velocity_, rho_merged_, rho_seam_init_, rho_seam_final_;
  // The trajectory: z is the integrator's running point; fwd/bck are the trajectory's ends.
  PhasePoints z_, z_fwd_, z_bck_, z_sample_, z_propose_;
  Rows p_fwd_fwd_, p_sharp_fwd_fwd_, p_fwd_bck_, p_sharp_fwd_bck_, p_bck_fwd_, p_sharp_bck_fwd_, p_bck_bck_,
      p_sharp_bck_bck_, rho_, rho_fwd_, rho_bck_;
  // The new subtree's outputs before they are filed as the forward or the backward part.
  Rows new_sharp_beg_, new_sharp_end_, new_p_beg_, new_p_end_, new_rho_;
  std::vector<double> log_sum_weight_, log_sum_weight_subtree_;
  ChainMask running_, forward_, valid_;
  std::vector<int> depth_;
  std::vector<Level> levels_;
};

Nuts::Nuts(NutsOptions options, std::int64_t chains, std::int64_t dimension)
    : options_(options), chains_(chains), dim_(dimension) {
  VARIATE_CHECK(options.max_tree_depth >= 1 && options.max_tree_depth <= 30, "NUTS",
                "max_tree_depth must be in [1, 30], got ", options.max_tree_depth);
  VARIATE_CHECK(options.max_energy_error > 0, "NUTS", "max_energy_error must be positive, got ",
                options.max_energy_error);
  const auto c = std::size_t(chains);
  for (PhasePoints* z : {&z_, &z_fwd_, &z_bck_, &z_sample_, &z_propose_}) *z = PhasePoints(chains, dimension);
  for (Rows* r : {&p_fwd_fwd_, &p_sharp_fwd_fwd_, &p_fwd_bck_, &p_sharp_fwd_bck_, &p_bck_fwd_, &p_sharp_bck_fwd_,
                  &p_bck_bck_, &p_sharp_bck_bck_, &rho_, &rho_fwd_, &rho_bck_, &new_sharp_beg_, &new_sharp_end_,
                  &new_p_beg_, &new_p_end_, &new_rho_})
    r->resize(chains, dimension);
  signed_step_.resize(c);
  h0_.resize(c);
  sum_metro_prob_.resize(c);
  n_leapfrog_.resize(c);
  divergent_.resize(c);
  log_sum_weight_.resize(c);
  log_sum_weight_subtree_.resize(c);
  running_.resize(c);
  forward_.resize(c);
  valid_.resize(c);
  depth_.resize(c);
  for (auto* v : {&rho_merged_, &rho_seam_init_, &rho_seam_final_}) v->resize(std::size_t(dimension));
  levels_.resize(std::size_t(options.max_tree_depth));
  for (Level& l : levels_) {
    l.z_propose_final = PhasePoints(chains, dimension);
    for (Rows* r : {&l.p_init_end, &l.p_sharp_init_end, &l.rho_init, &l.p_final_beg, &l.p_sharp_final_beg, &l.rho_final})
      r->resize(chains, dimension);
    l.log_sum_weight_init.resize(c);
    l.log_sum_weight_final.resize(c);
    l.valid_init.resize(c);
    l.active_final.resize(c);
    l.valid_final.resize(c);
  }
}

bool Nuts::no_u_turn(std::int64_t c, const std::array<Check, 3>& checks) const {
  const Metric& metric = metrics_[std::size_t(c)];
  const std::int64_t r = metric.replicated_dimension();
  std::array<double, 6> own{};  // over this device's own coordinates, then summed over the devices
  for (std::size_t k = 0; k < 3; ++k) {
    const Check& x = checks[k];
    for (std::int64_t i = r; i < dim_; ++i) {
      own[2 * k] += x.p_sharp_minus[i] * x.rho[i];
      own[2 * k + 1] += x.p_sharp_plus[i] * x.rho[i];
    }
  }
  metric.sum_over_devices(own, "no-U-turn criterion");
  bool pass = true;
  for (std::size_t k = 0; k < 3; ++k) {
    const Check& x = checks[k];
    double minus = 0, plus = 0;
    for (std::int64_t i = 0; i < r; ++i) {
      minus += x.p_sharp_minus[i] * x.rho[i];
      plus += x.p_sharp_plus[i] * x.rho[i];
    }
    pass = pass && minus + own[2 * k] > 0 && plus + own[2 * k + 1] > 0;
  }
  return pass;
}

void Nuts::build_tree(int depth, const ChainMask& active, PhasePoints& z_propose, Rows& p_sharp_beg, Rows& p_sharp_end,
                      Rows& rho, Rows& p_beg, Rows& p_end, std::vector<double>& log_sum_weight, ChainMask& valid) {
  const auto d = std::size_t(dim_);
  if (depth == 0) {
    leapfrog(*evaluator_, metrics_, signed_step_, active, z_, velocity_);
    for (std::int64_t c = 0; c < chains_; ++c) {
      valid[std::size_t(c)] = 0;
      if (!active[std::size_t(c)]) continue;
      ++n_leapfrog_[std::size_t(c)];
      const double h = hamiltonian(z_, c, metrics_[std::size_t(c)]);
      const double h0 = h0_[std::size_t(c)];
      if (h - h0 > options_.max_energy_error) divergent_[std::size_t(c)] = 1;
      log_sum_weight[std::size_t(c)] = log_sum_exp(log_sum_weight[std::size_t(c)], h0 - h);
      sum_metro_prob_[std::size_t(c)] += h0 - h > 0 ? 1.0 : std::exp(h0 - h);
      z_propose.copy_chain(z_, c);
      metrics_[std::size_t(c)].velocity(z_.p_of(c), p_sharp_beg[c]);
      std::copy_n(p_sharp_beg[c], d, p_sharp_end[c]);
      const double* p = z_.p_of(c);
      for (std::size_t i = 0; i < d; ++i) rho[c][i] += p[i];
      std::copy_n(p, d, p_beg[c]);
      std::copy_n(p, d, p_end[c]);
      valid[std::size_t(c)] = !divergent_[std::size_t(c)];
    }
    return;
  }
  Level& l = levels_[std::size_t(depth - 1)];
  for (std::int64_t c = 0; c < chains_; ++c) {
    if (!active[std::size_t(c)]) continue;
    l.log_sum_weight_init[std::size_t(c)] = kNegInf;
    std::fill_n(l.rho_init[c], d, 0.0);
  }
  build_tree(depth - 1, active, z_propose, p_sharp_beg, l.p_sharp_init_end, l.rho_init, p_beg, l.p_init_end,
             l.log_sum_weight_init, l.valid_init);
  bool any = false;
  for (std::int64_t c = 0; c < chains_; ++c) {
    const bool go = active[std::size_t(c)] && l.valid_init[std::size_t(c)];
    l.active_final[std::size_t(c)] = go;
    valid[std::size_t(c)] = 0;
    if (!go) continue;
    any = true;
    l.log_sum_weight_final[std::size_t(c)] = kNegInf;
    std::fill_n(l.rho_final[c], d, 0.0);
  }
  if (!any) return;
  build_tree(depth - 1, l.active_final, l.z_propose_final, l.p_sharp_final_beg, p_sharp_end, l.rho_final,
             l.p_final_beg, p_end, l.log_sum_weight_final, l.valid_final);
  for (std::int64_t c = 0; c < chains_; ++c) {
    if (!l.active_final[std::size_t(c)] || !l.valid_final[std::size_t(c)]) continue;
    // Uniform sampling within the new subtree: take the final half's proposal with its share of
    // the weight.
    const double lsw_final = l.log_sum_weight_final[std::size_t(c)];
    const double lsw_subtree = log_sum_exp(l.log_sum_weight_init[std::size_t(c)], lsw_final);
    log_sum_weight[std::size_t(c)] = log_sum_exp(log_sum_weight[std::size_t(c)], lsw_subtree);
    if (lsw_final > lsw_subtree || streams_[std::size_t(c)].uniform() < std::exp(lsw_final - lsw_subtree))
      z_propose.copy_chain(l.z_propose_final, c);
    double* r = rho[c];
    const double* ri = l.rho_init[c];
    const double* rf = l.rho_final[c];
    // rho_subtree = rho_init + rho_final: the criterion over the merged subtree; across the seam,
    // the initial half plus the final half's first point, and the final half plus the initial
    // half's last point.
    for (std::size_t i = 0; i < d; ++i) rho_merged_[i] = ri[i] + rf[i];
    for (std::size_t i = 0; i < d; ++i) r[i] += rho_merged_[i];
    for (std::size_t i = 0; i < d; ++i) rho_seam_init_[i] = ri[i] + l.p_final_beg[c][i];
    for (std::size_t i = 0; i < d; ++i) rho_seam_final_[i] = rf[i] + l.p_init_end[c][i];
    valid[std::size_t(c)] = no_u_turn(c, {Check{p_sharp_beg[c], p_sharp_end[c], rho_merged_.data()},
                                          Check{p_sharp_beg[c], l.p_sharp_final_beg[c], rho_seam_init_.data()},
                                          Check{l.p_sharp_init_end[c], p_sharp_end[c], rho_seam_final_.data()}});
  }
}

void Nuts::transition(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step_size,
                      std::span<const random::Key> keys, const ChainMask& active, PhasePoints& state,
                      std::span<TransitionStats> stats) {
  VARIATE_CHECK(state.chains == chains_ && state.dimension == dim_ && std::int64_t(metrics.size()) == chains_ &&
                    std::int64_t(step_size.size()) == chains_ && std::int64_t(keys.size()) == chains_ &&
                    std::int64_t(active.size()) == chains_ && std::int64_t(stats.size()) == chains_,
                "NUTS::transition", "expected state, metrics, step sizes, keys, mask and stats for ", chains_,
                " chains of dimension ", dim_);
  evaluator_ = &evaluator;
  metrics_ = metrics;
  const auto d = std::size_t(dim_);
  streams_.clear();
  for (std::int64_t c = 0; c < chains_; ++c) {
    streams_.push_back(detail::chain_stream(keys[std::size_t(c)]));
    running_[std::size_t(c)] = active[std::size_t(c)];
    if (!active[std::size_t(c)]) continue;
    // Momentum p ~ N(0, M).
    double* p = state.p_of(c);
    double* z = p_fwd_fwd_[c];  // scratch for the normals
    detail::fill_coordinates(streams_.back(), keys[std::size_t(c)], metrics[std::size_t(c)], z,
                             [](detail::ChainStream& s) { return s.normal(); });
    metrics[std::size_t(c)].momentum_from_normals(z, p);
    for (PhasePoints* pt : {&z_, &z_fwd_, &z_bck_, &z_sample_, &z_propose_}) pt->copy_chain(state, c);
    metrics[std::size_t(c)].velocity(p, p_sharp_fwd_fwd_[c]);
    for (Rows* r : {&p_fwd_fwd_, &p_fwd_bck_, &p_bck_fwd_, &p_bck_bck_, &rho_}) std::copy_n(p, d, (*r)[c]);
    for (Rows* r : {&p_sharp_fwd_bck_, &p_sharp_bck_fwd_, &p_sharp_bck_bck_})
      std::copy_n(p_sharp_fwd_fwd_[c], d, (*r)[c]);
    log_sum_weight_[std::size_t(c)] = 0;
    h0_[std::size_t(c)] = hamiltonian(state, c, metrics[std::size_t(c)]);
    n_leapfrog_[std::size_t(c)] = 0;
    sum_metro_prob_[std::size_t(c)] = 0;
    divergent_[std::size_t(c)] = 0;
    depth_[std::size_t(c)] = 0;
  }

  for (int depth = 0; depth < options_.max_tree_depth; ++depth) {
    bool any = false;
    for (std::int64_t c = 0; c < chains_; ++c) {
      if (!running_[std::size_t(c)]) continue;
      any = true;
      const bool fwd = streams_[std::size_t(c)].uniform() > 0.5;
      forward_[std::size_t(c)] = fwd;
      signed_step_[std::size_t(c)] = fwd ? step_size[std::size_t(c)] : -step_size[std::size_t(c)];
      log_sum_weight_subtree_[std::size_t(c)] = kNegInf;
      std::fill_n(new_rho_[c], d, 0.0);
      // The old trajectory becomes the far part; the new subtree grows from its end.
      if (fwd) {
        z_.copy_chain(z_fwd_, c);
        std::copy_n(rho_[c], d, rho_bck_[c]);
        std::copy_n(p_fwd_fwd_[c], d, p_bck_fwd_[c]);
        std::copy_n(p_sharp_fwd_fwd_[c], d, p_sharp_bck_fwd_[c]);
      } else {
        z_.copy_chain(z_bck_, c);
        std::copy_n(rho_[c], d, rho_fwd_[c]);
        std::copy_n(p_bck_bck_[c], d, p_fwd_bck_[c]);
        std::copy_n(p_sharp_bck_bck_[c], d, p_sharp_fwd_bck_[c]);
      }
    }
    if (!any) break;
    // One lockstep call serves both directions; its outputs are filed below as the forward or
    // the backward part of each chain's trajectory.
    build_tree(depth, running_, z_propose_, new_sharp_beg_, new_sharp_end_, new_rho_, new_p_beg_, new_p_end_,
               log_sum_weight_subtree_, valid_);
    for (std::int64_t c = 0; c < chains_; ++c) {
      if (!running_[std::size_t(c)]) continue;
      if (!valid_[std::size_t(c)]) {
        running_[std::size_t(c)] = 0;
        continue;
      }
      const bool fwd = forward_[std::size_t(c)];
      std::copy_n(new_sharp_beg_[c], d, (fwd ? p_sharp_fwd_bck_ : p_sharp_bck_fwd_)[c]);
      std::copy_n(new_sharp_end_[c], d, (fwd ? p_sharp_fwd_fwd_ : p_sharp_bck_bck_)[c]);
      std::copy_n(new_rho_[c], d, (fwd ? rho_fwd_ : rho_bck_)[c]);
      std::copy_n(new_p_beg_[c], d, (fwd ? p_fwd_bck_ : p_bck_fwd_)[c]);
      std::copy_n(new_p_end_[c], d, (fwd ? p_fwd_fwd_ : p_bck_bck_)[c]);
      (fwd ? z_fwd_ : z_bck_).copy_chain(z_, c);
      ++depth_[std::size_t(c)];
      // Biased progressive sampling: a new subtree heavier than the old trajectory always wins.
      const double lsw_subtree = log_sum_weight_subtree_[std::size_t(c)];
      double& lsw = log_sum_weight_[std::size_t(c)];
      if (lsw_subtree > lsw || streams_[std::size_t(c)].uniform() < std::exp(lsw_subtree - lsw))
        z_sample_.copy_chain(z_propose_, c);
      lsw = log_sum_exp(lsw, lsw_subtree);
      double* r = rho_[c];
      for (std::size_t i = 0; i < d; ++i) r[i] = rho_bck_[c][i] + rho_fwd_[c][i];
      for (std::size_t i = 0; i < d; ++i) rho_seam_init_[i] = rho_bck_[c][i] + p_fwd_bck_[c][i];
      for (std::size_t i = 0; i < d; ++i) rho_seam_final_[i] = rho_fwd_[c][i] + p_bck_fwd_[c][i];
      const bool persist = no_u_turn(c, {Check{p_sharp_bck_bck_[c], p_sharp_fwd_fwd_[c], r},
                                         Check{p_sharp_bck_bck_[c], p_sharp_fwd_bck_[c], rho_seam_init_.data()},
                                         Check{p_sharp_bck_fwd_[c], p_sharp_fwd_fwd_[c], rho_seam_final_.data()}});
      if (!persist) running_[std::size_t(c)] = 0;
    }
  }

  for (std::int64_t c = 0; c < chains_; ++c) {
    if (!active[std::size_t(c)]) continue;
    state.copy_chain(z_sample_, c);
    TransitionStats& s = stats[std::size_t(c)];
    s.log_density = state.log_density[std::size_t(c)];
    s.n_leapfrog = n_leapfrog_[std::size_t(c)];
    s.accept_stat = s.n_leapfrog > 0 ? sum_metro_prob_[std::size_t(c)] / s.n_leapfrog : 0.0;
    s.step_size = step_size[std::size_t(c)];
    s.tree_depth = depth_[std::size_t(c)];
    s.divergent = divergent_[std::size_t(c)];
    s.energy = hamiltonian(state, c, metrics[std::size_t(c)]);
  }
  evaluator_ = nullptr;
}

}  // namespace

std::unique_ptr<Kernel> make_nuts(NutsOptions options, std::int64_t chains, std::int64_t dimension) {
  return std::make_unique<Nuts>(options, chains, dimension);
}

}  // namespace variate::inference
