// End-to-end tests of `variate sample --init laplace`: the chains run on the coordinates the
// Laplace approximation whitens and their draws come back on the model's own scale (the
// Beta-Bernoulli posterior, Beta(3, 9)), and what it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/inference/diagnostics.hpp"

namespace {

using Outcome = variate::testing::CliOutcome;
Outcome run(const std::string& args) { return variate::testing::run_cli(args); }

class TempDir : public variate::testing::ScratchDir {
 public:
  explicit TempDir(const std::string& name) : ScratchDir("cli_" + name) {}
};

// beta-bernoulli's posterior, Beta(3, 9), has mean 1/4: within 4 MCSE of the draws.
void expect_posterior_mean_a_quarter(const variate::inference::ChainDraws& theta) {
  double sum = 0;
  std::size_t count = 0;
  for (const auto& chain : theta) {
    for (double v : chain) sum += v;
    count += chain.size();
  }
  EXPECT_NEAR(sum / double(count), 0.25, 4 * variate::inference::mcse_mean(theta));
}

TEST(LaplaceInitCli, SamplesTheBetaBernoulliPosteriorOnItsOwnScale) {
  const TempDir dir("laplace_bernoulli");
  const Outcome r =
      run("sample --model beta-bernoulli --init laplace --chains 2 --warmup 200 --draws 1000 --seed 3 --output " +
          (dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // One unconstrained coordinate: its gradient at the mode and one step away.
  EXPECT_NE(r.output.find("; the Hessian from 2 gradients, factored"), std::string::npos) << r.output;
  variate::inference::ChainDraws theta;
  for (int chain = 1; chain <= 2; ++chain) {
    const variate::data::StanCsv csv =
        variate::data::read_stan_csv(dir / ("out/beta-bernoulli-" + std::to_string(chain) + ".csv"));
    ASSERT_EQ(csv.draws.size(), 1000u);
    EXPECT_EQ(*csv.config_value("initialization"), "laplace");
    const std::vector<double> t = csv.column("theta"), lp = csv.column("lp__");
    for (std::size_t s = 0; s < t.size(); ++s) {
      ASSERT_TRUE(t[s] > 0 && t[s] < 1) << t[s];
      // lp__ is the model's log density at the mapped draw: Beta(1, 1) prior, 2 of 10, and the
      // logit's Jacobian; so the draw written is the point the chain was at.
      EXPECT_NEAR(lp[s], 3 * std::log(t[s]) + 9 * std::log1p(-t[s]), 1e-6);
    }
    theta.push_back(t);
  }
  expect_posterior_mean_a_quarter(theta);
  EXPECT_LT(variate::inference::rhat(theta), 1.01);
}

// The run MNIST uses (docs/inference.md): the unit metric on the whitened coordinates, which the
// files call unit_e and do not adapt, and static HMC with a jittered quarter-period trajectory.
TEST(LaplaceInitCli, SamplesWithTheUnitMetricAndAJitteredTrajectory) {
  const TempDir dir("laplace_unit");
  const Outcome r =
      run("sample --model beta-bernoulli --init laplace --metric unit --sampler hmc --trajectory-length 1.57 "
          "--trajectory-jitter 0.2 --chains 2 --warmup 100 --draws 1000 --seed 4 --output " +
          (dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  variate::inference::ChainDraws theta;
  for (int chain = 1; chain <= 2; ++chain) {
    const variate::data::StanCsv csv =
        variate::data::read_stan_csv(dir / ("out/beta-bernoulli-" + std::to_string(chain) + ".csv"));
    EXPECT_EQ(*csv.config_value("metric"), "unit_e");
    EXPECT_EQ(csv.adaptation.inverse_metric, std::vector<double>{1.0});
    theta.push_back(csv.column("theta"));
  }
  expect_posterior_mean_a_quarter(theta);
}

// The held-out accuracy is scored from the run's kept positions, which must be mapped back too: on
// whitened coordinates the weights would be near 0 and the accuracy near chance (0.1).
TEST(LaplaceInitCli, ScoresHeldOutDigitsFromTheModelsOwnCoordinates) {
  const TempDir dir("laplace_digits");
  const Outcome r =
      run("sample --model digits-softmax --init laplace --chains 2 --warmup 100 --draws 100 --output " + (dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string label = "test accuracy: Bayesian model averaging ";
  const auto at = r.output.find(label);
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_GT(std::stod(r.output.substr(at + label.size())), 0.9) << r.output;
}

TEST(LaplaceInitCli, RefusesWhatItCannotDo) {
  const TempDir dir("laplace_refuses");
  const std::string out = " --output " + (dir / "never");
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"--checkpoint-every 10", "--checkpoint-every is not supported with --init laplace"},
           {"--devices 2", "--init laplace needs the whole data set on one device"},
           {"--init-from " + (dir / "elsewhere"), "--init laplace starts a run afresh"},
           {"--sampler chees --vectorize --chains 8 --metric diag", "--init laplace and --init-from are not supported"},
       }) {
    const Outcome r = run("sample --model eight-schools --init laplace " + args + out);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << args << ": " << r.output;
    EXPECT_EQ(r.output.find("init: finding the mode"), std::string::npos) << "ran the job despite " << args;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "never")) << "a rejected command must not start the job";
}

// The initialization can take minutes (MNIST: about six): an output folder the run could not write
// to is refused before it, and a fresh folder is not created until the chains start.
TEST(LaplaceInitCli, RefusesAnOccupiedOutputFolderBeforeTheInitialization) {
  const TempDir dir("laplace_occupied");
  const std::string out = " --output " + (dir / "out");
  ASSERT_EQ(run("sample --model beta-bernoulli --warmup 50 --draws 50" + out).exit_code, 0);
  for (const std::string init : {"laplace", "pathfinder"}) {
    const Outcome r = run("sample --model beta-bernoulli --warmup 50 --draws 50 --init " + init + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("already holds an earlier run's files"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("init: "), std::string::npos) << "initialized before refusing: " << r.output;
  }
}

}  // namespace
