#include "variate/inference/kernel_density.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "support/expect_error.hpp"
#include "variate/inference/diagnostics.hpp"

namespace variate::inference {
namespace {

// n evenly spread standard normal quantiles: a sample with the normal's shape and no noise.
std::vector<double> normal_scores(int n) {
  std::vector<double> x;
  for (int i = 0; i < n; ++i) x.push_back(normal_quantile((i + 0.5) / n));
  return x;
}

double direct_density(const std::vector<double>& x, double t, double h) {
  double sum = 0;
  for (double v : x) sum += std::exp(-0.5 * (t - v) * (t - v) / (h * h));
  return sum / (double(x.size()) * h * std::sqrt(2 * std::numbers::pi));
}

TEST(KernelDensity, SilvermanBandwidthOfNormalScores) {
  const std::vector<double> x = normal_scores(1000);
  // sd and IQR / 1.34 are both close to 1 for normal scores: 0.9 min(...) 1000^(-1/5).
  EXPECT_NEAR(silverman_bandwidth(x), 0.9 * std::pow(1000.0, -0.2), 0.01);
  EXPECT_EQ(silverman_bandwidth({2, 2, 2}), 0.0);
}

TEST(KernelDensity, MatchesTheDirectSumWithinTheBinningError) {
  const std::vector<double> x = normal_scores(4000);
  const double h = silverman_bandwidth(x);
  const DensityGrid grid{.lo = -4, .hi = 4, .points = 41};
  const std::vector<double> y = kernel_density(x, grid, h);
  const double peak = direct_density(x, 0, h);
  for (int i = 0; i < grid.points; ++i) EXPECT_NEAR(y[std::size_t(i)], direct_density(x, grid.at(i), h), 1e-3 * peak);
  // and it estimates the normal density: at 0, 1/sqrt(2 pi) smoothed by h (variance 1 + h^2).
  EXPECT_NEAR(y[20], 1 / std::sqrt(2 * std::numbers::pi * (1 + h * h)), 2e-3);
}

TEST(KernelDensity, IntegratesToOne) {
  const std::vector<double> x = {0.0, 0.5, 3.0};
  const DensityGrid grid{.lo = -5, .hi = 8, .points = 1301};
  const std::vector<double> y = kernel_density(x, grid, 0.4);
  double integral = 0;
  for (double v : y) integral += v * 0.01;
  EXPECT_NEAR(integral, 1.0, 1e-3);
}

TEST(KernelDensity, RejectsBadInput) {
  const DensityGrid grid{.lo = 0, .hi = 1, .points = 10};
  EXPECT_ERROR(kernel_density({}, grid, 1), "no values");
  EXPECT_ERROR(kernel_density({1, INFINITY}, grid, 1), "value 1 is inf");
  EXPECT_ERROR(kernel_density({1, 2}, grid, 0), "bandwidth = 0");
  EXPECT_ERROR(kernel_density({1, 2}, {.lo = 1, .hi = 1, .points = 10}, 1), "expected at least 2 points and lo < hi");
  EXPECT_ERROR(silverman_bandwidth({1}), "1 values");
}

}  // namespace
}  // namespace variate::inference
