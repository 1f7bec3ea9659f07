// `variate sample --predictive --log-lik`: the posterior predictive and pointwise log-likelihood
// columns after the parameters, as Stan users write y_rep and log_lik in generated quantities.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

using variate::testing::CliOutcome;
using variate::testing::run_cli;
using variate::testing::ScratchDir;

// The eight schools' data (src/models/builtin_data.cpp).
const std::vector<double> kEffects = {28, 8, -3, 7, -1, 1, 18, 12};
const std::vector<double> kStdErrors = {15, 10, 16, 11, 9, 11, 10, 18};

std::string column(const char* site, int i) { return std::string(site) + "." + std::to_string(i); }

TEST(PredictiveCli, EightSchoolsWritesYRepAndLogLikAfterTheGeneratedQuantities) {
  const ScratchDir dir("cli_predictive");
  const CliOutcome r = run_cli(
      "sample --model eight-schools --predictive --log-lik --chains 2 --warmup 150 "
      "--draws 200 --seed 3 --output " +
      dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = variate::data::read_stan_csv(dir / "eight-schools-1.csv");
  // sampler 7, mu, tau, theta_tilde 8, theta 8, y_rep 8, log_lik 8
  ASSERT_EQ(csv.columns.size(), 7u + 2 + 8 + 8 + 8 + 8);
  EXPECT_EQ(csv.columns[25], "y_rep.1");
  EXPECT_EQ(csv.columns[33], "log_lik.1");
  EXPECT_EQ(csv.columns.back(), "log_lik.8");

  double sum = 0, sum_sq = 0, n = 0;
  for (int i = 1; i <= 8; ++i) {
    const auto theta = csv.column(column("theta", i)), y_rep = csv.column(column("y_rep", i)),
               log_lik = csv.column(column("log_lik", i));
    const double y = kEffects[std::size_t(i - 1)], sigma = kStdErrors[std::size_t(i - 1)];
    for (std::size_t d = 0; d < theta.size(); ++d) {
      const double z = (y - theta[d]) / sigma;  // log N(y | theta, sigma) at the draw's own theta
      EXPECT_NEAR(log_lik[d], -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * std::numbers::pi), 1e-9);
      const double e = (y_rep[d] - theta[d]) / sigma;  // N(0, 1) given the draw
      sum += e, sum_sq += e * e, n += 1;
    }
  }
  // 1600 standardized residuals: mean within 5 / sqrt(n) of 0, variance within 5 sqrt(2 / n) of 1.
  EXPECT_NEAR(sum / n, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(sum_sq / n - (sum / n) * (sum / n), 1.0, 5 * std::sqrt(2 / n));
  // Summarized with the rest.
  const std::string summary = variate::testing::read_text(dir / "summary.csv");
  EXPECT_NE(summary.find("\nlog_lik.8,"), std::string::npos) << summary.substr(0, 300);
}

TEST(PredictiveCli, LogLikOfBetaBernoulliAndItsBroadcastDataRefusePredictive) {
  const ScratchDir dir("cli_log_lik");
  const CliOutcome r = run_cli("sample --model beta-bernoulli --log-lik --chains 1 --warmup 100 --draws 50 --output " +
                               dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = variate::data::read_stan_csv(dir / "beta-bernoulli-1.csv");
  EXPECT_EQ(csv.columns.back(), "log_lik.10");
  const std::vector<double> y = {0, 1, 0, 0, 0, 0, 0, 0, 0, 1};
  const auto theta = csv.column("theta");
  for (int i = 1; i <= 10; ++i) {
    const auto log_lik = csv.column(column("log_lik", i));
    for (std::size_t d = 0; d < theta.size(); ++d)
      EXPECT_NEAR(log_lik[d], y[std::size_t(i - 1)] ? std::log(theta[d]) : std::log1p(-theta[d]), 1e-12);
  }
  // Its Bernoulli has one probability broadcast against the ten outcomes: one draw would stand for
  // all ten, so --predictive says so before sampling.
  const CliOutcome p = run_cli("sample --model beta-bernoulli --predictive --output " + (dir / "never"));
  EXPECT_EQ(p.exit_code, 1) << p.output;
  EXPECT_NE(p.output.find("site 'y': a predictive draw has shape [1] but the data have shape [10]"), std::string::npos)
      << p.output;
  const CliOutcome devices = run_cli("sample --model logistic --log-lik --devices 2 --output " + (dir / "never"));
  EXPECT_EQ(devices.exit_code, 1) << devices.output;
  EXPECT_NE(devices.output.find("not supported with --devices 2"), std::string::npos) << devices.output;
}

}  // namespace
