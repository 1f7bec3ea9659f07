#pragma once
// Pathfinder's Gaussian approximations along an L-BFGS path (Zhang, Carpenter, Gelman & Vehtari
// 2022, "Pathfinder: Parallel quasi-Newton variational inference", JMLR 23(306)): the inverse
// Hessian estimate of their Algorithm 4 and the normal of their Algorithm 2 (BFGS-Sample).
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace variate::inference::detail {

/// The L-BFGS estimate of the inverse of -Hessian(log p) from the path so far, kept as Algorithm 4
/// keeps it: a diagonal alpha, updated with every accepted step, and the last `history` steps s and
/// gradient changes y. Then H = diag(alpha) + beta gamma beta^T (Byrd, Nocedal & Schnabel 1994's
/// compact form), beta = [diag(alpha) Y, S].
class InverseHessianEstimate {
 public:
  InverseHessianEstimate(std::int64_t dimension, int history);
  /// Adds the step from x (gradient of log p: g) to x_next (g_next). A step without enough
  /// curvature, y.s <= 2.2e-16 |y|^2 with y = g - g_next, is left out (Algorithm 4's test), so H
  /// stays positive definite.
  void add_step(std::span<const double> x, std::span<const double> g, std::span<const double> x_next,
                std::span<const double> g_next);
  bool empty() const { return s_.empty(); }
  std::int64_t dimension() const { return std::int64_t(alpha_.size()); }
  const std::vector<double>& alpha() const { return alpha_; }
  const std::deque<std::vector<double>>& steps() const { return s_; }
  const std::deque<std::vector<double>>& gradient_changes() const { return y_; }

 private:
  int history_;
  std::vector<double> alpha_;
  std::deque<std::vector<double>> s_, y_;
};

/// The approximation at iterate x (gradient g): N(x + H g, H) for the estimate H, drawn as
/// Algorithm 2 does through a thin QR factorization of diag(alpha)^{-1/2} beta, so that a draw costs
/// O(d J) rather than O(d^2).
class PathfinderGaussian {
 public:
  /// Throws when H is not positive definite to working precision.
  PathfinderGaussian(const InverseHessianEstimate& h, std::span<const double> x, std::span<const double> g);
  std::int64_t dimension() const { return std::int64_t(mean_.size()); }
  const std::vector<double>& mean() const { return mean_; }
  /// H's diagonal.
  std::vector<double> variance() const;
  /// The draw for standard normals `normals` (d), written to `out` (d); returns log q there, with
  /// q's normalizing constant.
  double draw(std::span<const double> normals, std::span<double> out) const;
  /// log q at `x` (d), with q's normalizing constant.
  double log_density(std::span<const double> x) const;

 private:
  std::vector<double> mean_, sqrt_alpha_;
  std::vector<double> q_;  // (d, k) column-major: the thin QR's Q
  std::vector<double> l_;  // (k, k) column-major: the lower Cholesky factor of I + R gamma R^T
  std::int64_t k_ = 0;
  double log_det_ = 0;  // log det H
};

}  // namespace variate::inference::detail
