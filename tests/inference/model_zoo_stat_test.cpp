// A zoo of well-known models written as a user would, each sampled with NUTS and compared with its
// posterior moments: eight schools (non-centered; centered, only its divergences), an AR(K) time
// series and a GP regression, whose posteriors reduce to one-dimensional integrals computed here by
// quadrature; a two-component mixture with ordered means, against a three-dimensional quadrature;
// and a GARCH(1,1) with its natural bound beta1 < 1 - alpha1, against posteriordb's reference
// posterior. Every kind of model has a case on data written here; those on posteriordb's files
// skip, saying so, where ../shared/data/posteriordb is absent.
//
// Tolerances are Monte Carlo standard errors (posterior_moments.hpp): kZ = 5 MCSEs, a false-failure
// probability of 5.7e-7 per comparison; the quadratures are accurate to far below an MCSE.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <numbers>
#include <vector>

#include "support/posterior_moments.hpp"
#include "support/test_seed.hpp"
#include "variate/data/data_file.hpp"
#include "variate/distributions/mixture_same_family.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/target.hpp"
#include "variate/models/builtin.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

constexpr double kZ = 5.0;
const double kLog2Pi = std::log(2 * std::numbers::pi);

struct Fit {
  Unconstrained space;
  SampleResult result;
};

Fit fit(const tracing::Program& model, std::uint64_t seed, double target_accept = 0.8, std::int64_t draws = 1000) {
  Unconstrained space(model);
  SamplerOptions options;
  options.seed = variate::testing::test_seed(seed);
  options.num_draws = draws;
  options.step_size_adaptation.target_accept = target_accept;
  SampleResult result = sample(make_target(space), options);
  return {std::move(space), std::move(result)};
}

/// Constrained draws of element `index` of `site`, [chain][draw].
ChainDraws draws_of(const Fit& f, const std::string& site, std::int64_t index = 0) {
  ChainDraws out;
  for (const ChainResult& c : f.result.chains) {
    const Tensor value = f.space.constrain(Tensor::from(c.draws, Shape{c.draw_count(), f.result.dimension})).at(site);
    const Tensor rows = reshape(value, {c.draw_count(), -1});
    std::vector<double> v;
    for (std::int64_t i = 0; i < c.draw_count(); ++i) v.push_back(rows.at(i * rows.dim(1) + index));
    out.push_back(std::move(v));
  }
  return out;
}

int divergences(const Fit& f) {
  int n = 0;
  for (const ChainResult& c : f.result.chains)
    for (const TransitionStats& s : c.stats) n += s.divergent;
  return n;
}

/// Posterior moments of quantities q_k given a scale parameter s > 0 whose marginal posterior is
/// known up to a constant: E[q_k] = ∫ E[q_k | s] p(s | y) ds, by the trapezoid rule over log s.
struct ScaleMixture {
  std::function<double(double)> log_posterior;  // log p(s | y) + const
  // E[q_k | s, y] and E[q_k^2 | s, y] for each quantity k.
  std::function<std::vector<std::pair<double, double>>(double)> conditional_moments;
};

/// {mean, variance} of each quantity.
std::vector<std::pair<double, double>> integrate(const ScaleMixture& m, double log_low, double log_high) {
  const int n = 20001;
  const double h = (log_high - log_low) / (n - 1);
  std::vector<double> log_w(n);
  double top = -INFINITY;
  for (int i = 0; i < n; ++i) {
    const double u = log_low + i * h;
    log_w[std::size_t(i)] = m.log_posterior(std::exp(u)) + u;  // ds = s du
    top = std::max(top, log_w[std::size_t(i)]);
  }
  double total = 0;
  std::vector<std::pair<double, double>> sums;
  for (int i = 0; i < n; ++i) {
    const double w = std::exp(log_w[std::size_t(i)] - top) * (i == 0 || i == n - 1 ? 0.5 : 1.0);
    if (w == 0) continue;
    const auto moments = m.conditional_moments(std::exp(log_low + i * h));
    if (sums.empty()) sums.assign(moments.size(), {0.0, 0.0});
    for (std::size_t k = 0; k < moments.size(); ++k) {
      sums[k].first += w * moments[k].first;
      sums[k].second += w * moments[k].second;
    }
    total += w;
  }
  std::vector<std::pair<double, double>> out;
  for (const auto& [first, second] : sums)
    out.push_back({first / total, second / total - (first / total) * (first / total)});
  return out;
}

void expect_moments(const ChainDraws& x, std::pair<double, double> truth, const std::string& what) {
  variate::testing::expect_moments(x, truth.first, truth.second, what, kZ);
}

// --- Eight schools (Rubin 1981; BDA3 section 5.5) with mu ~ N(0, 5), tau ~ HalfCauchy(0, 5).
const std::vector<double> kY{28, 8, -3, 7, -1, 1, 18, 12};
const std::vector<double> kSigma{15, 10, 16, 11, 9, 11, 10, 18};

void eight_schools_centered() {
  auto mu = Normal(0.0, 5.0, "mu");
  auto tau = HalfCauchy(0.0, 5.0, "tau");
  const Tensor schools = Tensor::ones(Shape{8});
  auto theta = Normal(expand_dims(mu, -1) * schools, expand_dims(tau, -1) * schools, "theta");
  tracing::Condition data({{"y", Tensor::from(kY, Shape{8})}});
  Normal(theta, Tensor::from(kSigma, Shape{8}), "y");
}

// Given tau, y_j | mu ~ N(mu, sigma_j^2 + tau^2) with mu integrated out in closed form, and theta_1
// | mu, tau, y normal; quantities: mu, tau, theta_1.
std::vector<std::pair<double, double>> eight_schools_truth() {
  const double prior_var = 25;
  auto given_tau = [&](double tau, double& precision, double& mean) {
    precision = 1 / prior_var;
    double b = 0;
    for (std::size_t j = 0; j < 8; ++j) {
      const double v = kSigma[j] * kSigma[j] + tau * tau;
      precision += 1 / v;
      b += kY[j] / v;
    }
    mean = b / precision;
  };
  ScaleMixture m;
  m.log_posterior = [&](double tau) {
    double precision, mean, lp = std::log(2 / (std::numbers::pi * 5 * (1 + tau * tau / 25)));  // HalfCauchy(0, 5)
    given_tau(tau, precision, mean);
    lp -= 0.5 * std::log(2 * std::numbers::pi * prior_var);
    for (std::size_t j = 0; j < 8; ++j) {
      const double v = kSigma[j] * kSigma[j] + tau * tau;
      lp -= 0.5 * (kLog2Pi + std::log(v) + kY[j] * kY[j] / v);
    }
    return lp + 0.5 * mean * mean * precision + 0.5 * (kLog2Pi - std::log(precision));
  };
  m.conditional_moments = [&](double tau) {
    double precision, mean;
    given_tau(tau, precision, mean);
    const double s2 = kSigma[0] * kSigma[0], t2 = tau * tau;
    const double v = 1 / (1 / s2 + 1 / t2), a = v * kY[0] / s2, c = v / t2;
    const double theta_mean = a + c * mean;
    return std::vector<std::pair<double, double>>{{mean, mean * mean + 1 / precision},
                                                  {tau, tau * tau},
                                                  {theta_mean, v + theta_mean * theta_mean + c * c / precision}};
  };
  return integrate(m, -12, 9);
}

TEST(ModelZoo, EightSchoolsNonCentered) {
  const auto truth = eight_schools_truth();
  // The built-in model (models/builtin.hpp), as the tool samples it.
  const Fit f = fit(models::builtin_definition("eight-schools").program, 11);
  expect_moments(draws_of(f, "mu"), truth[0], "mu");
  expect_moments(draws_of(f, "tau"), truth[1], "tau");
  // theta is a generated quantity, computed from each draw.
  ChainDraws theta;
  for (const ChainResult& c : f.result.chains) {
    const Tensor t =
        f.space.generated_quantities(Tensor::from(c.draws, Shape{c.draw_count(), f.result.dimension})).at("theta");
    std::vector<double> v;
    for (std::int64_t i = 0; i < c.draw_count(); ++i) v.push_back(t.at(i * 8));
    theta.push_back(std::move(v));
  }
  expect_moments(theta, truth[2], "theta[1]");
}

// The centered parameterization is the classic funnel (Betancourt and Girolami 2015, "Hamiltonian
// Monte Carlo for hierarchical models"): no step size serves both its neck and its mouth, so NUTS
// cannot be shown to converge on it. Over 64 seeds at target acceptance 0.99 and 4 x 5,000 draws,
// the largest R-hat of mu, tau and theta[1] reached 1.01 in 27 runs here and in 31 of CmdStan
// 2.32's, a few as high as 1.28 (chains stuck in the neck). What a sampler owes its user here is
// the warning: divergences, which mark the region it cannot enter (CmdStan had 13 or more in every
// run, and here the fewest over 92 seeds was 21). Moments are checked non-centered (above).
TEST(ModelZoo, EightSchoolsCenteredReportsDivergences) {
  const Fit f = fit(eight_schools_centered, 12, 0.99, 5000);
  EXPECT_GT(divergences(f), 0);
}

std::optional<data::DataFile> posteriordb(const std::string& name) {
  const std::string file = std::string(VARIATE_SOURCE_DIR) + "/../shared/data/posteriordb/data/" + name + ".json.zip";
  if (!std::filesystem::exists(file)) return std::nullopt;
  return data::read_data_file(file);
}

// Solves A x = b in place for a small symmetric positive definite A (Cholesky); returns log det A.
double solve_spd(std::vector<double> a, std::vector<double>& b, std::size_t n) {
  double log_det = 0;
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    const double l = std::sqrt(d);
    a[j * n + j] = l;
    log_det += 2 * std::log(l);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / l;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {  // L z = b
    for (std::size_t k = 0; k < i; ++k) b[i] -= a[i * n + k] * b[k];
    b[i] /= a[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {  // L^T x = z
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= a[k * n + i] * b[k];
    b[i] /= a[i * n + i];
  }
  return log_det;
}

// --- AR(K) (posteriordb arK-arK): alpha, beta_k ~ N(0, 10), sigma ~ HalfCauchy(0, 2.5),
// y_t ~ N(alpha + sum_k beta_k y_{t-k}, sigma). Given sigma the coefficients are a Bayesian linear
// regression, conjugate; sigma's marginal is one-dimensional.
void check_autoregressive(const std::vector<double>& y, std::size_t K, std::uint64_t seed) {
  const std::size_t T = y.size(), n = T - K, p = K + 1;
  // Design: row t holds 1, y_{t-1}, ..., y_{t-K}.
  std::vector<double> x(n * p), target(n);
  for (std::size_t t = K; t < T; ++t) {
    x[(t - K) * p] = 1;
    for (std::size_t k = 1; k <= K; ++k) x[(t - K) * p + k] = y[t - k];
    target[t - K] = y[t];
  }
  auto model = [&] {
    auto alpha = Normal(0.0, 10.0, "alpha");
    auto beta = Normal(0.0, 10.0, "beta", {std::int64_t(K)});
    auto sigma = HalfCauchy(0.0, 2.5, "sigma");
    const Tensor lags = Tensor::from(std::vector<double>(x.begin(), x.end()), Shape{std::int64_t(n), std::int64_t(p)});
    const Tensor coefficients = concat({expand_dims(alpha, -1), beta}, -1);               // (..., K + 1)
    const Tensor mean = sum(expand_dims(coefficients, -2) * lags, std::vector<int>{-1});  // (..., n)
    tracing::Condition data({{"y", Tensor::from(target, Shape{std::int64_t(n)})}});
    Normal(mean, expand_dims(sigma, -1), "y");
  };
  double xtx_y = 0;
  std::vector<double> xtx(p * p, 0.0), xty(p, 0.0);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < p; ++i) {
      xty[i] += x[r * p + i] * target[r];
      for (std::size_t j = 0; j < p; ++j) xtx[i * p + j] += x[r * p + i] * x[r * p + j];
    }
    xtx_y += target[r] * target[r];
  }
  // Given sigma: precision A = X'X / s^2 + I / 100, mean A^-1 X'y / s^2; the evidence
  // N(y | 0, s^2 I + 100 X X') = exp(-(y'y/s^2 - m'A m) / 2) / sqrt((2 pi s^2)^n 100^p det A).
  auto posterior_given = [&](double s, std::vector<double>& mean, double& log_det, std::vector<double>& diag_cov) {
    std::vector<double> a(p * p);
    for (std::size_t i = 0; i < p * p; ++i) a[i] = xtx[i] / (s * s) + (i % (p + 1) == 0 ? 0.01 : 0.0);
    mean = xty;
    for (double& v : mean) v /= s * s;
    log_det = solve_spd(a, mean, p);
    diag_cov.assign(p, 0.0);
    for (std::size_t k = 0; k < 2; ++k) {  // the variances of alpha and beta_1
      std::vector<double> e(p, 0.0);
      e[k] = 1;
      solve_spd(a, e, p);
      diag_cov[k] = e[k];
    }
  };
  ScaleMixture m;
  m.log_posterior = [&](double s) {
    std::vector<double> mean, cov;
    double log_det;
    posterior_given(s, mean, log_det, cov);
    double quad = xtx_y / (s * s);
    for (std::size_t i = 0; i < p; ++i) quad -= mean[i] * xty[i] / (s * s);
    const double log_prior = std::log(2 / (std::numbers::pi * 2.5 * (1 + s * s / 6.25)));
    return log_prior - 0.5 * (double(n) * std::log(s * s) + double(p) * std::log(100.0) + log_det + quad);
  };
  m.conditional_moments = [&](double s) {
    std::vector<double> mean, cov;
    double log_det;
    posterior_given(s, mean, log_det, cov);
    return std::vector<std::pair<double, double>>{
        {mean[0], cov[0] + mean[0] * mean[0]}, {mean[1], cov[1] + mean[1] * mean[1]}, {s, s * s}};
  };
  const auto truth = integrate(m, -8, 3);
  const Fit f = fit(model, seed);
  expect_moments(draws_of(f, "alpha"), truth[0], "alpha");
  expect_moments(draws_of(f, "beta", 0), truth[1], "beta[1]");
  expect_moments(draws_of(f, "sigma"), truth[2], "sigma");
}

// 60 steps of y_t = 0.5 + 0.6 y_{t-1} - 0.3 y_{t-2} + 0.8 e_t (simulated once, Python's random with
// seed 20, after 22 steps of burn-in), so that the time series run without external data.
TEST(ModelZoo, AutoregressiveTwoOnEmbeddedData) {
  const std::vector<double> y{-0.58, 0.43,  1.25,  0.25,  1.18,  1.65, 1.48, 0.97, 1.09, 2.01, 1.12, 1.77,
                              1.43,  1.17,  2.01,  1.54,  1.18,  0.31, 0.34, 0.74, 0.43, 0.00, 1.12, 2.05,
                              0.69,  -0.21, 0.82,  1.99,  0.65,  0.00, 1.24, 2.83, 2.62, 0.30, 0.95, 0.95,
                              0.56,  0.88,  0.10,  -0.31, -2.03, 0.35, 1.53, 0.98, 0.67, 0.57, 0.24, -0.10,
                              0.12,  -1.36, -1.68, -0.36, 1.91,  2.15, 1.87, 1.57, 0.73, 0.73, 0.72, 0.36};
  check_autoregressive(y, 2, 16);
}

TEST(ModelZoo, AutoregressiveKOnPosteriordbData) {
  const auto file = posteriordb("arK");
  if (!file) GTEST_SKIP() << "posteriordb data not found under ../shared/data/posteriordb (arK.json.zip)";
  check_autoregressive(file->at("y").values, std::size_t(file->at("K").values[0]), 13);
}

// --- GP regression with MultivariateNormal: y ~ MVN(0, a^2 exp(-(x_i - x_j)^2 / (2 rho^2)) +
// s^2 I) with a = 1, s = 0.3 known and rho ~ LogNormal(0, 1): rho's posterior is one-dimensional.
TEST(ModelZoo, GaussianProcessLengthScale) {
  const std::vector<double> xs{0.0, 0.7, 1.3, 2.1, 2.6, 3.4, 4.0, 4.9, 5.5, 6.3};
  const std::vector<double> ys{0.1, 0.78, 1.02, 0.81, 0.45, -0.31, -0.83, -0.95, -0.6, 0.05};
  const std::size_t n = xs.size();
  const double amplitude = 1.0, noise = 0.3;
  const Tensor x = Tensor::from(xs, Shape{std::int64_t(n)});
  const Tensor squared_distance = square(expand_dims(x, -1) - expand_dims(x, 0));
  std::vector<double> identity(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) identity[i * n + i] = 1;
  const Tensor eye = Tensor::from(identity, Shape{std::int64_t(n), std::int64_t(n)});
  auto model = [&] {
    auto rho = LogNormal(0.0, 1.0, "rho");
    const Tensor r = expand_dims(expand_dims(rho, -1), -1);
    const Tensor k = amplitude * amplitude * exp(-0.5 * squared_distance / square(r)) + noise * noise * eye;
    tracing::Condition data({{"y", Tensor::from(ys, Shape{std::int64_t(n)})}});
    MultivariateNormalFullCovariance(Tensor::zeros(Shape{std::int64_t(n)}), k, "y");
  };
  ScaleMixture m;
  m.log_posterior = [&](double rho) {
    std::vector<double> k(n * n), alpha = ys;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const double d = xs[i] - xs[j];
        k[i * n + j] = amplitude * amplitude * std::exp(-0.5 * d * d / (rho * rho)) + (i == j ? noise * noise : 0.0);
      }
    const double log_det = solve_spd(k, alpha, n);
    double quad = 0;
    for (std::size_t i = 0; i < n; ++i) quad += ys[i] * alpha[i];
    const double log_prior = -std::log(rho) - 0.5 * std::log(rho) * std::log(rho) - 0.5 * kLog2Pi;  // LogNormal(0, 1)
    return log_prior - 0.5 * (log_det + quad);
  };
  m.conditional_moments = [](double rho) { return std::vector<std::pair<double, double>>{{rho, rho * rho}}; };
  const auto truth = integrate(m, -6, 5);
  const Fit f = fit(model, 14);
  expect_moments(draws_of(f, "rho"), truth[0], "rho");
}

// --- A two-component mixture with ordered means (Stan's `ordered[2] mu;` with log_mix):
// y_i ~ w N(mu_1, 1) + (1 - w) N(mu_2, 1), mu_k ~ N(0, 5) restricted to mu_1 < mu_2, w ~ Beta(2, 2).
// 30 points, about a third from N(-2, 1) and the rest from N(2.5, 1) (simulated once, Python's random
// with seed 7): well separated, so the posterior has one mode. Written with MixtureSameFamily and
// with a label per datum summed out by enumeration; both against the trapezoid rule over
// (mu_1, mu_2, logit w).
const std::vector<double> kMixtureY{-1.15, -0.82, 2.27,  2.76, -2.35, -1.85, 2.74, -2.46, 3.74,  2.08,
                                    4.39,  -1.43, -1.37, 3.08, -3.24, 1.80,  2.82, -1.87, 1.72,  2.88,
                                    1.95,  4.19,  -3.09, 1.95, 1.84,  0.72,  2.53, 1.93,  -2.84, 1.02};

RandomVariable ordered_means() {
  auto normals = std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(0.0, 5.0), Shape{2});
  return Restricted(normals, Constraint::ordered(), "mu");
}

void ordered_mixture() {
  auto w = Beta(2.0, 2.0, "w");
  auto mu = ordered_means();
  const Tensor logits = concat({expand_dims(log(w), -1), expand_dims(log1p(-w), -1)}, -1);  // (..., 2)
  auto components = std::make_shared<dist::Normal>(expand_dims(mu, -2), 1.0);               // (..., 1, 2)
  tracing::Condition data({{"y", Tensor::from(kMixtureY)}});
  RandomVariable(std::make_shared<dist::MixtureSameFamily>(expand_dims(logits, -2), components), "y");
}

void ordered_mixture_with_labels() {
  auto w = Beta(2.0, 2.0, "w");
  auto mu = ordered_means();
  const auto n = std::int64_t(kMixtureY.size());
  tracing::Enumerate enumerate({"z"});
  auto z = Bernoulli(Probs{expand_dims(1.0 - w, -1) * Tensor::ones(Shape{n})}, "z");  // 1: the second component
  const Tensor mu1 = slice(mu, -1, 0, 1), mu2 = slice(mu, -1, 1, 2);
  tracing::Condition data({{"y", Tensor::from(kMixtureY)}});
  Normal(mu1 + z * (mu2 - mu1), 1.0, "y");
}

// {mean, variance} of mu_1, mu_2 and w. The box holds the posterior to exp(-30) of its peak (checked
// on its faces); the grid step is a quarter of a posterior sd or less, where the trapezoid rule's
// error on a smooth peak is below 1e-10.
std::vector<std::pair<double, double>> ordered_mixture_truth() {
  const int n = 97;
  const double low[] = {-5.0, 0.0, -4.5}, high[] = {1.0, 5.0, 3.5};  // mu_1, mu_2, logit w
  std::vector<double> grid[3];
  for (int d = 0; d < 3; ++d)
    for (int i = 0; i < n; ++i) grid[d].push_back(low[d] + (high[d] - low[d]) * i / (n - 1));
  std::vector<double> log_w(std::size_t(n * n * n), -INFINITY);
  double top = -INFINITY;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const double m1 = grid[0][std::size_t(i)], m2 = grid[1][std::size_t(j)], u = grid[2][std::size_t(k)];
        if (m1 >= m2) continue;
        const double w = 1 / (1 + std::exp(-u));
        // Normal(0, 5) priors, Beta(2, 2) and the logit's Jacobian w (1 - w), up to constants.
        double lp = -(m1 * m1 + m2 * m2) / 50 + 2 * (std::log(w) + std::log1p(-w));
        for (double y : kMixtureY)
          lp += std::log(w * std::exp(-0.5 * (y - m1) * (y - m1)) + (1 - w) * std::exp(-0.5 * (y - m2) * (y - m2)));
        log_w[std::size_t((i * n + j) * n + k)] = lp;
        top = std::max(top, lp);
      }
  double total = 0, sum[3] = {0, 0, 0}, sum_sq[3] = {0, 0, 0}, face = -INFINITY;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const double lp = log_w[std::size_t((i * n + j) * n + k)];
        if (i == 0 || i == n - 1 || j == 0 || j == n - 1 || k == 0 || k == n - 1) {
          face = std::max(face, lp);
          continue;  // the trapezoid rule's end points weigh half: nothing, at exp(-30)
        }
        const double weight = std::exp(lp - top);
        const double q[] = {grid[0][std::size_t(i)], grid[1][std::size_t(j)],
                            1 / (1 + std::exp(-grid[2][std::size_t(k)]))};
        total += weight;
        for (int d = 0; d < 3; ++d) sum[d] += weight * q[d], sum_sq[d] += weight * q[d] * q[d];
      }
  EXPECT_LT(face - top, -30.0) << "the quadrature's box cuts the posterior";
  std::vector<std::pair<double, double>> out;
  for (int d = 0; d < 3; ++d) out.push_back({sum[d] / total, sum_sq[d] / total - sum[d] * sum[d] / (total * total)});
  return out;
}

void expect_ordered_mixture_moments(const Fit& f, const std::string& how) {
  static const auto truth = ordered_mixture_truth();
  EXPECT_EQ(divergences(f), 0) << how;
  expect_moments(draws_of(f, "mu", 0), truth[0], how + " mu[1]");
  expect_moments(draws_of(f, "mu", 1), truth[1], how + " mu[2]");
  expect_moments(draws_of(f, "w"), truth[2], how + " w");
}

TEST(ModelZoo, OrderedMixture) { expect_ordered_mixture_moments(fit(ordered_mixture, 17), "MixtureSameFamily"); }

TEST(ModelZoo, OrderedMixtureWithEnumeratedLabels) {
  expect_ordered_mixture_moments(fit(ordered_mixture_with_labels, 18), "enumerated labels");
}

// --- GARCH(1,1) (posteriordb garch-garch11): flat priors on mu and alpha0 > 0, alpha1 ~ U(0, 1),
// beta1 flat on (0, 1 - alpha1), the bound that keeps the process stationary; sigma_t^2 = alpha0 +
// alpha1 (y_{t-1} - mu)^2 + beta1 sigma_{t-1}^2. No closed form: compared with posteriordb's
// reference posterior (10 chains of Stan, 10000 draws), whose means and mean squares come with their
// MCSEs; every draw must keep the bound, with threaded and with vectorized chains.
struct Reference {
  const char* name;
  double mean, mean_mcse, mean_square, mean_square_mcse;
};

// posteriordb (commit 28f8d3d), reference_posteriors/summary_statistics/{mean_value,
// mean_squared_value}/garch-garch11.json.
constexpr Reference kGarchReference[] = {
    {"mu", 5.05001794660039, 0.00123500863504721, 25.5180634, 0.0124914355},
    {"alpha0", 1.47075973803898, 0.00568114335897224, 2.490076, 0.0200758738},
    {"alpha1", 0.567284282813872, 0.00128025972217755, 0.3379668, 0.0014919579},
    {"beta1", 0.293024546082117, 0.00125411180836808, 0.1014308, 0.0007721126},
};

// E[x] and E[x^2] of the draws against the reference's, within kZ combined MCSEs.
void expect_reference_moments(const ChainDraws& x, const Reference& r, const std::string& run) {
  const std::string what = run + " " + r.name;
  EXPECT_NEAR(variate::testing::mean_of(x), r.mean, kZ * std::hypot(mcse_mean(x), r.mean_mcse)) << what << " mean";
  ChainDraws squares = x;
  for (auto& c : squares)
    for (double& v : c) v *= v;
  EXPECT_NEAR(variate::testing::mean_of(squares), r.mean_square,
              kZ * std::hypot(mcse_mean(squares), r.mean_square_mcse))
      << what << " mean square";
  EXPECT_LT(rhat(x), 1.01) << what;
}

TEST(ModelZoo, GarchWithItsStationarityBound) {
  const auto file = posteriordb("garch");
  if (!file) GTEST_SKIP() << "posteriordb data not found under ../shared/data/posteriordb (garch.json.zip)";
  const std::vector<double>& y = file->at("y").values;
  const double sigma1 = file->at("sigma1").values[0];
  const std::int64_t T = std::int64_t(y.size());
  const Tensor data = Tensor::from(y, Shape{T});
  auto model = [&](bool flat) {
    auto mu = ImproperUniform(Constraint::real(), "mu");
    auto alpha0 = ImproperUniform(Constraint::positive(), "alpha0");
    auto alpha1 = Uniform(0.0, 1.0, "alpha1");
    auto beta1 =
        flat ? ImproperUniform(Constraint::interval(0.0, 1.0 - alpha1), "beta1") : Uniform(0.0, 1.0 - alpha1, "beta1");
    if (!flat) factor("stan_flat_beta1", log1p(-alpha1));
    // The recursion runs over time steps on tensors that may carry a leading chain dimension.
    std::vector<Tensor> scale{Tensor::scalar(sigma1) + 0.0 * mu};
    for (std::int64_t t = 1; t < T; ++t) {
      const Tensor previous = Tensor::scalar(y[std::size_t(t - 1)]) - mu;
      scale.push_back(sqrt(alpha0 + alpha1 * square(previous) + beta1 * square(scale.back())));
    }
    tracing::Condition observed({{"y", data}});
    Normal(expand_dims(mu, -1), stack(scale, -1), "y");
  };
  // Stan's `real<lower=0, upper=1 - alpha1> beta1;` without a statement is flat on (0, 1 - alpha1),
  // not the uniform distribution there, whose density 1 / (1 - alpha1) would favour larger alpha1
  // (alpha1's mean comes out 0.61, not 0.567): the bounded flat prior, threaded, and the uniform
  // with its normalization taken back by a factor, vectorized.
  for (bool vectorized : {false, true}) {
    const std::string run = vectorized ? "Uniform, vectorized" : "flat, threaded";
    Unconstrained space([&] { model(!vectorized); });
    SamplerOptions options;
    options.seed = variate::testing::test_seed(15);
    options.vectorized = vectorized;
    SampleResult result = sample(make_target(space), options);
    const Fit f{std::move(space), std::move(result)};
    EXPECT_EQ(divergences(f), 0) << run;
    const ChainDraws a1 = draws_of(f, "alpha1"), b1 = draws_of(f, "beta1");
    for (std::size_t c = 0; c < a1.size(); ++c)
      for (std::size_t i = 0; i < a1[c].size(); ++i) ASSERT_LT(a1[c][i] + b1[c][i], 1.0) << run;
    for (const Reference& r : kGarchReference) expect_reference_moments(draws_of(f, r.name), r, run);
  }
}

}  // namespace
}  // namespace variate::inference
