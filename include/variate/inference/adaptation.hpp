#pragma once
// Warm-up adaptation as Stan does it: dual averaging of the step size and Stan's windowed schedule
// for learning the metric.
#include <cstdint>
#include <vector>

namespace variate::inference {

struct DualAveragingOptions {
  double target_accept = 0.8;  // δ
  double gamma = 0.05;
  double t0 = 10;
  double kappa = 0.75;
};

/// Dual averaging's state between two updates, as a checkpoint keeps it.
struct DualAveragingState {
  double mu = 0, s_bar = 0, x_bar = 0;
  std::int64_t count = 0;
};

/// Nesterov's dual averaging applied to log(step size) (Hoffman & Gelman, "The No-U-Turn
/// Sampler", JMLR 15, 2014, algorithm 5), shrinking toward μ = log(10·ε₀).
class DualAveraging {
 public:
  explicit DualAveraging(DualAveragingOptions options = {}) : options_(options) {}
  /// Starts over, shrinking toward log(10·initial_step_size).
  void restart(double initial_step_size);
  /// Feeds one transition's acceptance statistic; returns the step size for the next transition.
  double update(double accept_stat);
  /// The averaged step size used after warm-up.
  double final_step_size() const;
  DualAveragingState state() const { return {mu_, s_bar_, x_bar_, count_}; }
  /// Continues from `state` (a checkpoint's) as if its updates had been made here.
  void restore(const DualAveragingState& state);

 private:
  DualAveragingOptions options_;
  double mu_ = 0, s_bar_ = 0, x_bar_ = 0;
  std::int64_t count_ = 0;
};

/// The adaptation windows within warm-up; the warm-up length itself is SamplerOptions::num_warmup.
struct WarmupOptions {
  std::int64_t init_buffer = 75;  // initial fast window: step size only
  std::int64_t term_buffer = 50;  // final fast window: step size only
  std::int64_t base_window = 25;  // first slow window; each next one doubles
};

/// Stan's windowed warm-up schedule. When the three buffers do not fit in num_warmup they become
/// 15% / 75% / 10% of it; below 20 warm-up iterations the metric is not adapted at all.
class WarmupSchedule {
 public:
  WarmupSchedule(std::int64_t num_warmup, WarmupOptions windows);
  /// Whether iteration `i` (0-based warm-up iteration) contributes to the metric estimate.
  bool in_slow_window(std::int64_t i) const;
  /// Whether a slow window ends after iteration `i`: then the metric is updated from its draws.
  bool ends_slow_window(std::int64_t i) const;

 private:
  std::int64_t num_warmup_;
  WarmupOptions windows_;
  bool adapt_metric_ = true;
  std::vector<std::int64_t> window_ends_;
};

}  // namespace variate::inference
