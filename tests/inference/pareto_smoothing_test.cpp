// PSIS's deterministic properties: the tail length, smoothing keeps the order and truncates at the
// largest ratio, equal ratios and bounded ratios give small k-hat, and bad input is named.
#include "variate/inference/pareto_smoothing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "support/expect_error.hpp"

namespace variate::inference {
namespace {

// log p - log q for draws x ~ q = N(0, q_sd^2) and p = N(0, p_sd^2), p written without its
// normalizing constant (so the ratios carry a constant offset, as a model's do).
std::vector<double> normal_log_ratios(double q_sd, double p_sd, int draws, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, q_sd);
  std::vector<double> r;
  for (int s = 0; s < draws; ++s) {
    const double x = normal(rng);
    const double log_q = -0.5 * x * x / (q_sd * q_sd) - std::log(q_sd) - 0.5 * std::log(2 * M_PI);
    r.push_back(-0.5 * x * x / (p_sd * p_sd) - log_q);
  }
  return r;
}

TEST(ParetoSmoothing, TailLengthIsTheSmallerOfAFifthAndThreeRootS) {
  EXPECT_EQ(pareto_smooth(normal_log_ratios(1, 1.1, 100, 1)).tail_length, 20u);     // 0.2 S = 20 < 30
  EXPECT_EQ(pareto_smooth(normal_log_ratios(1, 1.1, 1000, 1)).tail_length, 95u);    // ceil(94.87)
  EXPECT_EQ(pareto_smooth(normal_log_ratios(1, 1.1, 10000, 1)).tail_length, 300u);  // 3 sqrt(S)
}

TEST(ParetoSmoothing, QEqualToPGivesNoTail) {
  // The same density up to its constant: every ratio is the same number (to rounding).
  const std::vector<double> r = normal_log_ratios(1, 1, 1000, 2);
  const ParetoSmoothed w = pareto_smooth(r);
  EXPECT_EQ(w.k_hat, -std::numeric_limits<double>::infinity());
  EXPECT_LT(w.k_hat, pareto_k_threshold(r.size()));
  EXPECT_EQ(w.log_weights, r);
}

TEST(ParetoSmoothing, QWiderThanPGivesBoundedWeightsAndSmallK) {
  // q = N(0, 1.2^2) covers p = N(0, 1): p/q = c exp(-0.153 x^2) is bounded, and near its maximum
  // P(w > w_max - t) ~ t^(1/2), a generalized Pareto tail with k = -2. Even with the prior's pull to
  // 0.5 and a tail of 190 draws, k-hat stays far below 0.
  for (std::uint64_t seed : {3u, 4u, 5u}) {
    const ParetoSmoothed w = pareto_smooth(normal_log_ratios(1.2, 1, 4000, seed));
    EXPECT_LT(w.k_hat, 0) << "seed " << seed;
  }
}

TEST(ParetoSmoothing, SmoothedWeightsKeepTheOrderAndTheMaximum) {
  const std::vector<double> r = normal_log_ratios(1, 1.5, 2000, 6);  // q narrower than p: a heavy tail
  const ParetoSmoothed w = pareto_smooth(r);
  ASSERT_TRUE(std::isfinite(w.k_hat));
  const double largest = *std::max_element(r.begin(), r.end());
  std::vector<std::size_t> order(r.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return r[a] < r[b]; });
  std::size_t changed = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_LE(w.log_weights[i], largest);
    changed += w.log_weights[i] != r[i];
    if (i > 0) {
      EXPECT_LE(w.log_weights[order[i - 1]], w.log_weights[order[i]] + 1e-12) << "rank " << i;
    }
  }
  EXPECT_GT(changed, 0u);
  EXPECT_LE(changed, w.tail_length);  // only the tail is replaced
}

TEST(ParetoSmoothing, TooFewDrawsGiveNoK) {
  // 20 draws: a tail of 0.2 S = 4 draws, below the 5 a fit needs; 21 draws: ceil(4.2) = 5.
  const ParetoSmoothed w = pareto_smooth(normal_log_ratios(1, 1.5, 20, 7));
  EXPECT_TRUE(std::isnan(w.k_hat));
  EXPECT_EQ(w.log_weights, normal_log_ratios(1, 1.5, 20, 7));
  EXPECT_TRUE(std::isfinite(pareto_smooth(normal_log_ratios(1, 1.5, 21, 7)).k_hat));
}

TEST(ParetoSmoothing, NoWeightAnywhereGivesNoK) {
  const double minus_inf = -std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(pareto_smooth(std::vector<double>(100, minus_inf)).k_hat));
}

TEST(ParetoSmoothing, ThresholdFollowsThePaper) {
  EXPECT_NEAR(pareto_k_threshold(100), 0.5, 1e-12);  // 1 - 1/2
  EXPECT_NEAR(pareto_k_threshold(1000), 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(pareto_k_threshold(100000), 0.7);
}

TEST(ParetoSmoothing, BadInputIsNamed) {
  EXPECT_ERROR(pareto_smooth({0.0, std::nan(""), 1.0}), "log ratio 1 is nan");
  EXPECT_ERROR(pareto_smooth({0.0, std::numeric_limits<double>::infinity()}), "log ratio 1 is inf");
  EXPECT_ERROR(fit_generalized_pareto({0.5}), "at least 2 exceedances");
  EXPECT_ERROR(fit_generalized_pareto({0.5, 0.1}), "sorted ascending");
  EXPECT_ERROR(fit_generalized_pareto({-1.0, 0.1}), "non-negative");
  EXPECT_ERROR(fit_generalized_pareto({0.0, 0.0}), "all exceedances are 0");
}

}  // namespace
}  // namespace variate::inference
