// The low-rank plus diagonal metric's algebra against a dense reference, and the Fisher-divergence
// estimates on exact Gaussian draws and gradients, where they must recover the covariance.
#include "variate/inference/fisher_adaptation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "variate/core/error.hpp"
#include "variate/inference/metric.hpp"
#include "variate/random/key.hpp"
#include "variate/random/samplers.hpp"

namespace variate::inference {
namespace {

using Dense = std::vector<double>;  // row-major d × d

std::vector<double> normals(std::uint64_t seed, std::int64_t n) {
  const Tensor t = random::normal(random::Key(seed), Shape{n});
  return {t.data<double>(), t.data<double>() + n};
}

/// Columns of a random orthogonal matrix (Gram–Schmidt on normals), k of them, stored one after another.
std::vector<double> orthonormal(std::uint64_t seed, std::size_t d, std::size_t k) {
  std::vector<double> u = normals(seed, std::int64_t(d * k));
  for (std::size_t j = 0; j < k; ++j) {
    double* v = u.data() + j * d;
    for (std::size_t l = 0; l < j; ++l) {
      double dot = 0;
      for (std::size_t i = 0; i < d; ++i) dot += v[i] * u[l * d + i];
      for (std::size_t i = 0; i < d; ++i) v[i] -= dot * u[l * d + i];
    }
    double norm = 0;
    for (std::size_t i = 0; i < d; ++i) norm += v[i] * v[i];
    for (std::size_t i = 0; i < d; ++i) v[i] /= std::sqrt(norm);
  }
  return u;
}

/// D^½ (I + U (Λ − I) Uᵀ) D^½ written out.
Dense dense_of(const Metric& m) {
  const auto d = std::size_t(m.dimension());
  Dense a(d * d, 0.0);
  for (std::size_t i = 0; i < d; ++i) a[i * d + i] = 1;
  for (std::size_t j = 0; j < m.eigenvalues().size(); ++j)
    for (std::size_t r = 0; r < d; ++r)
      for (std::size_t c = 0; c < d; ++c)
        a[r * d + c] += (m.eigenvalues()[j] - 1) * m.directions()[j * d + r] * m.directions()[j * d + c];
  for (std::size_t r = 0; r < d; ++r)
    for (std::size_t c = 0; c < d; ++c) a[r * d + c] *= std::sqrt(m.inverse()[r] * m.inverse()[c]);
  return a;
}

Metric example_metric() {
  return Metric::low_rank({0.5, 2.0, 1.0, 4.0, 0.25, 3.0}, orthonormal(1, 6, 2), {30.0, 0.02});
}

TEST(LowRankMetric, VelocityAndKineticEnergyMatchTheDenseMatrix) {
  const Metric m = example_metric();
  const Dense a = dense_of(m);
  const std::vector<double> p = normals(2, 6);
  std::vector<double> v(6);
  m.velocity(p.data(), v.data());
  double energy = 0;
  for (std::size_t r = 0; r < 6; ++r) {
    double ap = 0;
    for (std::size_t c = 0; c < 6; ++c) ap += a[r * 6 + c] * p[c];
    EXPECT_NEAR(v[r], ap, 1e-12 * (1 + std::abs(ap))) << r;
    energy += 0.5 * p[r] * ap;
  }
  EXPECT_NEAR(m.kinetic_energy(p.data()), energy, 1e-12 * energy);
  const std::vector<double> diag = m.reported_inverse();
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(diag[i], a[i * 6 + i], 1e-12 * a[i * 6 + i]);
}

// p = S z with z standard normal has covariance S Sᵀ, which must be M = (M⁻¹)⁻¹: M⁻¹ S Sᵀ = I.
TEST(LowRankMetric, MomentumHasCovarianceM) {
  const Metric m = example_metric();
  const Dense a = dense_of(m);
  Dense s(36);  // column i: the momentum of z = e_i
  for (std::size_t i = 0; i < 6; ++i) {
    std::vector<double> z(6, 0.0), p(6);
    z[i] = 1;
    m.momentum_from_normals(z.data(), p.data());
    for (std::size_t r = 0; r < 6; ++r) s[r * 6 + i] = p[r];
  }
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t c = 0; c < 6; ++c) {
      double x = 0;
      for (std::size_t k = 0; k < 6; ++k)
        for (std::size_t l = 0; l < 6; ++l) x += a[r * 6 + k] * s[k * 6 + l] * s[c * 6 + l];
      EXPECT_NEAR(x, r == c ? 1.0 : 0.0, 1e-10) << r << "," << c;
    }
}

TEST(LowRankMetric, RejectsWhatIsNotAMetricAndRefusesSharding) {
  EXPECT_THROW(Metric::low_rank({1, 1, 1}, {1, 1, 0}, {2.0}), Error);     // not unit length
  EXPECT_THROW(Metric::low_rank({1, 1, 1}, {1, 0, 0}, {-2.0}), Error);    // eigenvalue <= 0
  EXPECT_THROW(Metric::low_rank({1, 1, 1}, {1, 0, 0, 0}, {2.0}), Error);  // wrong size
  EXPECT_THROW(Metric::low_rank({1, 0, 1}, {}, {}), Error);               // diagonal <= 0
  try {
    (void)example_metric().sharded_over("x", 0);
    FAIL() << "a low-rank metric was sharded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("low-rank metric cannot be sharded"), std::string::npos) << e.what();
  }
}

/// n exact draws of N(0, Σ) with Σ = L Lᵀ, and their gradients −Σ⁻¹ x = −L⁻ᵀ z.
struct GaussianSample {
  std::vector<std::vector<double>> x, g;
};

/// Σ = Q diag(s²) Qᵀ with Q a random rotation; x = Q diag(s) z and −Σ⁻¹ x = −Q diag(1/s) z.
GaussianSample gaussian_sample(const std::vector<double>& s, bool rotated, std::size_t n, std::uint64_t seed) {
  const std::size_t d = s.size();
  const std::vector<double> q = orthonormal(seed, d, d);  // column j = q[j*d ..]
  GaussianSample out;
  for (std::size_t t = 0; t < n; ++t) {
    const std::vector<double> z = normals(seed + 1 + t, std::int64_t(d));
    std::vector<double> x(d, 0.0), g(d, 0.0);
    for (std::size_t j = 0; j < d; ++j)
      for (std::size_t i = 0; i < d; ++i) {
        const double qij = rotated ? q[j * d + i] : (i == j ? 1.0 : 0.0);
        x[i] += qij * s[j] * z[j];
        g[i] -= qij * z[j] / s[j];
      }
    out.x.push_back(std::move(x));
    out.g.push_back(std::move(g));
  }
  return out;
}

std::vector<double> log_spaced(std::size_t d, double low, double high) {
  std::vector<double> s(d);
  for (std::size_t i = 0; i < d; ++i) s[i] = low * std::pow(high / low, double(i) / double(d - 1));
  return s;
}

Metric estimate(MetricKind kind, const GaussianSample& sample, const FisherOptions& o = {}) {
  FisherWindow w(kind, std::int64_t(sample.x.front().size()));
  for (std::size_t t = 0; t < sample.x.size(); ++t) w.add(sample.x[t], sample.g[t]);
  return w.estimate(Metric::unit(kind, std::int64_t(sample.x.front().size())), o);
}

// For independent coordinates Var(x_i)/Var(g_i) = σ_i⁴ in any sample, so the estimate is exact.
TEST(FisherEstimate, DiagonalIsExactForIndependentGaussians) {
  const std::vector<double> s = log_spaced(12, 0.1, 10);  // variances 1e-2 .. 1e2: condition 1e4
  const Metric m = estimate(MetricKind::diagonal, gaussian_sample(s, false, 5, 3));
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_NEAR(m.inverse()[i], s[i] * s[i], 1e-10 * s[i] * s[i]) << i;
}

// Correlated, condition number 1e4, and only a dozen draws in 10 dimensions, too few for the
// covariance of the draws alone to approach Σ: with the gradients, Σ Cov(g) Σ = Cov(x) holds
// exactly and has Σ as its only positive definite solution, which the estimate finds up to γ.
TEST(FisherEstimate, LowRankRecoversACorrelatedCovariance) {
  const std::vector<double> s = log_spaced(10, 0.1, 10);
  const GaussianSample sample = gaussian_sample(s, true, 12, 4);
  FisherOptions o;
  o.eigenvalue_cutoff = 1 + 1e-9;  // keep every direction, so that M⁻¹ is the whole estimate
  o.regularization = 1e-12;
  const Metric m = estimate(MetricKind::low_rank, sample, o);
  const Dense a = dense_of(m);
  const std::vector<double> q = orthonormal(4, 10, 10);
  // Σ's eigenpairs: Σ q_j = s_j² q_j.
  for (std::size_t j = 0; j < 10; ++j)
    for (std::size_t r = 0; r < 10; ++r) {
      double aq = 0;
      for (std::size_t c = 0; c < 10; ++c) aq += a[r * 10 + c] * q[j * 10 + c];
      EXPECT_NEAR(aq, s[j] * s[j] * q[j * 10 + r], 1e-6 * s[j] * s[j]) << "direction " << j << ", entry " << r;
    }
}

// Where the diagonal is already exact, the scaled draws and gradients agree and no direction is
// worth keeping (the draws span far fewer dimensions than there are: the basis comes from QR).
TEST(FisherEstimate, LowRankAddsNothingToAnExactDiagonal) {
  const std::vector<double> s = log_spaced(30, 0.1, 10);
  const Metric m = estimate(MetricKind::low_rank, gaussian_sample(s, false, 6, 5));
  EXPECT_TRUE(m.eigenvalues().empty());
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_NEAR(m.inverse()[i], s[i] * s[i], 1e-10 * s[i] * s[i]) << i;
}

// Draws that do not move (rejected transitions) say nothing: the current entries stay.
TEST(FisherEstimate, ACoordinateThatDidNotMoveKeepsItsEntry) {
  FisherWindow w(MetricKind::diagonal, 2);
  w.add(std::vector<double>{1.0, 0.0}, std::vector<double>{-1.0, 3.0});
  w.add(std::vector<double>{2.0, 0.0}, std::vector<double>{-2.0, 3.0});
  const Metric m = w.estimate(Metric::diagonal({5.0, 7.0}), {});
  EXPECT_DOUBLE_EQ(m.inverse()[0], 1.0);
  EXPECT_DOUBLE_EQ(m.inverse()[1], 7.0);
}

// A chain started where the gradient is astronomic (1e30) barely moves (1e-12): the diagonal hits
// its lower bound 1e-20, and the scaled draws and gradients would ask for λ ≈ 1e-22 on top of it.
// Such a metric moves no coordinate at all (a variance of 1e-42 against coordinates of order 1), so
// the chain could never leave: no direction may take a variance below the diagonal's bound.
TEST(FisherEstimate, LowRankStaysWithinTheDiagonalsBounds) {
  const std::size_t d = 4;
  FisherWindow w(MetricKind::low_rank, std::int64_t(d));
  for (std::uint64_t t = 0; t < 10; ++t) {
    std::vector<double> x = normals(100 + t, std::int64_t(d)), g = normals(200 + t, std::int64_t(d));
    for (std::size_t i = 0; i < d; ++i) {
      x[i] = 1.5 + 1e-12 * x[i];
      g[i] *= 1e30;
    }
    w.add(x, g);
  }
  const Metric m = w.estimate(Metric::unit(MetricKind::low_rank, std::int64_t(d)), {});
  const Dense a = dense_of(m);
  for (std::size_t i = 0; i < d; ++i) {
    EXPECT_DOUBLE_EQ(m.inverse()[i], 1e-20) << i;
    EXPECT_GE(a[i * d + i], 1e-20 * (1 - 1e-9)) << "the variance of coordinate " << i;
  }
  for (double lambda : m.eigenvalues()) EXPECT_GE(lambda, 1.0);
}

struct LambdaRange {
  double low = 1, high = 1;
  void add(double lambda) {
    low = std::min(low, lambda);
    high = std::max(high, lambda);
  }
};

/// The extreme λ of the low-rank updates in the early part (first 30 of 100 warm-up iterations)
/// and after it, fed exact draws of a rotated Gaussian with variances 1e-4 .. 1e4.
std::pair<LambdaRange, LambdaRange> early_and_late_lambdas(const FisherOptions& o) {
  const GaussianSample sample = gaussian_sample(log_spaced(6, 0.01, 100), true, 60, 7);
  FisherAdaptation adaptation(MetricKind::low_rank, 6, 100, o);
  Metric current = Metric::unit(MetricKind::low_rank, 6);
  LambdaRange early, late;
  for (std::int64_t it = 0; it < 60; ++it) {
    const std::optional<Metric> m = adaptation.add(it, sample.x[std::size_t(it)], sample.g[std::size_t(it)], current);
    if (!m) continue;
    current = *m;
    for (double lambda : m->eigenvalues()) (it < 30 ? early : late).add(lambda);
  }
  return {early, late};
}

// A window learnt while the chain still travels to the posterior can aim a direction at a region
// the chain then cannot leave (arma11's second mode): in the early part of warm-up λ stays within
// [1/b, b] (here b = 100), after it is free. These draws ask for λ outside that range in every window.
TEST(FisherSchedule, BoundsLambdaOnlyInTheEarlyWindows) {
  FisherOptions bounded;
  bounded.early_eigenvalue_bound = 100;
  const auto [early, late] = early_and_late_lambdas(bounded);
  EXPECT_GE(early.low, 0.01);
  EXPECT_LE(early.high, 100.0);
  EXPECT_LT(late.low, 0.01);
  EXPECT_GT(late.high, 100.0);
  FisherOptions unbounded;
  unbounded.early_eigenvalue_bound = std::numeric_limits<double>::infinity();
  const auto [unbounded_early, unused] = early_and_late_lambdas(unbounded);
  EXPECT_LT(unbounded_early.low, 0.01);
  EXPECT_GT(unbounded_early.high, 100.0);
}

// nutpie's schedule over 100 warm-up iterations: updates from the third draw on, switches every 10
// draws in the first 30 and every 80 after, and a fixed metric for the last 15.
TEST(FisherSchedule, UpdatesUntilTheFinalWindow) {
  FisherAdaptation diag(MetricKind::diagonal, 1, 100), low_rank(MetricKind::low_rank, 1, 100);
  const Metric unit = Metric::unit(MetricKind::diagonal, 1);
  std::vector<std::int64_t> diag_updates, low_rank_updates, ends;
  for (std::int64_t it = 0; it < 100; ++it) {
    const std::vector<double> x{std::sin(double(it))}, g{-std::sin(double(it)) / 4};
    if (const std::optional<Metric> m = diag.add(it, x, g, unit)) {
      diag_updates.push_back(it);
      // Every estimate is exact here (x and g proportional): 4 = sqrt(Var x / Var g).
      EXPECT_NEAR(m->inverse()[0], 4.0, 1e-12) << "iteration " << it;
    }
    if (low_rank.add(it, x, g, Metric::unit(MetricKind::low_rank, 1))) low_rank_updates.push_back(it);
    if (diag.ends_metric_adaptation(it)) ends.push_back(it);
  }
  ASSERT_EQ(diag_updates.size(), 83u);  // iterations 2 .. 84
  EXPECT_EQ(diag_updates.front(), 2);
  EXPECT_EQ(diag_updates.back(), 84);
  EXPECT_EQ(low_rank_updates, (std::vector<std::int64_t>{9, 19, 29, 39, 49, 59, 69, 79}));
  EXPECT_EQ(ends, std::vector<std::int64_t>{84});
}

// Once the metric is fixed the windows are emptied, so that the sampling's memory and checkpoints
// do not carry a low-rank window's draws and gradients.
TEST(FisherSchedule, EmptiesTheWindowsWhenTheMetricIsFixed) {
  FisherAdaptation adaptation(MetricKind::low_rank, 3, 100);
  const Metric unit = Metric::unit(MetricKind::low_rank, 3);
  const auto stored = [&adaptation] {
    const FisherState s = adaptation.state();
    return s.foreground.draws.size() + s.background.draws.size() + s.foreground.gradients.size() +
           s.background.gradients.size();
  };
  for (std::int64_t it = 0; it < 100; ++it) {
    const std::vector<double> x{std::sin(double(it)), std::cos(double(it)), double(it % 7)}, g{-x[0], -x[1], -x[2]};
    adaptation.add(it, x, g, unit);
    if (it == 83) {
      EXPECT_GT(stored(), 0u);
    } else if (it >= 84) {
      EXPECT_EQ(stored(), 0u) << "iteration " << it;
      EXPECT_EQ(adaptation.state().foreground.count, 0);
    }
  }
  // A checkpoint of the sampling restores; one with full windows (from an earlier build) is emptied.
  FisherAdaptation resumed(MetricKind::low_rank, 3, 100);
  resumed.restore(adaptation.state(), 90);
  FisherAdaptation midway(MetricKind::low_rank, 3, 100);
  for (std::int64_t it = 0; it < 50; ++it)
    midway.add(it, std::vector<double>{double(it % 3), double(it % 5), double(it % 7)},
               std::vector<double>{-double(it % 3), -double(it % 5), -double(it % 7)}, unit);
  const FisherState full = midway.state();
  ASSERT_GT(full.foreground.draws.size(), 0u);
  resumed.restore(full, 50);
  EXPECT_EQ(resumed.state().foreground.draws.size(), full.foreground.draws.size()) << "still adapting at 50";
  resumed.restore(full, 90);
  EXPECT_TRUE(resumed.state().foreground.draws.empty() && resumed.state().background.draws.empty());
}

// A checkpoint's window count is checked before it is used: a count whose product with the
// dimension wraps around to the stored size (here 2^62 × 4 = 0 mod 2^64) must not pass, and no
// window holds more draws than the metric-adapting iterations.
TEST(FisherRestore, RejectsCountsThatDoNotFitTheWindow) {
  FisherWindowState wrapped;
  wrapped.count = std::int64_t(1) << 62;
  wrapped.mean_x = wrapped.m2_x = wrapped.mean_g = wrapped.m2_g = std::vector<double>(4, 0.0);
  FisherWindow low_rank(MetricKind::low_rank, 4);
  try {
    low_rank.restore(wrapped);
    ADD_FAILURE() << "a count of " << wrapped.count << " with no stored draws was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("FisherWindow::restore"), std::string::npos) << e.what();
  }
  FisherAdaptation adaptation(MetricKind::diagonal, 2, 100);
  FisherState too_many{adaptation.state()};
  too_many.background.count = 1000;
  try {
    adaptation.restore(too_many, 0);
    ADD_FAILURE() << "a window count of 1000 over 100 warm-up iterations was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace variate::inference
