// ADVI on a Gaussian posterior: Bayesian linear regression with known noise, w ~ N(0, I),
// y ~ N(X w, I), whose posterior is N(mu, Sigma) with Sigma = (I + X^T X)^-1 and mu = Sigma X^T y.
// The full-rank family contains it, so ADVI must recover mu and Sigma; the mean-field family
// recovers mu and the conditional variances 1 / Lambda_ii (Bishop 2006, PRML section 10.1.2).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "support/test_seed.hpp"
#include "variate/inference/vi_advi.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

const std::vector<double> kX = {1.0, 0.5, 0.3, 1.2, 1.5, -0.4, 0.8, 0.9};  // (4, 2), row-major
const std::vector<double> kY = {1.0, 0.2, 1.3, 1.1};

void regression() {
  auto w = Normal(Tensor::zeros(Shape{2}), 1.0, "w");
  const int last[] = {-1};
  tracing::Condition data({{"y", Tensor::from(kY)}});
  Normal(sum(Tensor::from(kX, Shape{4, 2}) * w, last), 1.0, "y");
}

struct Posterior {
  double precision[2][2], covariance[2][2], mean[2];
};

Posterior exact_posterior() {
  Posterior p{};
  double xty[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    p.precision[i][i] = 1.0;
    for (int r = 0; r < 4; ++r) xty[i] += kX[std::size_t(2 * r + i)] * kY[std::size_t(r)];
    for (int j = 0; j < 2; ++j)
      for (int r = 0; r < 4; ++r) p.precision[i][j] += kX[std::size_t(2 * r + i)] * kX[std::size_t(2 * r + j)];
  }
  const double det = p.precision[0][0] * p.precision[1][1] - p.precision[0][1] * p.precision[1][0];
  p.covariance[0][0] = p.precision[1][1] / det;
  p.covariance[1][1] = p.precision[0][0] / det;
  p.covariance[0][1] = p.covariance[1][0] = -p.precision[0][1] / det;
  for (int i = 0; i < 2; ++i) p.mean[i] = p.covariance[i][0] * xty[0] + p.covariance[i][1] * xty[1];
  return p;
}

// q's covariance L L^T, entry (i, j).
double covariance_of(const AdviResult& fit, int i, int j) {
  if (fit.scale.rank() == 1) return i == j ? fit.scale.at(i) * fit.scale.at(i) : 0.0;  // mean field
  double out = 0;
  for (int k = 0; k < 2; ++k) out += fit.scale.at(2 * i + k) * fit.scale.at(2 * j + k);
  return out;
}

TEST(Advi, FullRankRecoversTheMeanAndCovarianceOfAGaussianPosterior) {
  const Posterior p = exact_posterior();
  ASSERT_GT(std::abs(p.covariance[0][1]), 0.1 * std::sqrt(p.covariance[0][0] * p.covariance[1][1]))
      << "the test needs a correlated posterior";
  const int draws = 4000;
  const AdviResult fit = fit_advi(regression, {.family = AdviFamily::full_rank,
                                               .steps = 3000,
                                               .particles = 16,
                                               .draws = draws,
                                               .key = random::Key(variate::testing::test_seed(3))});
  ASSERT_EQ(fit.elbo_trace.size(), 3000u);
  ASSERT_EQ(fit.sites.size(), 1u);
  ASSERT_EQ(fit.scale.shape(), Shape({2, 2}));
  EXPECT_EQ(fit.scale.at(1), 0.0);  // lower triangular
  for (int i = 0; i < 2; ++i) {
    const double sd = std::sqrt(p.covariance[i][i]);
    EXPECT_NEAR(fit.loc.at(i), p.mean[i], 0.05 * sd) << "mean " << i;
    for (int j = 0; j < 2; ++j)
      EXPECT_NEAR(covariance_of(fit, i, j), p.covariance[i][j], 0.05 * sd * std::sqrt(p.covariance[j][j]))
          << "covariance " << i << ", " << j;
  }
  // The draws have q's moments: means within 5 standard errors sqrt(Sigma_ii / n), covariances
  // within 5 of sqrt((Sigma_ii Sigma_jj + Sigma_ij^2) / n).
  const Tensor& w = fit.draws.at("w");
  ASSERT_EQ(w.shape(), Shape({draws, 2}));
  double mean[2] = {0, 0};
  for (int n = 0; n < draws; ++n)
    for (int i = 0; i < 2; ++i) mean[i] += w.at(2 * n + i) / draws;
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(mean[i], p.mean[i], 5 * std::sqrt(p.covariance[i][i] / draws));
    for (int j = 0; j < 2; ++j) {
      double cov = 0;
      for (int n = 0; n < draws; ++n) cov += (w.at(2 * n + i) - mean[i]) * (w.at(2 * n + j) - mean[j]) / (draws - 1);
      const double se =
          std::sqrt((p.covariance[i][i] * p.covariance[j][j] + p.covariance[i][j] * p.covariance[i][j]) / draws);
      EXPECT_NEAR(cov, p.covariance[i][j], 5 * se) << "draws' covariance " << i << ", " << j;
    }
  }
}

TEST(Advi, MeanFieldRecoversTheMeanAndTheConditionalVariances) {
  const Posterior p = exact_posterior();
  const AdviResult fit =
      fit_advi(regression, {.steps = 3000, .particles = 16, .key = random::Key(variate::testing::test_seed(4))});
  for (int i = 0; i < 2; ++i) {
    const double sd = std::sqrt(p.covariance[i][i]);
    EXPECT_NEAR(fit.loc.at(i), p.mean[i], 0.05 * sd) << "mean " << i;
    EXPECT_NEAR(covariance_of(fit, i, i), 1.0 / p.precision[i][i], 0.05 / p.precision[i][i]) << "variance " << i;
  }
  EXPECT_EQ(fit.scale.shape(), Shape{2});
}

TEST(Advi, ConstrainsTheDrawsAndNamesBadOptions) {
  auto scale_model = [] {
    auto sigma = HalfNormal(1.0, "sigma");
    tracing::Condition data({{"y", Tensor::vec({0.5, -1.2, 2.0})}});
    Normal(Tensor::zeros(Shape{3}), sigma, "y");
  };
  const AdviResult fit = fit_advi(scale_model, {.steps = 200, .draws = 500});
  const Tensor& sigma = fit.draws.at("sigma");
  ASSERT_EQ(sigma.numel(), 500);
  for (int n = 0; n < 500; ++n) EXPECT_GT(sigma.at(n), 0.0);
  EXPECT_ERROR(fit_advi(scale_model, {.steps = 0}), "steps, particles and draws must be >= 1");
}

TEST(Advi, ReportsEachStepAndTheDrawsOnTheUnconstrainedSpace) {
  auto scale_model = [] {
    auto sigma = HalfNormal(1.0, "sigma");
    tracing::Condition data({{"y", Tensor::vec({0.5, -1.2, 2.0})}});
    Normal(Tensor::zeros(Shape{3}), sigma, "y");
  };
  std::vector<double> seen;
  const AdviResult fit = fit_advi(scale_model, {.steps = 50, .draws = 20, .on_step = [&](int step, double elbo) {
                                                  EXPECT_EQ(step, int(seen.size()));
                                                  seen.push_back(elbo);
                                                }});
  EXPECT_EQ(seen, fit.elbo_trace);
  ASSERT_EQ(fit.unconstrained_draws.shape(), Shape({20, 1}));
  ASSERT_EQ(fit.log_g.shape(), Shape{20});
  for (int n = 0; n < 20; ++n) {
    const double zeta = fit.unconstrained_draws.at(n), eps = (zeta - fit.loc.at(0)) / fit.scale.at(0);
    EXPECT_NEAR(fit.draws.at("sigma").at(n), std::exp(zeta), 1e-12);  // sigma's bijector is exp
    EXPECT_NEAR(fit.log_g.at(n), -0.5 * eps * eps, 1e-9);
  }
}

}  // namespace
}  // namespace variate::inference
