// End-to-end tests of `variate vi` and `variate optimize` on the Beta-Bernoulli model (CmdStan's
// bernoulli example: theta ~ Beta(1, 1), 2 successes in 10 trials), whose posterior Beta(3, 9) is
// known in closed form: the files they write, what they recover, and bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

using Outcome = variate::testing::CliOutcome;
using variate::testing::read_text;
Outcome run(const std::string& args) { return variate::testing::run_cli(args); }

class TempDir : public variate::testing::ScratchDir {
 public:
  explicit TempDir(const std::string& name) : ScratchDir("cli_" + name) {}
};

double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

// E[f(m + s e)] for e ~ N(0, 1), by the trapezoid rule on [-12, 12] (exact to rounding for the
// smooth, bounded integrands here).
template <class F>
double gaussian_mean(double m, double s, F f) {
  constexpr double h = 1e-3;
  double total = 0;
  for (double e = -12; e <= 12; e += h) total += std::exp(-0.5 * e * e) * f(m + s * e);
  return total * h / std::sqrt(2 * M_PI);
}

// The Gaussian q = N(m, s^2) on z = logit(theta) that maximizes the ELBO of the Beta(3, 9)
// posterior, whose density in z is proportional to sigmoid(z)^3 sigmoid(-z)^9 (the logit's Jacobian
// included). d/dm ELBO = E[3 - 12 sigmoid(z)] = 0 gives E_q[theta] = 1/4 (the exact posterior mean);
// d/ds ELBO = 0 gives, by Stein's lemma, 12 s^2 E_q[theta (1 - theta)] = 1. Solved by alternating
// the two conditions (m by bisection) until they hold to 1e-12.
struct OptimalQ {
  double m = 0, s = 1;
};
OptimalQ optimal_q() {
  OptimalQ q;
  for (int iteration = 0; iteration < 100; ++iteration) {
    double lo = -10, hi = 10;
    while (hi - lo > 1e-13) {
      const double mid = 0.5 * (lo + hi);
      (gaussian_mean(mid, q.s, sigmoid) < 0.25 ? lo : hi) = mid;
    }
    q.m = 0.5 * (lo + hi);
    const double s = 1 / std::sqrt(12 * gaussian_mean(q.m, q.s, [](double z) { return sigmoid(z) * sigmoid(-z); }));
    if (std::abs(s - q.s) < 1e-12) break;
    q.s = s;
  }
  return q;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

double sd_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size() - 1));
}

TEST(ViCli, RecoversTheBestGaussianApproximationOfAConjugatePosterior) {
  const TempDir dir("vi_bernoulli");
  const std::string file = dir / "bernoulli-vi.csv";
  constexpr int kDraws = 4000;
  const Outcome r =
      run("vi --model beta-bernoulli --particles 8 --draws " + std::to_string(kDraws) + " --output " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  const variate::data::StanCsv csv = variate::data::read_stan_csv(file);
  ASSERT_EQ(csv.columns, (std::vector<std::string>{"lp__", "log_p__", "log_g__", "theta"}));
  ASSERT_EQ(csv.draws.size(), std::size_t(kDraws + 1)) << "q's mean, then the draws";
  EXPECT_EQ(*csv.config_value("method"), "variational");
  EXPECT_EQ(*csv.config_value("algorithm"), "meanfield");
  EXPECT_EQ(csv.draws[0][0], 0.0);  // the mean row: lp__, log_p__ and log_g__ are 0, as CmdStan writes
  EXPECT_EQ(csv.draws[0][1], 0.0);
  EXPECT_EQ(csv.draws[0][2], 0.0);
  std::vector<double> theta;
  for (std::size_t i = 1; i < csv.draws.size(); ++i) {
    EXPECT_EQ(csv.draws[i][0], 0.0);
    EXPECT_LE(csv.draws[i][2], 0.0) << "log_g__ = -eps^2 / 2";
    theta.push_back(csv.draws[i][3]);
  }

  // ADVI's target is the best Gaussian on the logit scale, not Beta(3, 9) itself: its theta has the
  // posterior's mean 1/4 exactly, and an sd of 0.1226 against the posterior's sqrt(27 / 1872) =
  // 0.1201 (the approximation bias, 0.0025). The draws' mean and sd differ from q's by the draws'
  // Monte Carlo error, sd / sqrt(S) and about sd / sqrt(2 S) (theta is close to normal here), and
  // by the fit's own noise (stochastic gradients): over 20 seeds the draws' mean varied with an sd of
  // 0.0034 and their sd by 0.0020, so beyond the Monte Carlo error the fit adds 0.0028 and 0.0015,
  // and theta at q's mean varied by 0.0027. 4.5 of the combined sd is a false-failure rate near 1e-5
  // for each check.
  const OptimalQ q = optimal_q();
  const double q_mean = gaussian_mean(q.m, q.s, sigmoid);
  const double q_sd =
      std::sqrt(gaussian_mean(q.m, q.s, [](double z) { return sigmoid(z) * sigmoid(z); }) - q_mean * q_mean);
  EXPECT_NEAR(q_mean, 0.25, 1e-9);
  EXPECT_NEAR(q_sd - std::sqrt(27.0 / 1872.0), 0.0025, 2e-4);
  const double mc_error = q_sd / std::sqrt(double(kDraws));
  EXPECT_NEAR(mean_of(theta), q_mean, 4.5 * std::hypot(mc_error, 0.0028));
  EXPECT_NEAR(sd_of(theta), q_sd, 4.5 * std::hypot(mc_error / std::sqrt(2.0), 0.0015));
  EXPECT_NEAR(csv.draws[0][3], sigmoid(q.m), 4.5 * 0.0027) << "the mean row is theta at q's mean";

  // The printed summary is sample's table. k-hat is printed with its meaning: here the ratios p/q
  // are heavy-tailed although q fits the bulk well, since log p(z) falls only linearly in the tails
  // of z = logit(theta) (as 3 z and -9 z) and log q quadratically: p/q grows like exp(eps^2 / 2)
  // for the draw's standard normal eps, whose tail has k = 1. Whatever the draws, k-hat is large.
  EXPECT_NE(r.output.find("summary of the main parameters (4000 draws of q)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ESS_bulk"), std::string::npos) << r.output;
  const auto k_at = r.output.find("largest of 4000): ");
  ASSERT_NE(k_at, std::string::npos) << r.output;
  EXPECT_GT(std::stod(r.output.substr(k_at + 18)), 0.7) << r.output;
  EXPECT_NE(r.output.find("unreliable: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("steps 1801-2000: mean ELBO"), std::string::npos) << r.output;

  const std::string elbo = read_text(dir / "bernoulli-vi-elbo.csv");
  EXPECT_EQ(elbo.rfind("step,elbo\n1,", 0), 0u) << elbo.substr(0, 100);
  EXPECT_EQ(std::count(elbo.begin(), elbo.end(), '\n'), 2001) << "a header and every step";
  EXPECT_NE(read_text(dir / "bernoulli-vi-summary.csv").find("\ntheta,"), std::string::npos);
}

TEST(ViCli, FullRankOnAModelWithGeneratedQuantities) {
  const TempDir dir("vi_schools");
  const std::string file = dir / "schools.csv";
  const Outcome r = run("vi --model eight-schools --family fullrank --steps 300 --draws 200 --seed 3 --output " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const variate::data::StanCsv csv = variate::data::read_stan_csv(file);
  ASSERT_EQ(csv.columns.size(), 3u + 10u + 8u);
  EXPECT_EQ(csv.columns[3], "mu");
  EXPECT_EQ(csv.columns[13], "theta.1");  // generated quantities after the parameters, as sample
  EXPECT_EQ(*csv.config_value("algorithm"), "fullrank");
  ASSERT_EQ(csv.draws.size(), 201u);
  for (const auto& row : csv.draws)
    EXPECT_NEAR(row[13], row[3] + row[4] * row[5], 1e-9 * (1 + std::abs(row[13])));  // theta = mu + tau theta_tilde
  EXPECT_NE(r.output.find("full-rank Gaussian q on the 10-dimensional unconstrained space"), std::string::npos)
      << r.output;
}

TEST(OptimizeCli, FindsTheClosedFormModeWithAndWithoutTheJacobian) {
  const TempDir dir("optimize");
  // Without the Jacobian: the mode of Beta(3, 9), 2 / 10, where log p = 2 log 0.2 + 8 log 0.8
  // (CmdStan's optimize prints lp__ = -5.00402 for its bernoulli example).
  const Outcome plain = run("optimize --model beta-bernoulli --output " + (dir / "plain.csv"));
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const variate::data::StanCsv csv = variate::data::read_stan_csv(dir / "plain.csv");
  ASSERT_EQ(csv.columns, (std::vector<std::string>{"lp__", "theta"}));
  ASSERT_EQ(csv.draws.size(), 1u);
  EXPECT_NEAR(csv.draws[0][1], 0.2, 1e-6);
  EXPECT_NEAR(csv.draws[0][0], 2 * std::log(0.2) + 8 * std::log(0.8), 1e-10);
  EXPECT_EQ(*csv.config_value("method"), "optimize");
  EXPECT_EQ(*csv.config_value("jacobian"), "0");
  EXPECT_NE(plain.output.find("converged after"), std::string::npos) << plain.output;
  EXPECT_NE(plain.output.find("theta"), std::string::npos) << plain.output;

  // With it: the density of logit(theta) is proportional to theta^3 (1 - theta)^9, maximal at 3 / 12.
  const Outcome jacobian = run("optimize --model beta-bernoulli --jacobian --seed 7 --output " + (dir / "j.csv"));
  ASSERT_EQ(jacobian.exit_code, 0) << jacobian.output;
  const variate::data::StanCsv j = variate::data::read_stan_csv(dir / "j.csv");
  EXPECT_NEAR(j.draws[0][1], 0.25, 1e-6);
  EXPECT_NEAR(j.draws[0][0], 3 * std::log(0.25) + 9 * std::log(0.75), 1e-10);
  EXPECT_EQ(*j.config_value("jacobian"), "1");
}

TEST(OptimizeCli, TheIterationLimitIsAWarning) {
  const TempDir dir("optimize_limit");
  const Outcome r = run("optimize --model beta-bernoulli --iterations 1 --init 0 --output " + (dir / "m.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: the iteration limit stopped the search"), std::string::npos) << r.output;
}

TEST(ViOptimizeCli, BadOptionsGiveOneClearMessageAndNonZeroExit) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"vi --model no-such-model", "no-such-model"},
      {"vi --steps 0", "--steps"},
      {"vi --family tridiagonal", "tridiagonal"},
      {"vi --learning-rate -1", "--learning-rate"},
      {"vi --draws 0", "--draws"},
      {"optimize --model no-such-model", "no-such-model"},
      {"optimize --iterations 0", "--iterations"},
      {"optimize --init -2", "--init"},
      {"optimize --tol-grad x", "--tol-grad"},
  };
  for (const auto& [args, named] : cases) {
    const Outcome r = run(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.output.find("variate: error:"), std::string::npos) << args << ": " << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << ": " << r.output;
    EXPECT_EQ(r.output.find("output:"), std::string::npos) << "ran the job despite " << args;
  }
}

}  // namespace
