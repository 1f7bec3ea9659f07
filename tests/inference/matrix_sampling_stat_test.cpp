// NUTS on models with the matrix families and Gaussian processes of issue 20, against closed forms.
// Tolerances as in sampler_stat_test.cpp: an estimate must lie within kZ = 5 Monte Carlo standard
// errors (false-failure probability 5.7e-7 per comparison; this file makes fewer than 50). Fixed
// seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "support/posterior_moments.hpp"
#include "support/test_seed.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

constexpr double kZ = 5.0;

struct Fit {
  Unconstrained space;
  SampleResult result;
};

Fit fit(tracing::Program model, SamplerOptions options) {
  Unconstrained space(model);
  const Target target = make_target(space);
  SampleResult result = sample(target, options);
  return {std::move(space), std::move(result)};
}

// Constrained draws of element `index` of `site`, [chain][draw].
ChainDraws site_draws(const Fit& f, const std::string& site, std::int64_t index = 0) {
  ChainDraws out;
  for (const ChainResult& c : f.result.chains) {
    const Tensor flat = Tensor::from(c.draws, Shape{c.draw_count(), f.result.dimension});
    const Tensor rows = reshape(f.space.constrain(flat).at(site), {c.draw_count(), -1});
    std::vector<double> v;
    for (std::int64_t i = 0; i < c.draw_count(); ++i) v.push_back(rows.at(i * rows.dim(1) + index));
    out.push_back(std::move(v));
  }
  return out;
}

int divergences(const SampleResult& r) {
  int n = 0;
  for (const auto& c : r.chains)
    for (const auto& s : c.stats) n += s.divergent;
  return n;
}

// A latent LKJ(3, 2) correlation matrix, sampled through the CorrMatrix bijector: each off-diagonal
// entry has the marginal Beta(eta - 1 + d/2, eta - 1 + d/2) = Beta(2.5, 2.5) on (-1, 1) (LKJ 2009,
// section 3.2), so mean 0 and variance 1 / (2 * 2.5 + 1) = 1/6.
TEST(MatrixSampling, LKJMarginalsOfTheOffDiagonalEntries) {
  auto model = [] { LKJ(3, 2.0, "Omega"); };
  SamplerOptions o;
  o.seed = variate::testing::test_seed(11);
  const Fit f = fit(model, o);
  EXPECT_EQ(divergences(f.result), 0);
  for (std::int64_t index : {3, 6, 7})  // (1, 0), (2, 0), (2, 1)
    variate::testing::expect_moments(site_draws(f, "Omega", index), 0.0, 1.0 / 6,
                                     "Omega[" + std::to_string(index) + "]", kZ);
}

// A latent Wishart(5, S) covariance matrix (Stan's cov_matrix transform): E[W] = 5 S and
// Var[W_ij] = 5 (S_ij^2 + S_ii S_jj) (Anderson 2003, theorem 7.3.2 and section 7.3).
TEST(MatrixSampling, WishartMoments) {
  const double df = 5, s[2][2] = {{1.0, 0.3}, {0.3, 0.5}};
  auto model = [&] {
    Wishart(df, Tensor::from(std::vector<double>{s[0][0], s[0][1], s[1][0], s[1][1]}, Shape{2, 2}), "W");
  };
  SamplerOptions o;
  o.seed = variate::testing::test_seed(14);
  const Fit f = fit(model, o);
  EXPECT_EQ(divergences(f.result), 0);
  for (auto [i, j] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{1, 1}}) {
    const double variance = df * (s[i][j] * s[i][j] + s[i][i] * s[j][j]);
    variate::testing::expect_moments(site_draws(f, "W", 2 * i + j), df * s[i][j], variance,
                                     "W[" + std::to_string(i) + ", " + std::to_string(j) + "]", kZ);
  }
}

// A latent LKJCholesky(3, 2) factor L (Stan's cholesky_factor_corr transform): the correlations of
// L L^T have the marginal Beta(2.5, 2.5) on (-1, 1), as for LKJ above: mean 0, variance 1/6.
// Omega_10 = L_10, Omega_20 = L_20 and Omega_21 = L_20 L_10 + L_21 L_11.
TEST(MatrixSampling, LKJCholeskyMarginalsOfTheCorrelations) {
  auto model = [] { LKJCholesky(3, 2.0, "L"); };
  SamplerOptions o;
  o.seed = variate::testing::test_seed(15);
  const Fit f = fit(model, o);
  EXPECT_EQ(divergences(f.result), 0);
  const ChainDraws l10 = site_draws(f, "L", 3), l11 = site_draws(f, "L", 4), l20 = site_draws(f, "L", 6),
                   l21 = site_draws(f, "L", 7);
  ChainDraws omega21 = l10;
  for (std::size_t c = 0; c < omega21.size(); ++c)
    for (std::size_t i = 0; i < omega21[c].size(); ++i) omega21[c][i] = l20[c][i] * l10[c][i] + l21[c][i] * l11[c][i];
  variate::testing::expect_moments(l10, 0.0, 1.0 / 6, "Omega[1, 0]", kZ);
  variate::testing::expect_moments(l20, 0.0, 1.0 / 6, "Omega[2, 0]", kZ);
  variate::testing::expect_moments(omega21, 0.0, 1.0 / 6, "Omega[2, 1]", kZ);
}

// Ten points of a smooth function with noise.
const std::vector<double> kX{0.0, 0.11, 0.22, 0.33, 0.44, 0.56, 0.67, 0.78, 0.89, 1.0};
const std::vector<double> kY{0.12, 0.71, 0.93, 0.95, 0.28, -0.31, -0.84, -1.02, -0.55, 0.08};

// GP regression with its hyperparameters latent: the same log density (Jacobians included) as the
// model written with a hand-built covariance in MultivariateNormal (whose posterior the model zoo
// checks against quadrature), and a run that mixes (R-hat below 1.01).
TEST(MatrixSampling, GaussianProcessHyperparameters) {
  const Tensor x = Tensor::from(kX, Shape{10}), y = Tensor::from(kY, Shape{10});
  auto priors = [] {
    return std::tuple{HalfNormal(1.0, "amplitude"), InverseGamma(5.0, 1.0, "length_scale"), HalfNormal(0.5, "noise")};
  };
  auto model = [&] {
    auto [amplitude, length_scale, noise] = priors();
    tracing::Condition data({{"y", y}});
    GaussianProcess(dist::ExponentiatedQuadratic(amplitude, length_scale), x, square(noise), {}, "y");
  };
  auto by_hand = [&] {
    auto [amplitude, length_scale, noise] = priors();
    const Tensor d2 = square(expand_dims(x, -1) - expand_dims(x, 0));
    const Tensor a2 = expand_dims(expand_dims(square(amplitude), -1), -1);
    const Tensor l2 = expand_dims(expand_dims(square(length_scale), -1), -1);
    const Tensor n2 = expand_dims(expand_dims(square(noise), -1), -1);
    std::vector<double> identity(100, 0.0);
    for (int i = 0; i < 10; ++i) identity[std::size_t(i * 11)] = 1;
    const Tensor eye = Tensor::from(identity, Shape{10, 10});
    tracing::Condition data({{"y", y}});
    // The GP adds a jitter of 1e-6 to the diagonal.
    MultivariateNormalFullCovariance(Tensor::zeros(Shape{10}), a2 * exp(-0.5 * d2 / l2) + (n2 + 1e-6) * eye, "y");
  };
  const Unconstrained gp(model), mvn(by_hand);
  for (const Tensor& point : {Tensor::vec({0.1, -1.2, -2.0}), Tensor::vec({-0.5, -0.7, -1.0})})
    EXPECT_NEAR(gp.log_density(point).item(), mvn.log_density(point).item(), 1e-9);
  SamplerOptions o;
  o.seed = variate::testing::test_seed(12);
  // As Stan's users do for GP hyperparameters: a smaller step, against divergences in the tails
  // where the noise goes to 0.
  o.step_size_adaptation.target_accept = 0.95;
  const Fit f = fit(model, o);
  for (const char* site : {"amplitude", "length_scale", "noise"}) EXPECT_LT(rhat(site_draws(f, site)), 1.01) << site;
}

// f ~ GP(Matern32(1, 0.2), X) (noise-free, jitter 1e-6), y ~ N(f, 0.3^2): the posterior of f is
// normal with mean K (K + s^2 I)^-1 y and covariance K - K (K + s^2 I)^-1 K (Rasmussen & Williams
// 2006, eqs. 2.22-2.24), K including the jitter; computed here with a hand-written kernel and
// Gauss-Jordan solve.
TEST(MatrixSampling, GaussianProcessLatentPosteriorIsTheClosedForm) {
  constexpr std::size_t n = 10;
  const double noise = 0.3, length_scale = 0.2;
  std::vector<double> k(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double r = std::sqrt(3.0) * std::abs(kX[i] - kX[j]) / length_scale;
      k[i * n + j] = (1 + r) * std::exp(-r) + (i == j ? 1e-6 : 0.0);
    }
  // [K + s^2 I | y | K] reduced to [I | (K + s^2 I)^-1 y | (K + s^2 I)^-1 K].
  const std::size_t w = 2 + n;
  std::vector<double> a(n * (n + w));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) a[i * (n + w) + j] = k[i * n + j] + (i == j ? noise * noise : 0.0);
    a[i * (n + w) + n] = kY[i];
    a[i * (n + w) + n + 1] = 0;
    for (std::size_t j = 0; j < n; ++j) a[i * (n + w) + n + 2 + j] = k[i * n + j];
  }
  for (std::size_t c = 0; c < n; ++c) {
    const double pivot = a[c * (n + w) + c];
    for (std::size_t j = 0; j < n + w; ++j) a[c * (n + w) + j] /= pivot;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double factor = a[r * (n + w) + c];
      for (std::size_t j = 0; j < n + w; ++j) a[r * (n + w) + j] -= factor * a[c * (n + w) + j];
    }
  }
  std::vector<double> mean(n, 0.0), variance(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double kv = 0;
    for (std::size_t m = 0; m < n; ++m) {
      mean[i] += k[i * n + m] * a[m * (n + w) + n];
      kv += k[i * n + m] * a[m * (n + w) + n + 2 + i];
    }
    variance[i] = k[i * n + i] - kv;
  }

  const Tensor x = Tensor::from(kX, Shape{10}), y = Tensor::from(kY, Shape{10});
  auto model = [&] {
    auto f = GaussianProcess(dist::Matern32(1.0, length_scale), x, 0.0, {}, "f");
    tracing::Condition data({{"y", y}});
    Normal(f, noise, "y");
  };
  SamplerOptions o;
  o.seed = variate::testing::test_seed(13);
  o.metric = MetricKind::dense;
  const Fit f = fit(model, o);
  EXPECT_EQ(divergences(f.result), 0);
  for (std::int64_t i = 0; i < std::int64_t(n); ++i)
    variate::testing::expect_moments(site_draws(f, "f", i), mean[std::size_t(i)], variance[std::size_t(i)],
                                     "f[" + std::to_string(i) + "]", kZ);
}

}  // namespace
}  // namespace variate::inference
