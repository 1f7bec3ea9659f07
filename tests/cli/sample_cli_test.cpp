// End-to-end tests of `variate sample` and `variate summary`: the files they write, the models,
// bad options and data, and Ctrl-C. Runs are kept small (tens of draws) so the file takes well under
// a minute.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

namespace fs = std::filesystem;

using Outcome = variate::testing::CliOutcome;
using variate::testing::read_text;
Outcome run(const std::string& args) { return variate::testing::run_cli(args); }

// A fresh folder under the temporary directory, removed with everything in it.
// A folder per test, named "cli_<name>".
class TempDir : public variate::testing::ScratchDir {
 public:
  explicit TempDir(const std::string& name) : ScratchDir("cli_" + name) {}
};

int count_lines(const std::string& text) { return int(std::count(text.begin(), text.end(), '\n')); }

// The number after `label` in `text`, NaN if the label is missing.
double number_after(const std::string& text, const std::string& label) {
  const auto at = text.find(label);
  if (at == std::string::npos) return NAN;
  return std::stod(text.substr(at + label.size()));
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

const std::vector<std::string> kSamplerColumns = {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
                                                  "n_leapfrog__", "divergent__",   "energy__"};

TEST(SampleCli, DefaultJobWritesStanCsvSummaryAndHeldOutAccuracy) {
  const TempDir dir("default");
  // No subcommand: the options go to `sample`, the main job (digits-softmax).
  const Outcome r = run("--warmup 60 --draws 40 --chains 2 --max-depth 5 --output " + dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("digits-softmax"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("b.10"), std::string::npos) << "main parameters missing: " << r.output;
  EXPECT_NE(r.output.find("Chain 2:"), std::string::npos) << "sampler diagnostics missing: " << r.output;
  // Ten classes: chance is 0.1; even a short run classifies most held-out digits.
  const double bma = number_after(r.output, "test accuracy: Bayesian model averaging ");
  const double single = number_after(r.output, "mean over single draws ");
  EXPECT_GT(bma, 0.6) << r.output;
  EXPECT_GT(single, 0.5) << r.output;
  EXPECT_LE(single, 1.0) << r.output;
  EXPECT_NE(r.output.find("(80 draws"), std::string::npos) << r.output;

  for (int chain = 1; chain <= 2; ++chain) {
    const std::string path = dir / ("digits-softmax-" + std::to_string(chain) + ".csv");
    const variate::data::StanCsv csv = variate::data::read_stan_csv(path);
    ASSERT_EQ(csv.columns.size(), 7u + 640u + 10u) << path;
    for (std::size_t i = 0; i < kSamplerColumns.size(); ++i) EXPECT_EQ(csv.columns[i], kSamplerColumns[i]);
    // Stan's names in column-major order: the first index varies fastest.
    EXPECT_EQ(csv.columns[7], "W.1.1");
    EXPECT_EQ(csv.columns[8], "W.2.1");
    EXPECT_EQ(csv.columns[7 + 64], "W.1.2");
    EXPECT_EQ(csv.columns[7 + 639], "W.64.10");
    EXPECT_EQ(csv.columns[7 + 640], "b.1");
    EXPECT_EQ(csv.draws.size(), 40u) << "warm-up rows are not saved (save_warmup = 0)";
    EXPECT_TRUE(csv.warmup_draws.empty());
    ASSERT_TRUE(csv.has_adaptation);
    EXPECT_EQ(csv.adaptation.inverse_metric.size(), 650u);
    EXPECT_FALSE(csv.adaptation.dense);
    EXPECT_EQ(csv.adaptation.step_size, csv.column("stepsize__")[0]);
    ASSERT_NE(csv.config_value("num_samples"), nullptr);
    EXPECT_EQ(*csv.config_value("num_samples"), "40");
    EXPECT_EQ(*csv.config_value("num_warmup"), "60");
    EXPECT_EQ(*csv.config_value("save_warmup"), "0");
    EXPECT_EQ(*csv.config_value("engine"), "nuts");
    EXPECT_EQ(*csv.config_value("metric"), "fisher_low_rank_e");  // --metric auto's choice
    EXPECT_EQ(*csv.config_value("max_depth"), "5");
    EXPECT_EQ(*csv.config_value("id"), std::to_string(chain));
    for (double depth : csv.column("treedepth__")) EXPECT_LE(depth, 5);
    EXPECT_NE(read_text(path).find("seconds (Total)"), std::string::npos) << "no timing block in " << path;
  }

  const std::string summary = read_text(dir / "summary.csv");
  EXPECT_EQ(summary.rfind("name,Mean,MCSE,StdDev,MAD,5%,50%,95%,ESS_bulk,ESS_tail,R_hat\n", 0), 0u) << summary;
  EXPECT_EQ(count_lines(summary), 1 + 1 + 650) << "header, lp__ and every parameter";
  EXPECT_NE(summary.find("\nW.64.10,"), std::string::npos);
  const std::string json = read_text(dir / "summary.json");
  EXPECT_NE(json.find("\"lp__\""), std::string::npos) << json.substr(0, 200);
  EXPECT_NE(json.find("\"b.10\""), std::string::npos);
  EXPECT_NE(json.find("\"sampler\""), std::string::npos);
}

TEST(SampleCli, EveryOtherModelRunsAndRecoversWhatItShould) {
  const TempDir dir("models");
  // One folder per model: each run's summary.csv would be an earlier run's file to the next.
  const std::string common = " --warmup 150 --draws 100 --chains 2 --output " + dir.path().string() + "/";

  const Outcome bernoulli = run("sample --model beta-bernoulli" + common + "beta-bernoulli");
  ASSERT_EQ(bernoulli.exit_code, 0) << bernoulli.output;
  // 2 successes in 10 under a uniform prior: theta | y ~ Beta(3, 9), mean 0.25, sd 0.12; 200 draws
  // give a Monte Carlo error near 0.01, so 0.05 is a five-sigma bound.
  std::vector<double> theta;
  for (int c = 1; c <= 2; ++c) {
    const auto csv =
        variate::data::read_stan_csv(dir / ("beta-bernoulli/beta-bernoulli-" + std::to_string(c) + ".csv"));
    EXPECT_EQ(csv.columns.back(), "theta");
    const auto t = csv.column("theta");
    theta.insert(theta.end(), t.begin(), t.end());
  }
  EXPECT_EQ(theta.size(), 200u);
  EXPECT_NEAR(mean(theta), 0.25, 0.05);

  const Outcome schools = run("sample --model eight-schools" + common + "eight-schools");
  ASSERT_EQ(schools.exit_code, 0) << schools.output;
  const auto csv = variate::data::read_stan_csv(dir / "eight-schools/eight-schools-1.csv");
  EXPECT_EQ(csv.columns[7], "mu");
  EXPECT_EQ(csv.columns[8], "tau");
  EXPECT_EQ(csv.columns[9], "theta_tilde.1");
  EXPECT_EQ(csv.columns[17], "theta.1");  // the generated quantity follows the parameters
  EXPECT_EQ(csv.columns.size(), 7u + 10u + 8u);
  for (double tau : csv.column("tau")) EXPECT_GT(tau, 0) << "tau lives on (0, inf)";
  {  // computed per draw from the draw's own parameters
    const auto mu = csv.column("mu"), tau = csv.column("tau"), tilde = csv.column("theta_tilde.3"),
               theta = csv.column("theta.3");
    ASSERT_EQ(theta.size(), mu.size());
    for (std::size_t i = 0; i < theta.size(); ++i)
      EXPECT_NEAR(theta[i], mu[i] + tau[i] * tilde[i], 1e-12 * (1 + std::abs(mu[i]) + std::abs(tau[i] * tilde[i])));
  }
  EXPECT_NE(schools.output.find("theta_tilde.8"), std::string::npos) << schools.output;
  EXPECT_EQ(schools.output.find("test accuracy"), std::string::npos) << "not a classifier";

  const Outcome logistic = run("sample --model logistic" + common + "logistic");
  ASSERT_EQ(logistic.exit_code, 0) << logistic.output;
  EXPECT_GT(number_after(logistic.output, "test accuracy: Bayesian model averaging "), 0.75) << logistic.output;
  const auto lcsv = variate::data::read_stan_csv(dir / "logistic/logistic-2.csv");
  EXPECT_EQ(lcsv.columns[7], "alpha");
  EXPECT_EQ(lcsv.columns[8], "beta.1");
  EXPECT_EQ(lcsv.columns.back(), "beta.64");
}

TEST(SampleCli, VectorizedChainsBroadcastTheChainDimension) {
  const TempDir dir("vectorized");
  // One lockstep batch: W is (chains, 64, 10) inside the model. One thread keeps the run short on
  // a loaded machine.
  const Outcome r = run("sample --vectorize --threads 1 --chains 3 --warmup 30 --draws 20 --max-depth 4 --output " +
                        dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("vectorized"), std::string::npos) << r.output;
  EXPECT_GT(number_after(r.output, "test accuracy: Bayesian model averaging "), 0.5) << r.output;
  for (int c = 1; c <= 3; ++c) {
    const auto csv = variate::data::read_stan_csv(dir / ("digits-softmax-" + std::to_string(c) + ".csv"));
    EXPECT_EQ(csv.draws.size(), 20u);
    EXPECT_EQ(*csv.config_value("vectorized"), "1");
  }
  const Outcome schools =
      run("sample --model eight-schools --vectorize --metric dense --chains 2 --warmup 100 "
          "--draws 30 --output " +
          (dir / "eight-schools"));
  ASSERT_EQ(schools.exit_code, 0) << schools.output;
  const auto csv = variate::data::read_stan_csv(dir / "eight-schools/eight-schools-2.csv");
  EXPECT_TRUE(csv.adaptation.dense);
  EXPECT_EQ(csv.adaptation.inverse_metric.size(), 100u) << "a 10 x 10 dense inverse metric";
  EXPECT_EQ(*csv.config_value("metric"), "dense_e");
  const Outcome unit =
      run("sample --model eight-schools --metric unit --chains 1 --warmup 100 --draws 5 --output " + (dir / "unit"));
  ASSERT_EQ(unit.exit_code, 0) << unit.output;
  const auto unit_csv = variate::data::read_stan_csv(dir / "unit/eight-schools-1.csv");
  EXPECT_EQ(*unit_csv.config_value("metric"), "unit_e");
  EXPECT_EQ(unit_csv.adaptation.inverse_metric, std::vector<double>(10, 1.0)) << "the metric is not adapted";
}

TEST(SampleCli, DevicesSplitTheDataAndWriteTheUnshardedDraws) {
  const TempDir dir("devices");
  const Outcome r =
      run("sample --devices 2 --chains 2 --warmup 40 --draws 20 --max-depth 4 --output " + dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 devices (data split over them)"), std::string::npos) << r.output;
  EXPECT_GT(number_after(r.output, "test accuracy: Bayesian model averaging "), 0.5) << r.output;
  for (int c = 1; c <= 2; ++c) {
    const auto csv = variate::data::read_stan_csv(dir / ("digits-softmax-" + std::to_string(c) + ".csv"));
    EXPECT_EQ(csv.draws.size(), 20u);
    EXPECT_EQ(csv.columns.size(), kSamplerColumns.size() + 64 * 10 + 10);
    EXPECT_EQ(*csv.config_value("devices"), "2");
    EXPECT_EQ(*csv.config_value("metric"), "diag_e");  // --metric auto: no low-rank metric over devices
  }
  const Outcome bad = run("sample --devices 0 --output " + dir.path().string());
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("--devices"), std::string::npos) << bad.output;
}

// Matrix factorization with users sharded: the draws of the user biases are gathered from both
// devices into one file, and the report names the most and the least active user.
TEST(SampleCli, MovieLensUsersShardedOverDevices) {
  const std::string data = VARIATE_SOURCE_DIR "/../shared/data/movielens-100k";
  if (!fs::exists(data)) GTEST_SKIP() << "no MovieLens-100K files in " << data;
  const TempDir dir("movielens");
  const Outcome r = run("sample --model movielens --data " + data +
                        " --devices 2 --chains 1 --sampler hmc --leapfrog-steps 2 --warmup 6 --draws 4 --output " +
                        dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("recommendations: how often each unwatched movie was the top pick over 4 posterior draws"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the most active user (user 405, 737 movies watched)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the least active user"), std::string::npos) << r.output;
  const auto csv = variate::data::read_stan_csv(dir / "movielens-1.csv");
  EXPECT_EQ(csv.draws.size(), 4u);
  EXPECT_EQ(csv.columns.size(), 5u + 1682 + 943) << "the CmdStan static-HMC columns, b_movie and b_user";
  EXPECT_EQ(csv.columns.back(), "b_user.943");
  // Threaded chains on one device deliver draws to the report concurrently.
  const Outcome threaded = run(
      "sample --model movielens --data " + data +
      " --chains 2 --threads 2 --sampler hmc --leapfrog-steps 2 --warmup 4 --draws 3 --output " + (dir / "threaded"));
  ASSERT_EQ(threaded.exit_code, 0) << threaded.output;
  EXPECT_NE(threaded.output.find("top pick over 6 posterior draws"), std::string::npos) << threaded.output;
}

TEST(SampleCli, SinglePrecisionComputesTheLogDensityInF32) {
  const TempDir dir("f32");
  // The job evaluates the log density once and fails if it does not come out f32 (a prior or a
  // datum left in f64 would promote the whole density).
  for (const char* model : {"digits-softmax", "logistic", "eight-schools", "beta-bernoulli"}) {
    const Outcome r =
        run(std::string("sample --precision f32 --chains 1 --warmup 10 --draws 5 --max-depth 3 --model ") + model +
            " --output " + (dir / model));
    ASSERT_EQ(r.exit_code, 0) << model << ": " << r.output;
    EXPECT_NE(r.output.find("log density in f32"), std::string::npos) << model << ": " << r.output;
    const auto csv = variate::data::read_stan_csv(dir / (std::string(model) + "/" + model + "-1.csv"));
    EXPECT_EQ(*csv.config_value("precision"), "f32");
    EXPECT_EQ(csv.draws.size(), 5u);
  }
}

TEST(SampleCli, StaticHmcWritesItsEngine) {
  const TempDir dir("hmc");
  const Outcome r =
      run("sample --model beta-bernoulli --sampler hmc --leapfrog-steps 7 --chains 1 --warmup 50 "
          "--draws 20 --output " +
          dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = variate::data::read_stan_csv(dir / "beta-bernoulli-1.csv");
  EXPECT_EQ(*csv.config_value("engine"), "static");
  // CmdStan's static HMC columns: int_time__ = step size x steps, no tree depth or divergences.
  EXPECT_EQ(csv.columns,
            (std::vector<std::string>{"lp__", "accept_stat__", "stepsize__", "int_time__", "energy__", "theta"}));
  const auto steps = csv.column("stepsize__"), times = csv.column("int_time__");
  for (std::size_t i = 0; i < steps.size(); ++i) EXPECT_DOUBLE_EQ(times[i], 7 * steps[i]);
}

// With --leapfrog-steps 10 and jitter 0.4 every draw takes floor(10 u) steps, u in [0.6, 1.4): 6 to
// 13, whatever the step size; int_time__ is that count times the (fixed) step size.
TEST(SampleCli, StaticHmcWithAJitteredTrajectoryLength) {
  const TempDir dir("hmc_jitter");
  const Outcome r =
      run("sample --model beta-bernoulli --sampler hmc --leapfrog-steps 10 --trajectory-jitter 0.4 --chains 1 "
          "--warmup 50 --draws 200 --output " +
          dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = variate::data::read_stan_csv(dir / "beta-bernoulli-1.csv");
  EXPECT_EQ(*csv.config_value("int_time_jitter"), "0.4");
  const auto steps = csv.column("stepsize__"), times = csv.column("int_time__");
  std::set<long> counts;
  for (std::size_t i = 0; i < times.size(); ++i) counts.insert(std::lround(times[i] / steps[i]));
  EXPECT_EQ(*counts.begin(), 6);
  EXPECT_EQ(*counts.rbegin(), 13);
  EXPECT_EQ(counts.size(), 8u) << "200 draws cover each of the 8 counts (each misses with probability 1e-12)";
}

TEST(SampleCli, CheesRunsManyVectorizedChains) {
  const TempDir dir("chees");
  const Outcome r =
      run("sample --model eight-schools --sampler chees --vectorize --chains 64 --warmup 200 --draws 20 --output " +
          dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ChEES-HMC"), std::string::npos) << r.output;
  const auto first = variate::data::read_stan_csv(dir / "eight-schools-1.csv");
  const auto last = variate::data::read_stan_csv(dir / "eight-schools-64.csv");
  EXPECT_EQ(*first.config_value("engine"), "chees");
  EXPECT_EQ(*first.config_value("metric"), "diag_e");  // --metric auto: ChEES learns a diagonal
  EXPECT_EQ(std::vector<std::string>(first.columns.begin(), first.columns.begin() + 7), kSamplerColumns);
  // One step size and one trajectory per iteration for all chains; no tree.
  EXPECT_EQ(first.column("stepsize__"), last.column("stepsize__"));
  EXPECT_EQ(first.column("n_leapfrog__"), last.column("n_leapfrog__"));
  for (double depth : first.column("treedepth__")) EXPECT_EQ(depth, 0);
  EXPECT_EQ(first.column("mu").size(), 20u);
}

TEST(SampleCli, CheesRefusesWhatItCannotDo) {
  const TempDir dir("chees_refuses");
  const std::string out = " --output " + (dir / "never");
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"--chains 8", "needs --vectorize"},
           {"--vectorize --chains 1", "--chains of at least 2"},
           {"--vectorize --chains 8 --metric dense", "--metric dense is not supported"},
           {"--vectorize --chains 8 --metric fisher-diag", "--metric fisher-diag is not supported"},
           {"--vectorize --chains 8 --init pathfinder",
            "--init pathfinder, --init laplace and --init-from are not supported"},
           {"--vectorize --chains 8 --leapfrog-steps 5", "--leapfrog-steps applies to --sampler hmc only"},
       }) {
    const Outcome r = run("sample --model eight-schools --sampler chees " + args + out);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.output;
    EXPECT_EQ(count_lines(r.output), 1) << args << ": one message expected, got:\n" << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << args << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "never")) << "a rejected command must not start the job";
}

TEST(SampleCli, SummaryOfOurOwnOutput) {
  const TempDir dir("summary_ours");
  ASSERT_EQ(
      run("sample --model eight-schools --chains 2 --warmup 100 --draws 50 --output " + dir.path().string()).exit_code,
      0);
  const std::string csv_out = dir / "s.csv", json_out = dir / "s.json";
  const Outcome r = run("summary " + (dir / "eight-schools-1.csv") + " " + (dir / "eight-schools-2.csv") + " --csv " +
                        csv_out + " --json " + json_out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* text :
       {"2 chains, 50 draws each", "lp__", "accept_stat__", "mu", "theta_tilde.8", "R_hat", "Chain 2:"})
    EXPECT_NE(r.output.find(text), std::string::npos) << text << " missing from:\n" << r.output;
  const std::string table = read_text(csv_out);
  EXPECT_EQ(count_lines(table), 1 + 7 + 10 + 8) << table;  // header, sampler columns, parameters, theta
  EXPECT_NE(read_text(json_out).find("\"theta_tilde.8\""), std::string::npos);
  // The summary's mean of mu is the mean of the draws in both files.
  std::vector<double> mu;
  for (int c = 1; c <= 2; ++c) {
    const auto m = variate::data::read_stan_csv(dir / ("eight-schools-" + std::to_string(c) + ".csv")).column("mu");
    mu.insert(mu.end(), m.begin(), m.end());
  }
  EXPECT_NEAR(number_after(table, "\nmu,"), mean(mu), 1e-12 * (1 + std::abs(mean(mu))));
}

// Two chains of CmdStan's bernoulli example as CmdStan writes them (config with "(Default)" and
// group lines, the adaptation block, the timing block), cut to six draws each.
std::string cmdstan_chain(int id, const std::vector<std::array<double, 8>>& rows) {
  std::ostringstream out;
  out << R"(# stan_version_major = 2
# stan_version_minor = 32
# model = bernoulli_model
# method = sample (Default)
#   sample
#     num_samples = 6
#     num_warmup = 1000 (Default)
#     save_warmup = 0 (Default)
#     thin = 1 (Default)
#     adapt
#       engaged = 1 (Default)
#     algorithm = hmc (Default)
#       hmc
#         engine = nuts (Default)
#           nuts
#             max_depth = 10 (Default)
#         metric = diag_e (Default)
# id = )"
      << id << R"(
lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,theta
# Adaptation terminated
# Step size = 0.93
# Diagonal elements of inverse mass matrix:
# 0.52
)";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) out << (i ? "," : "") << r[i];
    out << '\n';
  }
  out << R"(#
#  Elapsed Time: 0.004 seconds (Warm-up)
#                0.012 seconds (Sampling)
#                0.016 seconds (Total)
#
)";
  return out.str();
}

TEST(SampleCli, SummaryReadsCmdStanFiles) {
  const TempDir dir("summary_cmdstan");
  const std::string a = dir.write("output_1.csv", cmdstan_chain(1, {{-7.1, 0.9, 0.93, 2, 3, 0, 7.5, 0.20},
                                                                    {-6.9, 1.0, 0.93, 10, 1023, 0, 7.2, 0.30},
                                                                    {-7.0, 0.8, 0.93, 1, 1, 0, 7.3, 0.25},
                                                                    {-7.6, 0.7, 0.93, 2, 3, 0, 8.1, 0.10},
                                                                    {-7.3, 0.95, 0.93, 1, 3, 0, 7.9, 0.40},
                                                                    {-7.2, 0.85, 0.93, 2, 3, 0, 7.4, 0.35}}));
  const std::string b = dir.write("output_2.csv", cmdstan_chain(2, {{-7.0, 0.9, 0.93, 2, 3, 0, 7.5, 0.15},
                                                                    {-6.8, 1.0, 0.93, 1, 1, 1, 7.2, 0.22},
                                                                    {-7.1, 0.8, 0.93, 1, 1, 0, 7.3, 0.30},
                                                                    {-7.4, 0.7, 0.93, 2, 3, 0, 8.0, 0.28},
                                                                    {-7.2, 0.95, 0.93, 1, 3, 0, 7.9, 0.18},
                                                                    {-7.0, 0.85, 0.93, 2, 3, 0, 7.4, 0.26}}));
  const std::string table = dir / "t.csv";
  const Outcome r = run("summary " + a + " " + b + " --csv " + table);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double expected = (0.20 + 0.30 + 0.25 + 0.10 + 0.40 + 0.35 + 0.15 + 0.22 + 0.30 + 0.28 + 0.18 + 0.26) / 12;
  EXPECT_NEAR(number_after(read_text(table), "\ntheta,"), expected, 1e-12);
  // The config's "max_depth = 10 (Default)" counts chain 1's draw at depth 10; chain 2 has one
  // divergence.
  EXPECT_NE(r.output.find("Chain 1: 0 divergent (0.0%), 1 at max tree depth"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Chain 2: 1 divergent"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step size 0.93"), std::string::npos) << r.output;
}

TEST(SampleCli, SummaryRejectsMismatchedAndMalformedFiles) {
  const TempDir dir("summary_bad");
  const std::string good = dir.write(
      "good.csv", cmdstan_chain(1, {{-7.1, 0.9, 0.93, 2, 3, 0, 7.5, 0.2}, {-7.0, 0.9, 0.93, 2, 3, 0, 7.5, 0.3}}));
  std::string other_text = cmdstan_chain(2, {{-7.1, 0.9, 0.93, 2, 3, 0, 7.5, 0.2}});
  other_text.replace(other_text.find(",theta\n"), 7, ",phi\n");
  const std::string other = dir.write("other.csv", other_text);
  Outcome r = run("summary " + good + " " + other);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("variate: error:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("other.csv"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'phi'"), std::string::npos) << "the message names the first differing column: " << r.output;

  std::string short_text = cmdstan_chain(1, {{-7.1, 0.9, 0.93, 2, 3, 0, 7.5, 0.2}});
  short_text += "-7.2,0.9,0.93,2,3,0,7.5\n";  // a row with a missing field
  r = run("summary " + dir.write("short.csv", short_text));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("short.csv"), std::string::npos) << r.output;

  r = run("summary " + (dir / "missing.csv"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("missing.csv"), std::string::npos) << r.output;
}

TEST(SampleCli, BadOptionValuesGiveOneMessageNamingTheOption) {
  const TempDir dir("bad_options");
  const std::string out = " --output " + (dir / "never");
  for (const auto& [args, option] : std::vector<std::pair<std::string, std::string>>{
           {"sample --chains 0", "--chains"},
           {"sample --draws 0", "--draws"},
           {"sample --warmup -1", "--warmup"},
           {"sample --sampler foo", "--sampler"},
           {"sample --metric x", "--metric"},
           {"sample --precision f16", "--precision"},
           {"sample --adapt-delta 1.5", "--adapt-delta"},
           {"sample --adapt-delta 0", "--adapt-delta"},
           {"sample --threads -1", "--threads"},
           {"sample --seed -1", "--seed"},
           {"sample --max-depth 0", "--max-depth"},
           {"sample --leapfrog-steps 5", "--leapfrog-steps applies to --sampler hmc only"},
           {"sample --trajectory-jitter 0.2", "apply to --sampler hmc only"},
           {"sample --trajectory-length 1.5", "apply to --sampler hmc only"},
           {"sample --sampler hmc --trajectory-length 0", "--trajectory-length"},
           {"sample --sampler hmc --trajectory-jitter 1", "--trajectory-jitter"},
           {"sample --sampler hmc --leapfrog-steps 5 --trajectory-length 2", "not both"},
           {"sample --model nope", "--model"},
           {"--chains abc", "--chains"},
       }) {
    const Outcome r = run(args + out);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.output;
    EXPECT_EQ(count_lines(r.output), 1) << args << ": one message expected, got:\n" << r.output;
    EXPECT_EQ(r.output.rfind("variate: error: ", 0), 0u) << args << ": " << r.output;
    EXPECT_NE(r.output.find(option), std::string::npos) << args << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "never")) << "a rejected command must not start the job";

  const std::string file = dir.write("plain-file", "x");
  const Outcome r = run("sample --model beta-bernoulli --output " + file + "/sub");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("output folder"), std::string::npos) << r.output;
}

TEST(SampleCli, BadDataFilesNameTheFileAndTheProblem) {
  const TempDir dir("bad_data");
  const std::string out = " --output " + (dir / "never");
  const std::string cols = dir.write("cols.csv", "0.1,0.2,0\n0.3,0.4,1\n0.5,1\n0.1,0.1,0\n0.2,0.2,1\n");
  const std::string nan = dir.write("nan.csv", "0.1,0.2,0\n0.3,nan,1\n0.5,0.1,1\n0.1,0.1,0\n0.2,0.2,1\n");
  const std::string labels = dir.write("labels.csv", "0.1,0.2,0\n0.3,0.4,2\n0.5,0.1,1\n0.1,0.1,0\n0.2,0.2,1\n");
  const std::string malformed = dir.write("malformed.json", R"({"J": 2, "y": [1, 2, "sigma": [1, 2]})");
  const std::string ragged = dir.write("sigma.json", R"({"J": 3, "y": [28, 8, -3], "sigma": [15, 10]})");
  const std::string no_y = dir.write("no_y.json", R"({"N": 3})");
  const std::string nan_json = dir.write("nan.json", R"({"N": 3, "y": [0, 1, "NaN"]})");
  const std::string schools_nan = dir.write("schools.csv", "y,sigma\n28,15\n8,nan\n");
  // MNIST's IDX files with no training image (the sampler drew from the prior).
  const auto be32 = [](std::uint32_t v) {
    return std::string{char(v >> 24), char(v >> 16 & 0xff), char(v >> 8 & 0xff), char(v & 0xff)};
  };
  const std::string no_train = dir / "no_train";
  fs::create_directory(no_train);
  dir.write("no_train/train-images-idx3-ubyte", be32(0x803) + be32(0) + be32(28) + be32(28));
  dir.write("no_train/train-labels-idx1-ubyte", be32(0x801) + be32(0));
  dir.write("no_train/t10k-images-idx3-ubyte", be32(0x803) + be32(1) + be32(28) + be32(28) + std::string(784, '\0'));
  dir.write("no_train/t10k-labels-idx1-ubyte", be32(0x801) + be32(1) + std::string(1, '\0'));
  // -2^63 overflowed when shifted to a 0-based label.
  const std::string far =
      dir.write("far.json", R"({"X": [[0.1], [0.2], [0.3], [0.4], [0.5]], "y": [1, 2, 1, 2, -9223372036854775808]})");
  for (const auto& [args, expected] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"--model logistic --data " + (dir / "none.csv"), {"none.csv"}},
           {"--model logistic --data " + cols, {"cols.csv", "columns"}},
           {"--model logistic --data " + nan, {"nan.csv", "nan"}},
           {"--model logistic --data " + labels, {"labels.csv", "0 or 1"}},
           {"--model digits-softmax --data " + cols, {"cols.csv", "columns"}},
           {"--model digits-softmax --data " + far, {"far.json", "label -9.22337e+18", "out of range"}},
           {"--model mnist-softmax --data " + no_train, {"no_train", "holds 0 training and 1 test images"}},
           {"--model eight-schools --data " + malformed, {"malformed.json"}},
           {"--model eight-schools --data " + ragged, {"sigma.json", "'sigma'"}},
           {"--model eight-schools --data " + schools_nan, {"schools.csv", "sigma"}},
           {"--model beta-bernoulli --data " + no_y, {"no_y.json", "'y'"}},
           {"--model beta-bernoulli --data " + nan_json, {"nan.json", "NaN"}},
       }) {
    const Outcome r = run("sample " + args + out);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.output;
    EXPECT_EQ(count_lines(r.output), 1) << args << ": one message expected, got:\n" << r.output;
    EXPECT_EQ(r.output.rfind("variate: error: ", 0), 0u) << args << ": " << r.output;
    for (const std::string& text : expected)
      EXPECT_NE(r.output.find(text), std::string::npos) << args << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "never")) << "bad data must not leave an output folder behind";

  // A good data file is used: three schools give three theta_tilde columns.
  const std::string three = dir.write("three.json", R"({"J": 3, "y": [28, 8, -3], "sigma": [15, 10, 16]})");
  const Outcome r = run("sample --model eight-schools --chains 1 --warmup 50 --draws 10 --data " + three +
                        " --output " + (dir / "ok"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(variate::data::read_stan_csv(dir / "ok/eight-schools-1.csv").columns.back(), "theta.3");
}

TEST(SampleCli, CtrlCKeepsTheDrawsWrittenSoFar) {
  const TempDir dir("sigint");
  const std::string log = dir / "log.txt", output = dir / "out";
  const auto interrupted =
      variate::testing::interrupt_after_rows({"sample", "--model", "eight-schools", "--chains", "2", "--threads", "2",
                                              "--warmup", "50", "--draws", "1000000", "--output", output},
                                             log, output + "/eight-schools-1.csv", 50);
  ASSERT_TRUE(interrupted.stopped) << "the run did not stop within 20 s of SIGINT";
  const std::string& text = interrupted.log;
  EXPECT_EQ(interrupted.exit_code, 130) << text;
  EXPECT_NE(text.find("interrupted: kept"), std::string::npos) << text;
  const auto at = text.find("interrupted: kept");
  const std::string message = at == std::string::npos ? "" : text.substr(at, text.find('\n', at) - at);
  for (int c = 1; c <= 2; ++c) {
    const std::string path = output + "/eight-schools-" + std::to_string(c) + ".csv";
    const variate::data::StanCsv csv = variate::data::read_stan_csv(path);  // every row parses
    if (c == 1) {
      EXPECT_TRUE(csv.has_adaptation) << path;
      EXPECT_GE(csv.draws.size(), 50u) << path;
    }
    EXPECT_LT(csv.draws.size(), 1000000u) << path;
    for (double lp : csv.column("lp__")) EXPECT_TRUE(std::isfinite(lp)) << path;
    EXPECT_NE(message.find(std::to_string(csv.draws.size())), std::string::npos)
        << "the message counts the draws: " << message;
  }
  // The interrupted files summarize.
  const Outcome r = run("summary " + output + "/eight-schools-1.csv " + output + "/eight-schools-2.csv");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(SampleCli, ASecondRunNeverMixesWithTheFirst) {
  const TempDir dir("second_run");
  const std::string common = "sample --model beta-bernoulli --warmup 20 --draws 10 --output " + (dir / "out");
  ASSERT_EQ(run(common + " --chains 4").exit_code, 0);
  const Outcome refused = run(common + " --chains 2");
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_EQ(count_lines(refused.output), 1) << refused.output;
  EXPECT_NE(refused.output.find("already holds an earlier run's files (beta-bernoulli-1.csv"), std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("--overwrite"), std::string::npos) << refused.output;

  const Outcome replaced = run(common + " --chains 2 --overwrite");
  ASSERT_EQ(replaced.exit_code, 0) << replaced.output;
  EXPECT_TRUE(fs::exists(dir / "out/beta-bernoulli-2.csv"));
  EXPECT_FALSE(fs::exists(dir / "out/beta-bernoulli-3.csv")) << "chain 3 of the first run is left behind";
  EXPECT_FALSE(fs::exists(dir / "out/beta-bernoulli-4.csv")) << "chain 4 of the first run is left behind";
}

TEST(SampleCli, SigtermAndSighupStopTheRunAsCtrlCDoes) {
  for (const int signal : {SIGTERM, SIGHUP}) {
    const TempDir dir("stop_signal");
    const std::string log = dir / "log.txt", output = dir / "out";
    const auto stopped =
        variate::testing::interrupt_after_rows({"sample", "--model", "eight-schools", "--chains", "1", "--warmup", "50",
                                                "--draws", "1000000", "--output", output},
                                               log, output + "/eight-schools-1.csv", 20, signal);
    ASSERT_TRUE(stopped.stopped) << "the run did not stop within 20 s of signal " << signal;
    EXPECT_EQ(stopped.exit_code, 128 + signal) << stopped.log;
    EXPECT_NE(stopped.log.find("interrupted: kept"), std::string::npos) << stopped.log;
    EXPECT_GE(variate::data::read_stan_csv(output + "/eight-schools-1.csv").draws.size(), 20u);
  }
}

// Pathfinder does not poll the stop flag and there are no draws yet to keep: a stop signal during
// `--init pathfinder` ends the run at once (on MNIST its paths take many minutes).
TEST(SampleCli, AStopSignalDuringPathfinderEndsTheRunAtOnce) {
  const TempDir dir("stop_pathfinder");
  const std::string log = dir / "log.txt";
  const auto stopped = variate::testing::interrupt_when(
      {"sample", "--model", "digits-softmax", "--init", "pathfinder", "--output", dir / "out"}, log,
      [&] { return variate::testing::read_text(log).find("init: running Pathfinder") != std::string::npos; }, SIGTERM);
  ASSERT_TRUE(stopped.stopped) << stopped.log;
  ASSERT_NE(stopped.log.find("init: running Pathfinder"), std::string::npos) << "Pathfinder never started";
  EXPECT_FALSE(fs::exists(dir / "out")) << "a run stopped before sampling leaves no output folder";
  EXPECT_EQ(stopped.signal, SIGTERM) << "exit code " << stopped.exit_code << ": " << stopped.log;
  EXPECT_EQ(stopped.log.find("init: Pathfinder, "), std::string::npos) << "Pathfinder ran to its end: " << stopped.log;
}

// Memory: a run the machine cannot hold fails at once, with the figure and the option to change.
TEST(SampleCli, ARunTooLargeForTheMachineFailsUpFront) {
  const TempDir dir("too_large");
  const auto start = std::chrono::steady_clock::now();
  const Outcome r = run("sample --metric dense --draws 1000000000 --output " + (dir / "never"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_LT(seconds, 30) << "the check comes before sampling";
  EXPECT_EQ(count_lines(r.output.substr(r.output.find("variate: error: "))), 1) << r.output;
  EXPECT_NE(r.output.find("variate: error: sample: the run needs about "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" TB of memory"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("available; lower --draws or --chains"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "never")) << "a run refused up front leaves no output folder";
}

// Data sizes: one mistyped label must not make a model of ten million classes.
TEST(SampleCli, ALabelFarBeyondTheRowsIsRefused) {
  const TempDir dir("huge_label");
  const std::string csv = dir.write("labels.csv", "0.1,0.2,0\n0.3,0.4,1\n0.5,0.1,10000000\n0.1,0.1,0\n0.2,0.2,1\n");
  const std::string json =
      dir.write("labels.json", R"({"X": [[0.1], [0.2], [0.3], [0.4], [0.5], [0.6]], "y": [1, 2, 1, 2, 7, 1]})");
  for (const auto& [file, expected] : std::vector<std::pair<std::string, std::string>>{
           {csv,
            "labels.csv: the largest label, 10000000, makes K = 10000001 classes, more than the 5 rows of data; "
            "expected labels 0..K-1"},
           {json,
            "labels.json: the largest label, 7, makes K = 7 classes, more than the 6 rows of data; expected labels "
            "1..K"}}) {
    const Outcome r = run("sample --model digits-softmax --data " + file + " --output " + (dir / "never"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(count_lines(r.output), 1) << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
  }
}

// A full disk (here the file size limit, which fails the write as ENOSPC does) stops the run with
// an error naming the file, which keeps whole rows only.
TEST(SampleCli, AFailedWriteStopsTheRunAndKeepsWholeRows) {
  const TempDir dir("full_disk");
  const std::string output = dir / "out", file = output + "/eight-schools-1.csv";
  const std::string command = "bash -c \"trap '' XFSZ; ulimit -f 40; exec " + std::string(VARIATE_CLI_PATH) +
                              " sample --model eight-schools --chains 1 --warmup 100 --draws 5000 --output " + output +
                              "\" 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  std::array<char, 4096> buffer;
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) text.append(buffer.data(), n);
  const int status = pclose(pipe);
  EXPECT_EQ(WEXITSTATUS(status), 1) << text;
  EXPECT_NE(text.find("variate: error: "), std::string::npos) << text;
  EXPECT_NE(text.find("cannot write to file '" + output + "/eight-schools-"), std::string::npos) << text;
  EXPECT_NE(text.find("File too large; it keeps the lines written before"), std::string::npos) << text;
  const std::string written = read_text(file);
  EXPECT_GT(written.size(), 30000u);
  EXPECT_TRUE(written.ends_with("\n")) << "the file ends with a whole row";
  const variate::data::StanCsv csv = variate::data::read_stan_csv(file);
  EXPECT_EQ(csv.warning, "");
  EXPECT_GT(csv.draws.size(), 50u);
  for (double lp : csv.column("lp__")) EXPECT_TRUE(std::isfinite(lp));
}

// What a crash or a full disk leaves without whole-row writes: summary skips the cut row, says so
// on stderr, and summarizes the rest.
TEST(SampleCli, SummarySkipsACutLastRowWithAWarning) {
  const TempDir dir("summary_cut");
  std::string text = cmdstan_chain(1, {{-7.1, 0.9, 0.93, 2, 3, 0, 7.5, 0.2}, {-7.0, 0.9, 0.93, 2, 3, 0, 7.5, 0.3}});
  text += "-7.2,0.9,0.93,2,3,0,7.5,0.12345";
  const std::string cut = dir.write("cut.csv", text.substr(0, text.size() - 3));  // inside the last number
  const std::string lines = std::to_string(count_lines(text) + 1);
  const Outcome r = run("summary " + cut);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("variate summary: warning: " + cut + ":" + lines + ": the last row is cut short"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 chain, 2 draws each"), std::string::npos) << r.output;
}

// Reading forever: devices are refused at once.
TEST(SampleCli, DevicesAsInputAreRefused) {
  const TempDir dir("devices");
  Outcome r = run("summary /dev/zero");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'/dev/zero' is not a regular file"), std::string::npos) << r.output;
  fs::create_symlink("/dev/urandom", dir / "random.csv");
  r = run("sample --model logistic --data " + (dir / "random.csv") + " --output " + (dir / "never"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("random.csv' is not a regular file"), std::string::npos) << r.output;
}

}  // namespace
