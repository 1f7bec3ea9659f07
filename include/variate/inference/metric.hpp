#pragma once
// The Euclidean metric of HMC: the kinetic energy K(p) = ½ pᵀ M⁻¹ p with an inverse mass matrix
// M⁻¹ that is diagonal, dense, or low-rank plus diagonal, and the Welford estimates Stan's warm-up
// learns it from (fisher_adaptation.hpp has the other way to learn it).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace variate::inference {

/// low_rank: M⁻¹ = D^½ (I + U (Λ − I) Uᵀ) D^½ with D diagonal, U (dimension × k) orthonormal and
/// Λ = diag(λ) (Seyboldt, Carlson & Carpenter, arXiv 2603.18845): every operation costs O(dimension·k).
enum class MetricKind { diagonal, dense, low_rank };

class Metric {
 public:
  Metric() = default;
  /// M⁻¹ = I.
  static Metric unit(MetricKind kind, std::int64_t dimension);
  /// M⁻¹ = diag(inverse_diagonal); every entry positive and finite.
  static Metric diagonal(std::vector<double> inverse_diagonal);
  /// M⁻¹ given row-major (dimension × dimension); must be symmetric positive definite.
  static Metric dense(std::vector<double> inverse, std::int64_t dimension);
  /// M⁻¹ = D^½ (I + U (Λ − I) Uᵀ) D^½ with D = diag(diagonal) (positive, finite), U's columns the
  /// k = eigenvalues.size() orthonormal `directions` (stored direction after direction: k × dimension)
  /// and Λ = diag(eigenvalues) (positive, finite). k = 0 is the diagonal metric D.
  static Metric low_rank(std::vector<double> diagonal, std::vector<double> directions, std::vector<double> eigenvalues);

  MetricKind kind() const { return kind_; }
  std::int64_t dimension() const { return dimension_; }
  /// The diagonal, or the row-major matrix, of M⁻¹; for low_rank, D.
  const std::vector<double>& inverse() const { return inverse_; }
  /// low_rank: U (k × dimension, one direction after another) and λ; empty for the other kinds.
  const std::vector<double>& directions() const { return directions_; }
  const std::vector<double>& eigenvalues() const { return eigenvalues_; }
  /// What a draw file's adaptation block shows: inverse() for diagonal and dense metrics, the
  /// diagonal of M⁻¹ for low_rank ones (a dense matrix would be dimension² numbers).
  std::vector<double> reported_inverse() const;

  /// v = M⁻¹ p (p and v must not overlap): the velocity dq/dt, and the "sharp" momentum of the
  /// no-U-turn criterion.
  void velocity(const double* p, double* v) const;
  /// ½ pᵀ M⁻¹ p.
  double kinetic_energy(const double* p) const;
  /// p ~ N(0, M) from standard normals z (z and p must not overlap): p = L⁻ᵀ z with L Lᵀ = M⁻¹;
  /// low_rank: p = D^-½ (I + U (Λ^-½ − I) Uᵀ) z, whose covariance is M.
  void momentum_from_normals(const double* z, double* p) const;

  /// This metric over coordinates split across the devices of a mesh axis (a sharded momentum,
  /// DESIGN.md layer 7): the first `replicated` coordinates are the same on every device, the
  /// others are this device's own part. Kinetic energies then add up every device's part, and
  /// sum_over_devices serves the sampler's other sums over coordinates (the no-U-turn criterion).
  /// Diagonal metrics only: a dense or low-rank one would couple coordinates that live on different
  /// devices.
  Metric sharded_over(std::string axis, std::int64_t replicated) const;
  bool sharded() const { return !axis_.empty(); }
  const std::string& shard_axis() const { return axis_; }
  /// How many leading coordinates are the same on every device (all of them when not sharded).
  std::int64_t replicated_dimension() const { return sharded() ? replicated_ : dimension_; }
  /// Adds to each entry the same entry of every other device of the axis, in device order, so the
  /// result is identical everywhere (a collective: every device calls it; `what` names it, see
  /// distribute::psum_in_place). Nothing when unsharded.
  void sum_over_devices(std::span<double> partial, const char* what) const;

 private:
  MetricKind kind_ = MetricKind::diagonal;
  std::int64_t dimension_ = 0;
  std::vector<double> inverse_;
  std::vector<double> cholesky_;  // dense: lower L with L Lᵀ = M⁻¹; diagonal: 1/sqrt(M⁻¹); low_rank: sqrt(D)
  std::vector<double> directions_, eigenvalues_;  // low_rank: U and λ
  std::string axis_;                              // sharded: the mesh axis
  std::int64_t replicated_ = 0;
};

/// A WelfordEstimator's running sums, as a checkpoint keeps them.
struct WelfordState {
  std::int64_t count = 0;
  std::vector<double> mean, m2;  // m2: diagonal sums of squares, or the row-major matrix
};

/// Running mean and (co)variance of warm-up positions (Welford, "Note on a method for calculating
/// corrected sums of squares and products", Technometrics 4, 1962), regularized toward 1e-3·I as
/// Stan does: Σ̂ = n/(n+5)·S + 1e-3·5/(n+5)·I, so a short window cannot give a singular metric.
class WelfordEstimator {
 public:
  WelfordEstimator(MetricKind kind, std::int64_t dimension);
  void add(std::span<const double> x);
  std::int64_t count() const { return count_; }
  void restart();
  WelfordState state() const { return {count_, mean_, m2_}; }
  /// Continues from `state` (a checkpoint's); throws unless its sizes fit this estimator.
  void restore(WelfordState state);
  /// The regularized estimate as a metric (needs count() >= 2).
  Metric regularized_metric() const;

 private:
  MetricKind kind_;
  std::int64_t dimension_, count_ = 0;
  std::vector<double> mean_, m2_, delta_;  // m2_: diagonal sums of squares, or the full matrix
};

}  // namespace variate::inference
