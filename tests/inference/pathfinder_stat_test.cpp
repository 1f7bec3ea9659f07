// Pathfinder against posteriors known in closed form. On a Gaussian each path's approximation is
// close (the iterate the noisy ELBO picks has marginal variances within a factor of about 2 of the
// posterior's), the pool's draws weighed against the mixture of the paths' approximations have a
// small PSIS k-hat (at most 0.34 over 64 keys for each Gaussian below), and the draws' moments match
// the posterior's within Monte Carlo error: an estimate must lie within kZ = 5 standard errors,
// sd / sqrt(ESS), with ESS the importance-sampling effective sample size 1 / sum w^2 of the
// normalized PSIS weights (or, for resampled draws, the error of resampling added). A correct
// implementation fails one comparison with probability 5.7e-7; this file makes fewer than 100.
// Neal's funnel is the known failure: the paths climb into the neck, where no Gaussian fits, and
// k-hat must say so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/test_seed.hpp"
#include "variate/inference/pareto_smoothing.hpp"
#include "variate/inference/pathfinder.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

constexpr double kZ = 5;
using Vector = std::vector<double>;
using Matrix = std::vector<Vector>;  // rows

struct Gaussian {
  Vector mean;
  Matrix covariance;
};

// Variances 1 to 1e4 (condition number 1e4), independent.
Gaussian diagonal() {
  Gaussian g{{1, -2, 0.5, 30, -100}, Matrix(5, Vector(5, 0.0))};
  for (std::size_t i = 0; i < 5; ++i) g.covariance[i][i] = std::pow(10.0, double(i));
  return g;
}

// Eigenvalues 1 to 1e4 (condition number 1e4) along the Householder reflection R = I - 2 v v' / v'v:
// covariance R diag(lambda) R, strongly correlated.
Gaussian correlated() {
  const Vector v = {1, 2, -1, 3}, lambda = {1, 21.5443, 464.159, 1e4};
  const double vv = 15;
  Matrix r(4, Vector(4));
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) r[i][j] = (i == j ? 1.0 : 0.0) - 2 * v[i] * v[j] / vv;
  Gaussian g{{3, -1, 10, 0}, Matrix(4, Vector(4, 0.0))};
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      for (std::size_t k = 0; k < 4; ++k) g.covariance[i][j] += r[i][k] * lambda[k] * r[j][k];
  return g;
}

tracing::Program model_of(const Gaussian& g) {
  Vector covariance;
  for (const Vector& row : g.covariance) covariance.insert(covariance.end(), row.begin(), row.end());
  const std::int64_t d = std::int64_t(g.mean.size());
  return [=] { MultivariateNormalFullCovariance(Tensor::from(g.mean), Tensor::from(covariance, Shape{d, d}), "x"); };
}

// Weighted moments of the draws (n, d) and the weights' effective sample size.
struct Moments {
  Vector mean;
  Matrix covariance;
  double ess = 0;
};

Moments moments(const Tensor& draws, Vector weights) {
  const std::int64_t n = draws.shape()[0], d = draws.shape()[1];
  const double* x = draws.data<double>();
  double total = 0, squares = 0;
  for (double w : weights) total += w;
  for (double& w : weights) w /= total, squares += w * w;
  Moments m{Vector(std::size_t(d), 0.0), Matrix(std::size_t(d), Vector(std::size_t(d), 0.0)), 1 / squares};
  for (std::int64_t s = 0; s < n; ++s)
    for (std::int64_t i = 0; i < d; ++i) m.mean[std::size_t(i)] += weights[std::size_t(s)] * x[s * d + i];
  for (std::int64_t s = 0; s < n; ++s)
    for (std::int64_t i = 0; i < d; ++i)
      for (std::int64_t j = 0; j < d; ++j)
        m.covariance[std::size_t(i)][std::size_t(j)] +=
            weights[std::size_t(s)] * (x[s * d + i] - m.mean[std::size_t(i)]) * (x[s * d + j] - m.mean[std::size_t(j)]);
  return m;
}

// Means within kZ sqrt(Sigma_ii * scale) and covariances within kZ sqrt((Sigma_ii Sigma_jj +
// Sigma_ij^2) * scale), scale = 1 / ESS (plus 1 / draws for resampled draws).
void expect_moments(const Moments& m, const Gaussian& g, double scale, const std::string& what) {
  const Matrix& c = g.covariance;
  for (std::size_t i = 0; i < g.mean.size(); ++i) {
    EXPECT_NEAR(m.mean[i], g.mean[i], kZ * std::sqrt(c[i][i] * scale)) << what << ": mean " << i;
    for (std::size_t j = 0; j <= i; ++j)
      EXPECT_NEAR(m.covariance[i][j], c[i][j], kZ * std::sqrt((c[i][i] * c[j][j] + c[i][j] * c[i][j]) * scale))
          << what << ": covariance " << i << ", " << j;
  }
}

void expect_recovers(const Gaussian& g, std::uint64_t seed) {
  const tracing::Program model = model_of(g);
  PathfinderOptions options{
      .paths = 4, .draws = 4000, .draws_per_path = 1000, .key = random::Key(variate::testing::test_seed(seed))};
  options.psis_resample = false;
  const PathfinderResult pool = pathfinder(model, options);
  Vector log_ratios;
  for (std::size_t s = 0; s < pool.log_p.size(); ++s) log_ratios.push_back(pool.log_p[s] - pool.log_q[s]);
  const ParetoSmoothed psis = pareto_smooth(log_ratios);
  EXPECT_LT(pool.k_hat, pareto_k_threshold(log_ratios.size())) << "the approximation should fit a Gaussian";
  double top = -INFINITY;
  for (double w : psis.log_weights) top = std::max(top, w);
  Vector weights;
  for (double w : psis.log_weights) weights.push_back(std::exp(w - top));
  const Moments weighted = moments(pool.unconstrained_draws, weights);
  EXPECT_GT(weighted.ess, 0.5 * double(log_ratios.size())) << "the approximation should be close to exact";
  expect_moments(weighted, g, 1 / weighted.ess, "PSIS-weighted pool");

  // The resampled draws (the default): the same pool, so the same ESS, plus resampling's error.
  options.psis_resample = true;
  const PathfinderResult resampled = pathfinder(model, options);
  ASSERT_EQ(resampled.unconstrained_draws.shape()[0], 4000);
  const Moments plain = moments(resampled.unconstrained_draws, Vector(4000, 1.0));
  expect_moments(plain, g, 1 / weighted.ess + 1 / 4000.0, "resampled draws");
}

TEST(PathfinderPosterior, RecoversAnIndependentGaussianWithConditionNumber1e4) { expect_recovers(diagonal(), 1); }

TEST(PathfinderPosterior, RecoversACorrelatedGaussianWithConditionNumber1e4) { expect_recovers(correlated(), 2); }

// Neal's funnel, v ~ N(0, 3), x_i ~ N(0, exp(v/2)): log p has no maximum worth the name (at x = 0
// it peaks at v = -40.5), so the paths run into the neck and their Gaussians miss the mouth (their
// sds of v are 0.3-0.9 where the posterior's is 3). PSIS flags the draws as unreliable in most runs,
// not all: k-hat exceeded 0.7 in 217 of 256 runs (0.85). Of 32 runs at least half must flag it: a
// correct implementation fails that with probability 6e-7 at a flag rate of 0.85 (binomial), and
// 3e-5 at 0.8.
TEST(PathfinderPosterior, KHatFlagsTheFunnelInMostRuns) {
  auto funnel = [] {
    auto v = Normal(0.0, 3.0, "v");
    Normal(0.0, exp(v / 2.0), "x", {9});
  };
  const random::Key key(variate::testing::test_seed(3));
  int flagged = 0;
  std::vector<double> k_hats;
  for (std::uint64_t run = 0; run < 32; ++run) {
    const PathfinderResult r = pathfinder(funnel, {.key = random::split_at(key, run)});
    k_hats.push_back(r.k_hat);
    flagged += r.k_hat > 0.7;
  }
  EXPECT_GE(flagged, 16) << "k-hat of the 32 runs: " << ::testing::PrintToString(k_hats);
}

}  // namespace
}  // namespace variate::inference
