#include "variate/inference/fisher_adaptation.hpp"

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

#include "variate/core/error.hpp"

namespace variate::inference {
namespace {

using Matrix = Eigen::MatrixXd;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// nutpie's bounds on the diagonal: wide, so that they only keep it positive and finite.
constexpr double kLowest = 1e-20, kHighest = 1e20;

/// V diag(λᵖ) Vᵀ for a symmetric positive semi-definite A = V diag(λ) Vᵀ; eigenvalues that
/// rounding made non-positive count as the smallest positive one's 1e-12.
Matrix symmetric_power(const Matrix& a, double power) {
  Eigen::SelfAdjointEigenSolver<Matrix> es(a);
  Eigen::VectorXd values = es.eigenvalues();
  const double floor = std::max(values.maxCoeff(), 0.0) * 1e-12 + 1e-300;
  for (Eigen::Index i = 0; i < values.size(); ++i) values[i] = std::pow(std::max(values[i], floor), power);
  return es.eigenvectors() * values.asDiagonal() * es.eigenvectors().transpose();
}

/// The Σ with Σ B Σ = A (the geometric mean of A and B⁻¹): B^-½ (B^½ A B^½)^½ B^-½.
Matrix geometric_mean_with_inverse(const Matrix& a, const Matrix& b) {
  const Matrix b_half = symmetric_power(b, 0.5), b_minus_half = symmetric_power(b, -0.5);
  const Matrix inner = b_half * a * b_half;
  const Matrix sigma = b_minus_half * symmetric_power(0.5 * (inner + inner.transpose()), 0.5) * b_minus_half;
  return 0.5 * (sigma + sigma.transpose());
}

/// An orthonormal basis (dimension × m) of the span of the columns of `vectors`, or the identity
/// when they are at least as many as the coordinates.
Matrix span_basis(const Matrix& vectors) {
  const Eigen::Index d = vectors.rows(), m = vectors.cols();
  if (m >= d) return Matrix::Identity(d, d);
  const Eigen::HouseholderQR<Matrix> qr(vectors);
  return qr.householderQ() * Matrix::Identity(d, m);
}

}  // namespace

FisherWindow::FisherWindow(MetricKind kind, std::int64_t dimension) : kind_(kind), dimension_(dimension) {
  VARIATE_CHECK(kind != MetricKind::dense, "FisherWindow",
                "Fisher-divergence adaptation learns a diagonal or a low-rank plus diagonal metric, not a dense one");
  restart();
}

void FisherWindow::restart() {
  const auto d = std::size_t(dimension_);
  count_ = 0;
  mean_x_.assign(d, 0.0);
  m2_x_.assign(d, 0.0);
  mean_g_.assign(d, 0.0);
  m2_g_.assign(d, 0.0);
  draws_.clear();
  gradients_.clear();
}

void FisherWindow::release() {
  restart();
  draws_ = {};
  gradients_ = {};
}

void FisherWindow::restore(FisherWindowState state) {
  const auto d = std::size_t(dimension_);
  // The count comes from a file: a low-rank window's is checked against its stored draws by
  // division, since count × d could wrap around to their size (and estimate would read past them).
  const bool low_rank = kind_ == MetricKind::low_rank;
  const bool count_fits =
      state.count >= 0 &&
      (!low_rank || (d > 0 && state.draws.size() % d == 0 && std::uint64_t(state.count) == state.draws.size() / d));
  const std::size_t kept = low_rank && count_fits ? std::size_t(state.count) * d : 0;
  const auto fits = [d](const std::vector<double>& v) { return v.size() == d; };
  VARIATE_CHECK(count_fits && fits(state.mean_x) && fits(state.m2_x) && fits(state.mean_g) && fits(state.m2_g) &&
                    state.draws.size() == kept && state.gradients.size() == kept,
                "FisherWindow::restore", "expected a count >= 0, ", d, " means and sums of squares of draws and of ",
                "gradients, and count x ", d, " = ", kept, " stored draws and gradients; got count ", state.count, ", ",
                state.mean_x.size(), ", ", state.m2_x.size(), ", ", state.mean_g.size(), ", ", state.m2_g.size(), ", ",
                state.draws.size(), " and ", state.gradients.size());
  count_ = state.count;
  mean_x_ = std::move(state.mean_x);
  m2_x_ = std::move(state.m2_x);
  mean_g_ = std::move(state.mean_g);
  m2_g_ = std::move(state.m2_g);
  draws_ = std::move(state.draws);
  gradients_ = std::move(state.gradients);
}

void FisherWindow::add(std::span<const double> x, std::span<const double> gradient) {
  const auto d = std::size_t(dimension_);
  VARIATE_CHECK(x.size() == d && gradient.size() == d, "FisherWindow::add", "expected ", d,
                " numbers for the draw and for its gradient, got ", x.size(), " and ", gradient.size());
  ++count_;
  const double n = double(count_);
  for (std::size_t i = 0; i < d; ++i) {  // Welford, as WelfordEstimator
    const double dx = x[i] - mean_x_[i], dg = gradient[i] - mean_g_[i];
    mean_x_[i] += dx / n;
    mean_g_[i] += dg / n;
    m2_x_[i] += dx * (x[i] - mean_x_[i]);
    m2_g_[i] += dg * (gradient[i] - mean_g_[i]);
  }
  if (kind_ != MetricKind::low_rank) return;
  draws_.insert(draws_.end(), x.begin(), x.end());
  gradients_.insert(gradients_.end(), gradient.begin(), gradient.end());
}

std::vector<double> FisherWindow::diagonal(const Metric& current) const {
  const std::vector<double>& previous = current.inverse();  // the diagonal, or D
  std::vector<double> out(static_cast<std::size_t>(dimension_));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double ratio = m2_x_[i] / m2_g_[i];  // Var(x_i) / Var(g_i): the 1/n cancels
    out[i] = std::isfinite(ratio) && ratio > 0 ? std::clamp(std::sqrt(ratio), kLowest, kHighest) : previous[i];
  }
  return out;
}

Metric FisherWindow::estimate(const Metric& current, const FisherOptions& o, double eigenvalue_bound) const {
  VARIATE_CHECK(eigenvalue_bound >= 1, "FisherWindow::estimate", "expected an eigenvalue bound >= 1, got ",
                eigenvalue_bound);
  VARIATE_CHECK(count_ >= 2, "FisherWindow::estimate", "needs at least 2 draws, got ", count_);
  std::vector<double> diag = diagonal(current);
  if (kind_ == MetricKind::diagonal) return Metric::diagonal(std::move(diag));
  // Centred draws and gradients, scaled by the diagonal: x / sqrt(D) and g · sqrt(D).
  const Eigen::Index n = Eigen::Index(count_), d = Eigen::Index(dimension_);
  const Eigen::Map<const RowMajor> x(draws_.data(), n, d), g(gradients_.data(), n, d);
  const Eigen::Map<const Eigen::RowVectorXd> mean_x(mean_x_.data(), d), mean_g(mean_g_.data(), d);
  const Eigen::ArrayXd scale = Eigen::Map<const Eigen::ArrayXd>(diag.data(), d).sqrt();
  Matrix both(d, 2 * n);
  both.leftCols(n) = ((x.rowwise() - mean_x).array().rowwise() / scale.transpose()).transpose();
  both.rightCols(n) = ((g.rowwise() - mean_g).array().rowwise() * scale.transpose()).transpose();
  // Outside the span of the window's draws and gradients the sample says nothing: work inside it.
  const Matrix basis = span_basis(both);
  const Matrix px = basis.transpose() * both.leftCols(n), pg = basis.transpose() * both.rightCols(n);
  const Eigen::Index m = basis.cols();
  const Matrix cov_x = px * px.transpose() / double(n) + o.regularization * Matrix::Identity(m, m);
  const Matrix cov_g = pg * pg.transpose() / double(n) + o.regularization * Matrix::Identity(m, m);
  const Eigen::SelfAdjointEigenSolver<Matrix> es(geometric_mean_with_inverse(cov_x, cov_g));
  // λ scales D's variances along its direction: bounded so that they stay within D's own bounds.
  // Where D sits at a bound the window is off every scale (a chain started where the gradient is
  // astronomic), and an unbounded λ would compound it until a step moves no coordinate at all.
  // In the early windows λ is also kept within the caller's bound (FisherOptions::early_eigenvalue_bound).
  const auto [d_min, d_max] = std::ranges::minmax(diag);
  const double lowest = std::max(std::min(1.0, kLowest / d_min), 1 / eigenvalue_bound);
  const double highest = std::min(std::max(1.0, kHighest / d_max), eigenvalue_bound);
  std::vector<double> directions, eigenvalues;
  for (Eigen::Index j = 0; j < m; ++j) {
    const double raw = es.eigenvalues()[j];
    if (!(raw > 0) || !(raw > o.eigenvalue_cutoff || raw < 1 / o.eigenvalue_cutoff)) continue;
    const double lambda = std::clamp(raw, lowest, highest);
    Eigen::VectorXd u = basis * es.eigenvectors().col(j);
    u.normalize();
    directions.insert(directions.end(), u.data(), u.data() + d);
    eigenvalues.push_back(lambda);
  }
  return Metric::low_rank(std::move(diag), std::move(directions), std::move(eigenvalues));
}

FisherAdaptation::FisherAdaptation(MetricKind kind, std::int64_t dimension, std::int64_t num_warmup,
                                   FisherOptions options)
    : kind_(kind),
      options_(options),
      early_end_(std::int64_t(options.early_fraction * double(num_warmup))),
      final_start_(num_warmup - std::int64_t(options.final_fraction * double(num_warmup))),
      foreground_(kind, dimension),
      background_(kind, dimension) {
  VARIATE_CHECK(options.early_fraction >= 0 && options.final_fraction >= 0 &&
                    options.early_fraction + options.final_fraction <= 1 && options.early_switch >= 2 &&
                    options.switch_interval >= 2 && options.low_rank_update_interval >= 1 &&
                    options.eigenvalue_cutoff > 1 && options.regularization > 0 && options.early_eigenvalue_bound >= 1,
                "FisherAdaptation",
                "expected fractions of warm-up adding up to at most 1, switch intervals >= 2, an update interval >= 1, "
                "an eigenvalue cutoff > 1, a positive regularization and an early eigenvalue bound >= 1; got early ",
                options.early_fraction, ", final ", options.final_fraction, ", switches ", options.early_switch,
                " and ", options.switch_interval, ", update interval ", options.low_rank_update_interval, ", cutoff ",
                options.eigenvalue_cutoff, ", regularization ", options.regularization, ", early eigenvalue bound ",
                options.early_eigenvalue_bound);
}

Metric FisherAdaptation::initial_metric(std::span<const double> gradient) const {
  std::vector<double> diag(gradient.size());
  for (std::size_t i = 0; i < diag.size(); ++i) {
    const double a = std::abs(gradient[i]);
    diag[i] = a > 0 && std::isfinite(a) ? std::clamp(1 / a, kLowest, kHighest) : 1.0;
  }
  if (kind_ == MetricKind::diagonal) return Metric::diagonal(std::move(diag));
  return Metric::low_rank(std::move(diag), {}, {});
}

void FisherAdaptation::restore(FisherState state, std::int64_t next_iteration) {
  // A window holds draws of metric-adapting iterations only, so no more than final_start_: a
  // larger count (from a file) would silently freeze or skew the estimates.
  for (const FisherWindowState* w : {&state.foreground, &state.background})
    VARIATE_CHECK(w->count <= final_start_, "FisherAdaptation::restore", "a window holds at most ", final_start_,
                  " draws (the metric-adapting warm-up iterations), got a count of ", w->count);
  foreground_.restore(std::move(state.foreground));
  background_.restore(std::move(state.background));
  if (next_iteration >= final_start_) release_windows();
}

void FisherAdaptation::release_windows() {
  foreground_.release();
  background_.release();
}

std::optional<Metric> FisherAdaptation::add(std::int64_t iteration, std::span<const double> x,
                                            std::span<const double> gradient, const Metric& current) {
  if (iteration >= final_start_) return std::nullopt;
  foreground_.add(x, gradient);
  background_.add(x, gradient);
  if (background_.count() >= (iteration < early_end_ ? options_.early_switch : options_.switch_interval)) {
    std::swap(foreground_, background_);
    background_.restart();
  }
  std::optional<Metric> metric = estimate(iteration, current);
  // The metric is fixed from here on: the low-rank windows' draws and gradients (up to
  // 3 x switch_interval of each over the two) would otherwise stay in memory and in every
  // checkpoint of the sampling.
  if (iteration + 1 == final_start_) release_windows();
  return metric;
}

std::optional<Metric> FisherAdaptation::estimate(std::int64_t iteration, const Metric& current) const {
  // Three draws at least: two give a variance of one difference, whatever the posterior.
  if (foreground_.count() < 3) return std::nullopt;
  if (kind_ == MetricKind::low_rank && (iteration + 1) % options_.low_rank_update_interval != 0) return std::nullopt;
  const bool early = iteration < early_end_;
  return foreground_.estimate(current, options_,
                              early ? options_.early_eigenvalue_bound : std::numeric_limits<double>::infinity());
}

}  // namespace variate::inference
