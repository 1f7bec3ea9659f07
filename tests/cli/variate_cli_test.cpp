// End-to-end tests of the `variate gradient` job and bad command-line values (the main job,
// `variate sample`, is tested in sample_cli_test.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "support/run_cli.hpp"

namespace {

using Outcome = variate::testing::CliOutcome;
Outcome run(const std::string& args) { return variate::testing::run_cli(args); }

TEST(VariateCli, GradientJobFitsTheDigitsModel) {
  const Outcome r = run("gradient");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("test accuracy"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("us per gradient"), std::string::npos) << r.output;
  // A posterior mode on this data set classifies odd vs even digits well above chance.
  const auto at = r.output.find("result: test accuracy ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(std::stod(r.output.substr(at + 22)), 0.85) << r.output;
}

TEST(VariateCli, SinglePrecisionRuns) {
  const Outcome r = run("gradient --precision f32 --steps 20");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("precision f32"), std::string::npos) << r.output;
}

TEST(VariateCli, BadValuesGiveOneClearMessageAndNonZeroExit) {
  for (const char* args :
       {"gradient --precision f16", "gradient --steps 0", "gradient --steps abc", "gradient --threads -1",
        "no-such-command", "gradient --prior-scale -1", "gradient --prior-scale nan", "gradient --seed -1"}) {
    const Outcome r = run(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_FALSE(r.output.empty()) << args;
    EXPECT_EQ(r.output.find("test accuracy"), std::string::npos) << "ran the job despite " << args;
  }
  const Outcome r = run("gradient --precision f16");
  EXPECT_NE(r.output.find("f16"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("f64"), std::string::npos) << "the message should list the valid values: " << r.output;
}

}  // namespace
