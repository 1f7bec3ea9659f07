// End-to-end tests of `variate pathfinder` and `variate sample --init pathfinder`: the files they
// write, what they recover on the Beta-Bernoulli model (posterior Beta(3, 9)), that Pathfinder uses
// fewer gradients than a warm-up, and bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

using Outcome = variate::testing::CliOutcome;
Outcome run(const std::string& args) { return variate::testing::run_cli(args); }

class TempDir : public variate::testing::ScratchDir {
 public:
  explicit TempDir(const std::string& name) : ScratchDir("cli_" + name) {}
};

// The integer printed after `label` in `text`.
long long number_after(const std::string& text, const std::string& label) {
  const auto at = text.find(label);
  EXPECT_NE(at, std::string::npos) << "no '" << label << "' in:\n" << text;
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + label.size()));
}

TEST(PathfinderCli, WritesResampledDrawsOfTheBetaBernoulliPosterior) {
  const TempDir dir("pathfinder_bernoulli");
  const std::string file = dir / "bernoulli-pathfinder.csv";
  const Outcome r = run("pathfinder --model beta-bernoulli --seed 4 --output " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const variate::data::StanCsv csv = variate::data::read_stan_csv(file);
  ASSERT_EQ(csv.columns, (std::vector<std::string>{"lp_approx__", "lp__", "theta"}));
  ASSERT_EQ(csv.draws.size(), 1000u);
  EXPECT_EQ(*csv.config_value("method"), "pathfinder");
  EXPECT_EQ(*csv.config_value("num_paths"), "4");
  double sum = 0;
  for (const auto& row : csv.draws) {
    const double theta = row[2];
    ASSERT_TRUE(theta > 0 && theta < 1) << theta;
    // lp__ is log p of the unconstrained draw: Beta(1, 1) prior, 2 of 10, and the logit's Jacobian.
    EXPECT_NEAR(row[1], 3 * std::log(theta) + 9 * std::log1p(-theta), 1e-8);
    EXPECT_TRUE(std::isfinite(row[0]));
    sum += theta;
  }
  // The posterior mean is 1/4 and its sd sqrt(27 / 1872) = 0.12. The resampled draws' mean has the
  // error of resampling 1000 draws and of the pool's importance weights: 5 sd sqrt(1/1000 + 1/1000)
  // allows the pool's ESS to fall to 1000 of its 4000 draws.
  EXPECT_NEAR(sum / 1000, 0.25, 5 * std::sqrt(27.0 / 1872.0) * std::sqrt(2.0 / 1000));
  EXPECT_NE(r.output.find("summary of the main parameters (1000 resampled Pathfinder draws)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Pareto k-hat of the pooled draws' importance ratios p/q (PSIS, 4000 draws): "),
            std::string::npos)
      << r.output;
  EXPECT_GT(number_after(r.output, "gradients: "), 0);
  EXPECT_NE(r.output.find("  path 4: "), std::string::npos) << r.output;
}

// Eight schools: Pathfinder's gradients against the warm-up's (target calls less the leapfrog
// steps after warm-up), and the chains it starts sample as usual.
TEST(PathfinderCli, InitializesSampleWithFewerGradientsThanAWarmup) {
  const TempDir dir("pathfinder_init");
  const Outcome r =
      run("sample --model eight-schools --init pathfinder --chains 2 --warmup 1000 --draws 100 "
          "--seed 2 --output " +
          (dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const long long pathfinder = number_after(r.output, "init: Pathfinder, 4 paths, ");
  const long long target_calls = number_after(r.output, "sampling; ");
  const long long after_warmup = number_after(r.output, "evaluations (target calls), ");
  EXPECT_LT(pathfinder, (target_calls - after_warmup) / 2) << "per chain, a 1000-iteration warm-up";
  for (int chain = 1; chain <= 2; ++chain) {
    const variate::data::StanCsv csv =
        variate::data::read_stan_csv(dir / ("out/eight-schools-" + std::to_string(chain) + ".csv"));
    ASSERT_EQ(csv.draws.size(), 100u);
    EXPECT_EQ(*csv.config_value("metric"), "fisher_low_rank_e");  // the default, with Pathfinder's starts
    for (const auto& row : csv.draws)
      for (double v : row) EXPECT_TRUE(std::isfinite(v));
  }
}

TEST(PathfinderCli, BadOptionsGiveOneClearMessageAndNonZeroExit) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pathfinder --model no-such-model", "no-such-model"},
      {"pathfinder --paths 0", "--paths"},
      {"pathfinder --draws 0", "--draws"},
      {"pathfinder --elbo-draws 0", "--elbo-draws"},
      {"pathfinder --init -1", "--init"},
      {"sample --init everywhere", "everywhere"},
      {"sample --init pathfinder --devices 2", "--init pathfinder needs the whole data set on one device"},
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
