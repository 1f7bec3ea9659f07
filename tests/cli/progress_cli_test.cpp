// End-to-end tests of `variate sample`'s progress display: --progress json (one object per line,
// for scripts), the plain lines written to a log, and --quiet.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

using variate::testing::run_cli;
using json = nlohmann::json;

constexpr int kChains = 2, kWarmup = 150, kDraws = 100;

// Eight schools with no warm-up at Stan's unadapted step size 1 diverges now and then, so the
// divergence counts are not trivially zero.
std::string eight_schools_run(const variate::testing::ScratchDir& dir, int warmup, const std::string& extra) {
  return "sample --model eight-schools --chains " + std::to_string(kChains) + " --warmup " + std::to_string(warmup) +
         " --draws " + std::to_string(kDraws) + " --seed 3 --output " + dir.path().string() + " " + extra;
}

std::vector<json> progress_objects(const std::string& output) {
  std::vector<json> objects;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("{\"chain\"", 0) == 0) objects.push_back(json::parse(line));
  return objects;
}

int divergences_in(const std::string& csv_path) {
  const auto csv = variate::data::read_stan_csv(csv_path);
  int divergent = 0;
  for (double d : csv.column("divergent__")) divergent += int(d);
  return divergent;
}

TEST(ProgressCli, JsonGivesEveryChainsStartPhaseChangeAndEndWithTheDivergencesOfItsFile) {
  const variate::testing::ScratchDir dir("progress_json");
  const auto r = run_cli(eight_schools_run(dir, kWarmup, "--progress json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::map<int, std::vector<json>> by_chain;
  for (const json& o : progress_objects(r.output)) by_chain[o.at("chain").get<int>()].push_back(o);
  ASSERT_EQ(by_chain.size(), std::size_t(kChains)) << r.output;
  for (const auto& [chain, objects] : by_chain) {
    SCOPED_TRACE("chain " + std::to_string(chain));
    EXPECT_EQ(objects.front().at("iteration"), 1);
    EXPECT_EQ(objects.front().at("phase"), "warmup");
    bool saw_sampling_start = false;
    std::int64_t previous = 0;
    for (const json& o : objects) {
      EXPECT_EQ(o.at("iterations"), kWarmup + kDraws);
      EXPECT_GT(o.at("iteration").get<std::int64_t>(), previous);
      previous = o.at("iteration").get<std::int64_t>();
      if (o.at("iteration") == kWarmup + 1) saw_sampling_start = o.at("phase") == "sampling";
      if (!o.at("iterations_per_second").is_null()) {
        EXPECT_GT(o.at("iterations_per_second").get<double>(), 0);
      }
      if (!o.at("seconds_left").is_null()) {
        EXPECT_GE(o.at("seconds_left").get<double>(), 0);
      }
      EXPECT_GE(o.at("elapsed_seconds").get<double>(), 0);
    }
    EXPECT_TRUE(saw_sampling_start);
    const json& last = objects.back();
    EXPECT_EQ(last.at("iteration"), kWarmup + kDraws);
    EXPECT_EQ(last.at("phase"), "done");
    EXPECT_EQ(last.at("seconds_left"), 0.0);
    const auto csv = dir.path() / ("eight-schools-" + std::to_string(chain) + ".csv");
    EXPECT_EQ(last.at("divergent").get<int>(), divergences_in(csv.string()));
  }
}

TEST(ProgressCli, DivergencesAfterNoWarmUpAreCountedAsInTheDrawFiles) {
  const variate::testing::ScratchDir dir("progress_divergent");
  const auto r = run_cli(eight_schools_run(dir, 0, "--progress json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int reported = 0, in_files = 0;
  for (const json& o : progress_objects(r.output))
    if (o.at("phase") == "done") reported += o.at("divergent").get<int>();
  for (int chain = 1; chain <= kChains; ++chain)
    in_files += divergences_in((dir.path() / ("eight-schools-" + std::to_string(chain) + ".csv")).string());
  EXPECT_GT(in_files, 0) << "the run meant to diverge did not: the test checks nothing";
  EXPECT_EQ(reported, in_files);
}

TEST(ProgressCli, ALogGetsPlainLinesAndQuietGetsNone) {
  const variate::testing::ScratchDir dir("progress_lines");
  // Standard error is a pipe here, so auto means plain lines: no escape sequences.
  const auto logged = run_cli(eight_schools_run(dir, kWarmup, ""));
  ASSERT_EQ(logged.exit_code, 0) << logged.output;
  EXPECT_EQ(logged.output.find('\x1b'), std::string::npos) << logged.output;
  for (int chain = 1; chain <= kChains; ++chain) {
    const std::string done = "chain " + std::to_string(chain) + ": 100% (250/250, done";
    EXPECT_NE(logged.output.find(done), std::string::npos) << logged.output;
    EXPECT_NE(logged.output.find("chain " + std::to_string(chain) + ":  50% (125/250, warmup"), std::string::npos);
  }
  EXPECT_NE(logged.output.find(" divergent"), std::string::npos);

  const auto quiet = run_cli(eight_schools_run(dir, kWarmup, "--overwrite --quiet"));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("chain 1:"), std::string::npos) << quiet.output;
  EXPECT_NE(quiet.output.find("sampler diagnostics"), std::string::npos) << quiet.output;
}

TEST(ProgressCli, AnUnknownStyleIsRefusedNamingTheChoices) {
  const auto r = run_cli("sample --model eight-schools --progress fancy");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--progress"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("json"), std::string::npos) << r.output;
}

}  // namespace
