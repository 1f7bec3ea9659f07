// Goodness of fit of every sampler against its exact distribution (Boost.Math): Kolmogorov-Smirnov
// for continuous draws, chi-square for counts. Each check asserts p > 1e-4 with a fixed key; see
// support/statistics.hpp for what that budget means. With 66 checks, new keys would fail a correct
// implementation with probability below 0.7%.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "support/statistics.hpp"
#include "support/test_seed.hpp"
#include "variate/random/samplers.hpp"

namespace variate::random {
namespace {

using test::kFalseFailureRate;

constexpr std::int64_t kDraws = 100000;

Tensor scalar(double v) { return Tensor::scalar(v); }

// log(sum of the components in `group`) - log(sum of the others), for each row of draws (n, k). A
// Dirichlet's components are each accurate near 0 but a sum near 1 is not (doubles cannot resolve
// 1 - 1e-30), so the log-odds are formed from the two sides separately.
std::vector<double> log_odds(const Tensor& draws, std::initializer_list<std::int64_t> group) {
  const std::int64_t k = draws.dim(-1);
  const std::vector<double> all = draws.to_vector<double>();
  std::vector<double> out;
  for (std::size_t row = 0; row < all.size(); row += std::size_t(k)) {
    double in = 0.0, rest = 0.0;
    for (std::int64_t j = 0; j < k; ++j)
      (std::find(group.begin(), group.end(), j) != group.end() ? in : rest) += all[row + std::size_t(j)];
    out.push_back(std::log(in) - std::log(rest));
  }
  return out;
}

// KS test of log(X / (1 - X)) for X ~ Beta(a, b), the CDF evaluated on the side of 1/2 where it is
// accurate (1 - I_x(a, b) = I_(1-x)(b, a)).
test::GoodnessOfFit log_odds_beta_fit(const std::vector<double>& draws, double a, double b) {
  return test::ks_test(draws, [&](double t) {
    const double below = 1.0 / (1.0 + std::exp(std::abs(t)));  // sigmoid(-|t|)
    return t <= 0.0 ? boost::math::ibeta(a, b, below) : 1.0 - boost::math::ibeta(b, a, below);
  });
}

// Component j of draws shaped (n, k), or the sum of components j0 and j1.
std::vector<double> column(const Tensor& draws, std::int64_t j) {
  const std::int64_t k = draws.dim(-1);
  const std::vector<double> all = draws.to_vector<double>();
  std::vector<double> out;
  for (std::size_t i = std::size_t(j); i < all.size(); i += std::size_t(k)) out.push_back(all[i]);
  return out;
}
std::vector<double> column_sum(const Tensor& draws, std::int64_t j0, std::int64_t j1) {
  std::vector<double> a = column(draws, j0);
  const std::vector<double> b = column(draws, j1);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

template <class Dist>
test::GoodnessOfFit ks_against(const std::vector<double>& draws, const Dist& dist) {
  return test::ks_test(draws, [&](double x) { return boost::math::cdf(dist, x); });
}

// Chi-square of counts against a discrete distribution with the given mean and standard deviation:
// bins of whole values over mean +- (8 sd + 10) within [0, largest], at most about 200 of them, plus
// the two tails.
template <class Dist>
test::GoodnessOfFit count_fit(const std::vector<double>& draws, const Dist& dist, double mean, double sd,
                              double largest) {
  const double lo = std::max(0.0, std::floor(mean - 8 * sd - 10));
  const double hi = std::min(largest, std::ceil(mean + 8 * sd + 10));
  const double width = std::max(1.0, std::ceil((hi - lo) / 200));
  std::vector<double> edges;
  for (double e = lo; e <= hi; e += width) edges.push_back(e);
  // Boost interpolates discrete CDFs between integers; the CDF of whole values is a step function.
  return test::chi_square_test(
      draws, [&](double x) { return boost::math::cdf(dist, std::floor(x)); }, edges);
}

test::GoodnessOfFit binomial_fit(const std::vector<double>& draws, double n, double p) {
  return count_fit(draws, boost::math::binomial_distribution<double>(n, p), n * p, std::sqrt(n * p * (1 - p)), n);
}

test::GoodnessOfFit poisson_fit(const std::vector<double>& draws, double rate) {
  return count_fit(draws, boost::math::poisson_distribution<double>(rate), rate, std::sqrt(rate),
                   std::numeric_limits<double>::infinity());
}

TEST(SamplerFit, GoodnessOfFitTestsRejectWrongDistributions) {
  // The checks below have power: slightly wrong distributions fail them by a wide margin.
  const std::vector<double> g = gamma(Key(variate::testing::test_seed(1)), scalar(3.7), {kDraws}).to_vector<double>();
  EXPECT_LT(ks_against(g, boost::math::gamma_distribution<double>(3.8)).p_value, 1e-10);
  const std::vector<double> k =
      poisson(Key(variate::testing::test_seed(1)), scalar(30.0), {kDraws}).to_vector<double>();
  EXPECT_LT(poisson_fit(k, 30.3).p_value, 1e-10);
}

TEST(SamplerFit, Uniform) {
  for (DType dtype : {DType::f64, DType::f32}) {
    const auto fit = test::ks_test(uniform(Key(variate::testing::test_seed(10)), {kDraws}, dtype).to_vector<double>(),
                                   [](double x) { return x; });
    EXPECT_GT(fit.p_value, kFalseFailureRate) << dtype << ": " << fit;
  }
}

TEST(SamplerFit, Normal) {
  const boost::math::normal_distribution<double> dist;
  for (DType dtype : {DType::f64, DType::f32}) {
    const auto fit =
        ks_against(normal(Key(variate::testing::test_seed(11)), {kDraws}, dtype).to_vector<double>(), dist);
    EXPECT_GT(fit.p_value, kFalseFailureRate) << dtype << ": " << fit;
  }
}

TEST(SamplerFit, Exponential) {
  const auto fit = test::ks_test(exponential(Key(variate::testing::test_seed(12)), {kDraws}).to_vector<double>(),
                                 [](double x) { return -std::expm1(-x); });
  EXPECT_GT(fit.p_value, kFalseFailureRate) << fit;
}

TEST(SamplerFit, Gamma) {
  // 0.01 and 0.1 exercise the log-space boost (0.01 underflows a plain U^(1/a) about once per 1000).
  for (double a : {0.01, 0.1, 0.5, 1.0, 3.7, 50.0}) {
    const auto fit = ks_against(gamma(Key(variate::testing::test_seed(13)), scalar(a), {kDraws}).to_vector<double>(),
                                boost::math::gamma_distribution<double>(a));
    EXPECT_GT(fit.p_value, kFalseFailureRate) << "concentration " << a << ": " << fit;
  }
}

TEST(SamplerFit, Beta) {
  // Small concentration1 exercises the log-space boost. Small concentration0 is left out: then a
  // visible share of the mass lies within 2^-53 of 1, which a double cannot hold (the Dirichlet
  // test covers small concentrations on both sides through log-odds).
  const double params[][2] = {{0.05, 2.0}, {0.1, 0.3}, {0.5, 0.5}, {1.0, 1.0}, {2.0, 5.0}, {40.0, 0.7}};
  for (const auto& [a, b] : params) {
    const auto fit =
        ks_against(beta(Key(variate::testing::test_seed(14)), scalar(a), scalar(b), {kDraws}).to_vector<double>(),
                   boost::math::beta_distribution<double>(a, b));
    EXPECT_GT(fit.p_value, kFalseFailureRate) << "Beta(" << a << ", " << b << "): " << fit;
  }
}

TEST(SamplerFit, DirichletMarginalsAndAggregatesAreBeta) {
  // X_j ~ Beta(a_j, a0 - a_j), and X_0 + X_1 ~ Beta(a_0 + a_1, a_2 + a_3); tested as log-odds.
  const std::vector<std::vector<double>> concentrations = {
      {0.1, 0.5, 2.0, 1.0}, {0.01, 0.02, 0.05, 0.03}, {30.0, 50.0, 1.0, 5.0}};
  for (const auto& alpha : concentrations) {
    const Tensor draws = dirichlet(Key(variate::testing::test_seed(15)), Tensor::from(alpha, {4}), {kDraws / 2});
    const double a0 = alpha[0] + alpha[1] + alpha[2] + alpha[3];
    std::ostringstream name;
    name << "Dirichlet(" << alpha[0] << ", " << alpha[1] << ", " << alpha[2] << ", " << alpha[3] << ")";
    for (std::int64_t j = 0; j < 4; ++j) {
      const double aj = alpha[std::size_t(j)];
      const auto fit = log_odds_beta_fit(log_odds(draws, {j}), aj, a0 - aj);
      EXPECT_GT(fit.p_value, kFalseFailureRate) << "component " << j << " of " << name.str() << ": " << fit;
    }
    const auto fit = log_odds_beta_fit(log_odds(draws, {0, 1}), alpha[0] + alpha[1], alpha[2] + alpha[3]);
    EXPECT_GT(fit.p_value, kFalseFailureRate) << "X0 + X1 of " << name.str() << ": " << fit;
  }
}

TEST(SamplerFit, Poisson) {
  // 9.99 and 10 sit on either side of the switch from multiplication to PTRS.
  for (double rate : {0.5, 5.0, 9.99, 10.0, 30.0, 500.0, 1e4}) {
    const auto fit =
        poisson_fit(poisson(Key(variate::testing::test_seed(16)), scalar(rate), {kDraws}).to_vector<double>(), rate);
    EXPECT_GT(fit.p_value, kFalseFailureRate) << "rate " << rate << ": " << fit;
  }
}

TEST(SamplerFit, Binomial) {
  // Inversion (n min(p, 1-p) < 10), BTRS, both with p above 1/2 (drawn as n - Binomial(n, 1 - p)),
  // p near 0 and 1, and counts far beyond 32 bits.
  const double params[][2] = {{10, 0.3},    {100, 0.02}, {50, 0.9},  {1000, 0.5}, {200, 0.06},
                              {1e5, 0.999}, {1e9, 1e-8}, {1e6, 0.3}, {25, 0.6},   {3e12, 0.4}};
  for (const auto& [n, p] : params) {
    const auto fit = binomial_fit(
        binomial(Key(variate::testing::test_seed(17)), scalar(n), scalar(p), {kDraws}).to_vector<double>(), n, p);
    EXPECT_GT(fit.p_value, kFalseFailureRate) << "Binomial(" << n << ", " << p << "): " << fit;
  }
}

TEST(SamplerFit, Bernoulli) {
  for (double p : {0.3, 1e-3, 0.97}) {
    const auto fit =
        binomial_fit(bernoulli(Key(variate::testing::test_seed(18)), scalar(p), {kDraws}).to_vector<double>(), 1, p);
    EXPECT_GT(fit.p_value, kFalseFailureRate) << "p " << p << ": " << fit;
  }
}

TEST(SamplerFit, Categorical) {
  // Large logits of either sign must give the softmax probabilities, not overflow or lose them.
  const std::vector<std::vector<double>> rows = {
      {0.1, -1.2, 2.0, 0.5}, {40.0, 39.0, 38.5, -40.0, 37.0}, {-40.0, -39.3, -41.0, -45.0}, {1e4, 1e4 + 0.5}};
  for (const auto& logits : rows) {
    const auto k = std::int64_t(logits.size());
    const std::vector<std::int64_t> draws =
        categorical(Key(variate::testing::test_seed(19)), Tensor::from(logits, {k}), {kDraws})
            .to_vector<std::int64_t>();
    std::vector<double> counts(std::size_t(k), 0.0), probs(std::size_t(k), 0.0);
    for (std::int64_t c : draws) ++counts[std::size_t(c)];
    double total = 0.0;
    for (std::int64_t j = 0; j < k; ++j) total += probs[std::size_t(j)] = std::exp(logits[std::size_t(j)] - logits[0]);
    for (double& p : probs) p /= total;
    const auto fit = test::chi_square_test(counts, probs);
    EXPECT_GT(fit.p_value, kFalseFailureRate) << "logits starting " << logits[0] << ": " << fit;
  }
}

TEST(SamplerFit, MultinomialMarginalsAndAggregatesAreBinomial) {
  // Counts X_j ~ Binomial(n, p_j), and X_0 + X_2 ~ Binomial(n, p_0 + p_2).
  const std::vector<std::pair<double, std::vector<double>>> params = {{20, {0.1, 0.2, 0.3, 0.4}},
                                                                      {1000, {0.5, 0.001, 0.25, 0.249}}};
  for (const auto& [n, p] : params) {
    const Tensor draws =
        multinomial(Key(variate::testing::test_seed(20)), scalar(n), Tensor::from(p, {4}), {kDraws / 2});
    for (std::int64_t j = 0; j < 4; ++j) {
      const auto fit = binomial_fit(column(draws, j), n, p[std::size_t(j)]);
      EXPECT_GT(fit.p_value, kFalseFailureRate) << "component " << j << " with n " << n << ": " << fit;
    }
    const auto fit = binomial_fit(column_sum(draws, 0, 2), n, p[0] + p[2]);
    EXPECT_GT(fit.p_value, kFalseFailureRate) << "X0 + X2 with n " << n << ": " << fit;
  }
}

}  // namespace
}  // namespace variate::random
