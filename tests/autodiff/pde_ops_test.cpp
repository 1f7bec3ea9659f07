// The reaction-diffusion solve (autodiff/pde_ops.hpp) on a short horizon and a small grid: the
// exact gradient against central differences, RAD's gradient unbiased by Monte Carlo z-scores
// (Bonferroni-bounded over the 7 components), keep fraction 1 exact, and the tape's bytes.
#include "variate/autodiff/pde_ops.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "variate/autodiff/rad.hpp"
#include "variate/autodiff/tape_bytes.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/inference/diagnostics.hpp"

namespace variate {
namespace {

// 9 x 9 points (h = 1/8), so D dt / h^2 = 1/16 keeps FTCS stable; 64 steps to t = 1/4.
const ReactionDiffusionProblem small{.grid = 9, .diffusion = 0.25, .dt = 1.0 / 256.0, .steps = 64};

Tensor theta0() { return Tensor::from(std::vector<double>{4.932, 0.3, -0.2, 0.5, -0.4, 0.25, 0.6}); }

std::vector<double> gradient(const Tensor& theta, const autodiff::RadConfig& config) {
  const autodiff::RadScope rad(config);
  return grad([](const Tensor& t) { return reaction_diffusion_loss(t, small); }, theta).to_vector<double>();
}

std::vector<double> exact_gradient(const Tensor& theta) {
  return grad([](const Tensor& t) { return reaction_diffusion_loss(t, small); }, theta).to_vector<double>();
}

TEST(ReactionDiffusion, ExactGradientMatchesCentralDifferences) {
  const Tensor theta = theta0();
  const std::vector<double> g = exact_gradient(theta);
  const std::vector<double> t0 = theta.to_vector<double>();
  for (std::size_t i = 0; i < t0.size(); ++i) {
    const double eps = 1e-5;
    std::vector<double> up = t0, down = t0;
    up[i] += eps;
    down[i] -= eps;
    const double fd = (reaction_diffusion_loss(Tensor::from(up), small).item() -
                       reaction_diffusion_loss(Tensor::from(down), small).item()) /
                      (2 * eps);
    EXPECT_NEAR(g[i], fd, 1e-7 * std::max(1.0, std::abs(fd))) << "theta[" << i << "]";
  }
}

TEST(ReactionDiffusion, KeepFractionOneIsExact) {
  const Tensor theta = theta0();
  EXPECT_EQ(gradient(theta, {.keep_fraction = 1.0, .key = {1, 2}}), exact_gradient(theta));
}

TEST(ReactionDiffusion, TapeSavesEveryStateExactlyOrTheirSketches) {
  const Tensor theta = theta0();
  const std::size_t states = std::size_t(small.steps + 1), cells = 81, theta_bytes = 7 * 8;
  exact_gradient(theta);
  EXPECT_EQ(autodiff::last_sweep_saved_bytes(), states * cells * 8 + theta_bytes);
  gradient(theta, {.keep_fraction = 0.1, .key = {1, 2}});
  const auto k = std::size_t(autodiff::rad_kept(0.1, 49));  // of the 7 x 7 interior cells
  EXPECT_EQ(k, 5u);
  EXPECT_EQ(autodiff::last_sweep_saved_bytes(), states * k * 8 + theta_bytes);
  EXPECT_EQ(autodiff::last_sweep_saved_bytes("reaction_diffusion_loss"), states * k * 8 + theta_bytes);
}

TEST(ReactionDiffusion, SketchedGradientIsAFunctionOfTheKey) {
  const Tensor theta = theta0();
  const autodiff::RadConfig config{.keep_fraction = 0.1, .key = {7, 8}};
  EXPECT_EQ(gradient(theta, config), gradient(theta, config));
  EXPECT_NE(gradient(theta, config), gradient(theta, {.keep_fraction = 0.1, .key = {7, 9}}));
}

TEST(ReactionDiffusion, SketchedGradientIsUnbiased) {
  const Tensor theta = theta0();
  const std::vector<double> exact = exact_gradient(theta);
  // The 7 components and their projections on 3 fixed directions, each mean's z-score against
  // exact below the Bonferroni bound for 10 tests at a 1e-3 family-wise level.
  const std::vector<std::vector<double>> directions = {
      {1, 1, 1, 1, 1, 1, 1}, {0.3, -1, 0.7, 0.2, -0.5, 1, -0.8}, {-0.6, 0.4, 1, -1, 0.9, -0.1, 0.5}};
  std::vector<std::function<double(const std::vector<double>&)>> statistics;
  for (std::size_t i = 0; i < exact.size(); ++i)
    statistics.emplace_back([i](const std::vector<double>& g) { return g[i]; });
  for (const auto& u : directions)
    statistics.emplace_back(
        [&u](const std::vector<double>& g) { return std::inner_product(g.begin(), g.end(), u.begin(), 0.0); });
  const double bound = inference::normal_quantile(1 - 1e-3 / double(statistics.size()) / 2);  // two-sided
  for (const auto mode : {autodiff::RadMode::with_replacement, autodiff::RadMode::without_replacement}) {
    constexpr int draws = 4000;
    std::vector<double> sum(statistics.size(), 0.0), sum_sq(statistics.size(), 0.0);
    for (int d = 0; d < draws; ++d) {
      const std::vector<double> g =
          gradient(theta, {.keep_fraction = 0.02, .mode = mode, .key = {std::uint32_t(d), 31}});
      for (std::size_t i = 0; i < statistics.size(); ++i) {
        const double v = statistics[i](g);
        sum[i] += v;
        sum_sq[i] += v * v;
      }
    }
    for (std::size_t i = 0; i < statistics.size(); ++i) {
      const double mean = sum[i] / draws, var = (sum_sq[i] / draws - mean * mean) * draws / (draws - 1);
      ASSERT_GT(var, 0.0) << "statistic " << i << " is not random";
      const double want = statistics[i](exact), z = (mean - want) / std::sqrt(var / draws);
      EXPECT_LT(std::abs(z), bound) << "statistic " << i << ", mode " << int(mode) << ": mean " << mean << " vs exact "
                                    << want;
    }
  }
}

TEST(ReactionDiffusion, RejectsSharedChoicesAndProjections) {
  const Tensor theta = theta0();
  EXPECT_THROW(gradient(theta, {.keep_fraction = 0.1, .sharing = autodiff::RadSharing::shared}), std::exception);
  EXPECT_THROW(gradient(theta, {.keep_fraction = 0.1, .mode = autodiff::RadMode::projection}), std::exception);
}

}  // namespace
}  // namespace variate
