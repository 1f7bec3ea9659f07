#pragma once
// Mass-matrix adaptation by Fisher divergence, as nutpie does it (Seyboldt, Carlson & Carpenter,
// "Preconditioning Hamiltonian Monte Carlo by minimizing Fisher divergence", arXiv 2603.18845, and
// the nutpie documentation): the metric is learned from warm-up draws *and their gradients*, which
// carry far more information per draw than positions alone, and it is updated from the first
// draws on instead of after Stan's windows.
//
//   diagonal: M⁻¹ = diag(sqrt(Var(x_i) / Var(∂_i log p))), exact for any Gaussian with a diagonal
//             covariance;
//   low-rank: the same diagonal D, then in the coordinates scaled by it the covariance Σ minimizing
//             the sample Fisher divergence, Σ Cov(∇) Σ = Cov(x) (the geometric mean of Cov(x) and
//             Cov(∇)⁻¹), computed in the span of the window's draws and gradients; its eigenpairs
//             with eigenvalues outside [1/c, c] make M⁻¹ = D^½ (I + U (Λ − I) Uᵀ) D^½.
//
// Schedule (nutpie's): every draw goes to a foreground and a background window; the metric is
// re-estimated from the foreground, and every `switch` draws the background (the newest draws)
// becomes the foreground and a new background starts, so early transients are forgotten quickly.
// Switches come every early_switch draws in the first early_fraction of warm-up and every
// switch_interval draws after; the last final_fraction of warm-up adapts the step size only.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "variate/inference/metric.hpp"

namespace variate::inference {

/// The window schedule and low-rank settings of mass-matrix adaptation by Fisher divergence
/// (nutpie's, Seyboldt, Carlson & Carpenter).
struct FisherOptions {
  double early_fraction = 0.3;
  double final_fraction = 0.15;
  std::int64_t early_switch = 10;
  std::int64_t switch_interval = 80;
  /// A low-rank estimate costs eigendecompositions of up to (2·window) × (2·window) matrices; it is
  /// redone every this many draws (the diagonal one every draw).
  std::int64_t low_rank_update_interval = 10;
  double eigenvalue_cutoff = 2;  // c: eigenvalues in [1/c, c] are left at 1
  double regularization = 1e-5;  // γ added to both projected covariances (scaled coordinates)
  /// While the chain may still be travelling to the posterior (the first early_fraction of
  /// warm-up), λ is kept within [1/b, b]: a window learnt on the way, far from the posterior, can
  /// otherwise aim a direction at a region the chain then cannot leave (ARMA(1, 1) chains started
  /// with |θ| > 1, pulled into the narrow second mode with φ ≈ -θ). Later windows are unbounded.
  /// 1000 kept arma11 on 8 of seeds 1-10 (diag: 7) and cost kilpisjarvi 12% of its ESS/gradient;
  /// 100 did as well on arma11 but cost 30%.
  double early_eigenvalue_bound = 1000;
};

/// A FisherWindow's sums, as a checkpoint keeps them.
struct FisherWindowState {
  std::int64_t count = 0;
  std::vector<double> mean_x, m2_x, mean_g, m2_g;
  std::vector<double> draws, gradients;  // low_rank: count × dimension each; empty otherwise
};

/// A FisherAdaptation's two windows (the schedule's position is the iteration's, which the chain
/// keeps).
struct FisherState {
  FisherWindowState foreground, background;
};

/// One window of warm-up draws and gradients: their means and variances (Welford), and for a
/// low-rank estimate the draws themselves.
class FisherWindow {
 public:
  FisherWindow(MetricKind kind, std::int64_t dimension);
  void add(std::span<const double> x, std::span<const double> gradient);
  std::int64_t count() const { return count_; }
  void restart();
  /// restart(), and the memory of the stored draws and gradients is given back.
  void release();
  FisherWindowState state() const { return {count_, mean_x_, m2_x_, mean_g_, m2_g_, draws_, gradients_}; }
  /// Continues from `state` (a checkpoint's); throws unless its sizes fit this window.
  void restore(FisherWindowState state);
  /// The metric minimizing the window's Fisher divergence (needs count() >= 2). A coordinate whose
  /// draws or gradients did not vary in the window keeps `current`'s diagonal entry; a low-rank
  /// factor λ is kept within [1/eigenvalue_bound, eigenvalue_bound] (and within D's own bounds).
  Metric estimate(const Metric& current, const FisherOptions& options,
                  double eigenvalue_bound = std::numeric_limits<double>::infinity()) const;

 private:
  std::vector<double> diagonal(const Metric& current) const;
  MetricKind kind_;
  std::int64_t dimension_, count_ = 0;
  std::vector<double> mean_x_, m2_x_, mean_g_, m2_g_;
  std::vector<double> draws_, gradients_;  // low_rank: count × dimension each
};

/// The warm-up of one chain.
class FisherAdaptation {
 public:
  FisherAdaptation(MetricKind kind, std::int64_t dimension, std::int64_t num_warmup, FisherOptions options = {});
  /// The metric to start from, diag(1 / |∂_i log p(q₀)|) at the initial point, clamped to
  /// [1e-20, 1e20] (a coordinate with a zero gradient gets 1): exact for a Gaussian centred at 0
  /// with q₀ one standard deviation away, and on the right scale for most posteriors.
  Metric initial_metric(std::span<const double> gradient) const;
  /// Feeds warm-up iteration `iteration`'s draw and the gradient there; returns the new metric
  /// when this iteration changes it.
  std::optional<Metric> add(std::int64_t iteration, std::span<const double> x, std::span<const double> gradient,
                            const Metric& current);
  /// Whether the metric is fixed from the iteration after `iteration` on: then the step size's
  /// dual averaging starts over for the final window.
  bool ends_metric_adaptation(std::int64_t iteration) const { return iteration + 1 == final_start_; }
  FisherState state() const { return {foreground_.state(), background_.state()}; }
  /// Continues from `state` (a checkpoint's) before iteration `next_iteration`; throws unless its
  /// windows fit this adaptation. Past the metric-adapting iterations the windows are emptied, as
  /// add() empties them (a checkpoint of an earlier build kept them through the sampling).
  void restore(FisherState state, std::int64_t next_iteration);

 private:
  // The foreground window's metric after iteration `iteration`, when this iteration updates it.
  std::optional<Metric> estimate(std::int64_t iteration, const Metric& current) const;
  void release_windows();
  MetricKind kind_;
  FisherOptions options_;
  std::int64_t early_end_, final_start_;
  FisherWindow foreground_, background_;
};

}  // namespace variate::inference
