// End-to-end tests of `variate sample --sharded-draws per-device`: each device's files of the sharded
// sites, joined column-wise with the main files, hold exactly the gathered run's columns; the
// manifest names the right rows; Ctrl-C keeps aligned files. The data are a tiny MovieLens-100K
// folder written by the test, so each run takes a second or two.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

namespace fs = std::filesystem;
using variate::data::read_stan_csv;
using variate::data::StanCsv;
using variate::testing::read_text;
using variate::testing::run_cli;
using variate::testing::ScratchDir;

constexpr int kUsers = 10, kMovies = 6;

// A MovieLens-100K folder (u.data, u.item) of kUsers x kMovies with a fixed pattern of watches.
std::string write_tiny_movielens(const ScratchDir& dir) {
  fs::create_directories(dir.path() / "ml");
  std::ostringstream data, items;
  for (int u = 1; u <= kUsers; ++u)
    for (int m = 1; m <= kMovies; ++m)
      if ((u * 7 + m * 3) % 4 == 0 || m == u % kMovies + 1) data << u << '\t' << m << "\t4\t881250949\n";
  for (int m = 1; m <= kMovies; ++m) items << m << "|Movie " << m << " (1995)|01-Jan-1995||\n";
  dir.write("ml/u.data", data.str());
  dir.write("ml/u.item", items.str());
  return (dir.path() / "ml").string();
}

std::string sample_args(const std::string& data, int devices, const std::string& output) {
  return "sample --model movielens --data " + data + " --devices " + std::to_string(devices) +
         " --chains 2 --warmup 30 --draws 12 --max-depth 4 --seed 7 --output " + output;
}

std::string device_file(const std::string& dir, int device, int chain) {
  return dir + "/movielens.device" + std::to_string(device) + "-" + std::to_string(chain) + ".csv";
}

// Checks that the main file and the device files of one chain, joined column-wise in device order,
// are the gathered file: the same columns in the same order and the same draws, bit for bit.
void expect_join_equals(const StanCsv& gathered, const StanCsv& main, const std::vector<StanCsv>& parts) {
  std::vector<std::string> columns = main.columns;
  std::vector<std::vector<double>> rows = main.draws;
  for (const StanCsv& part : parts) {
    ASSERT_EQ(part.draws.size(), main.draws.size()) << part.path << " is not row for row with " << main.path;
    columns.insert(columns.end(), part.columns.begin(), part.columns.end());
    for (std::size_t i = 0; i < rows.size(); ++i)
      rows[i].insert(rows[i].end(), part.draws[i].begin(), part.draws[i].end());
  }
  EXPECT_EQ(columns, gathered.columns);
  ASSERT_EQ(rows.size(), gathered.draws.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], gathered.draws[i]) << "draw " << i + 1;
}

// The rows [begin, end) of b_user each device should hold: the first kUsers % devices get one more.
std::vector<std::pair<int, int>> expected_rows(int devices) {
  std::vector<std::pair<int, int>> rows;
  int begin = 0;
  for (int d = 0; d < devices; ++d) {
    const int n = kUsers / devices + (d < kUsers % devices ? 1 : 0);
    rows.emplace_back(begin, begin + n);
    begin += n;
  }
  return rows;
}

class ShardedDrawsCli : public ::testing::TestWithParam<int> {};

TEST_P(ShardedDrawsCli, DeviceFilesJoinedEqualTheGatheredFiles) {
  const int devices = GetParam();
  const ScratchDir dir("cli_sharded_" + std::to_string(devices));
  const std::string data = write_tiny_movielens(dir);
  const std::string gathered = dir / "gathered", split = dir / "split";

  const auto g = run_cli(sample_args(data, devices, gathered));
  ASSERT_EQ(g.exit_code, 0) << g.output;
  EXPECT_NE(g.output.find("recommendations:"), std::string::npos) << g.output;
  EXPECT_FALSE(fs::exists(gathered + "/movielens.manifest.json"));
  const auto p = run_cli(sample_args(data, devices, split) + " --sharded-draws per-device");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("movielens.device<k>-<chain>.csv"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("--sharded-draws per-device skips it"), std::string::npos) << p.output;
  EXPECT_EQ(p.output.find("recommendations:"), std::string::npos) << p.output;

  const auto rows = expected_rows(devices);
  for (int c = 1; c <= 2; ++c) {
    const StanCsv all = read_stan_csv(gathered + "/movielens-" + std::to_string(c) + ".csv");
    const StanCsv main = read_stan_csv(split + "/movielens-" + std::to_string(c) + ".csv");
    EXPECT_EQ(main.columns.back(), "b_movie." + std::to_string(kMovies)) << "the main file holds no b_user";
    EXPECT_EQ(*main.config_value("sharded_draws"), "per-device");
    EXPECT_EQ(all.adaptation.step_size, main.adaptation.step_size);
    std::vector<StanCsv> parts;
    for (int d = 0; d < devices; ++d) {
      parts.push_back(read_stan_csv(device_file(split, d, c)));
      const StanCsv& part = parts.back();
      EXPECT_EQ(*part.config_value("device"), std::to_string(d));
      ASSERT_FALSE(part.columns.empty());
      // Global names: device d's first user is user rows[d].first + 1 of all.
      EXPECT_EQ(part.columns.front(), "b_user." + std::to_string(rows[d].first + 1)) << part.path;
      EXPECT_EQ(part.columns.size(), std::size_t(rows[d].second - rows[d].first));
      // Its own part of the metric: one entry per sharded coordinate (u and b_user), diagonal.
      EXPECT_TRUE(part.has_adaptation) << part.path;
      EXPECT_EQ(part.adaptation.inverse_metric.size(), std::size_t(rows[d].second - rows[d].first) * 21);
    }
    expect_join_equals(all, main, parts);
  }
  // Each device summarized its own columns; gathered once, they make the same table.
  EXPECT_EQ(read_text(split + "/summary.csv"), read_text(gathered + "/summary.csv"));

  const nlohmann::json m = nlohmann::json::parse(read_text(split + "/movielens.manifest.json"));
  EXPECT_EQ(m["model"], "movielens");
  EXPECT_EQ(m["chains"], 2);
  EXPECT_EQ(m["draws_per_chain"], 12);
  EXPECT_EQ(m["mesh"]["axis"], "data");
  EXPECT_EQ(m["mesh"]["devices"], devices);
  EXPECT_EQ(m["main_files"], nlohmann::json({"movielens-1.csv", "movielens-2.csv"}));
  ASSERT_EQ(m["sites"].size(), 2u);
  const auto& b_movie = m["sites"][0];
  EXPECT_EQ(b_movie["name"], "b_movie");
  EXPECT_EQ(b_movie["sharded"], false);
  EXPECT_EQ(b_movie["shape"], nlohmann::json({kMovies}));
  const auto& b_user = m["sites"][1];
  EXPECT_EQ(b_user["name"], "b_user");
  EXPECT_EQ(b_user["sharded"], true);
  EXPECT_EQ(b_user["shape"], nlohmann::json({kUsers}));
  ASSERT_EQ(b_user["parts"].size(), std::size_t(devices));
  for (int d = 0; d < devices; ++d) {
    const auto& part = b_user["parts"][std::size_t(d)];
    EXPECT_EQ(part["device"], d);
    EXPECT_EQ(part["begin"], rows[d].first);
    EXPECT_EQ(part["end"], rows[d].second);
    const std::string prefix = "movielens.device" + std::to_string(d);
    EXPECT_EQ(part["files"], nlohmann::json({prefix + "-1.csv", prefix + "-2.csv"}));
    EXPECT_EQ(m["device_files"][std::size_t(d)]["files"], part["files"]);
  }
  // A device's files read as Stan CSV files of their own.
  const auto s = run_cli("summary " + device_file(split, devices - 1, 1) + " " + device_file(split, devices - 1, 2));
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_NE(s.output.find("b_user." + std::to_string(kUsers)), std::string::npos) << s.output;
}

INSTANTIATE_TEST_SUITE_P(Devices, ShardedDrawsCli, ::testing::Values(2, 3));

TEST(ShardedDrawsCliOptions, WithoutShardedSitesPerDeviceIsGather) {
  const ScratchDir dir("cli_sharded_none");
  const std::string data = write_tiny_movielens(dir);
  // One device: nothing is sharded.
  const auto one = run_cli("sample --model movielens --data " + data +
                           " --chains 1 --warmup 10 --draws 5 --sharded-draws per-device --output " + (dir / "one"));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("no saved site is sharded (one device)"), std::string::npos) << one.output;
  EXPECT_FALSE(fs::exists(dir / "one/movielens.manifest.json"));
  EXPECT_EQ(read_stan_csv(dir / "one/movielens-1.csv").columns.back(), "b_user." + std::to_string(kUsers));
  // Two devices, but the model has no sharded latent site.
  const auto two = run_cli(
      "sample --model beta-bernoulli --devices 2 --chains 1 --warmup 10 --draws 5 "
      "--sharded-draws per-device --output " +
      (dir / "two"));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("no saved site is sharded, so every draw"), std::string::npos) << two.output;
  EXPECT_FALSE(fs::exists(dir / "two/beta-bernoulli.manifest.json"));
  EXPECT_EQ(*read_stan_csv(dir / "two/beta-bernoulli-1.csv").config_value("sharded_draws"), "gather");
}

TEST(ShardedDrawsCliOptions, BadValueNamesTheOption) {
  const ScratchDir dir("cli_sharded_bad");
  for (const char* value : {"scatter", "\"\"", "per_device"}) {
    const auto r = run_cli(std::string("sample --devices 2 --sharded-draws ") + value + " --output " + (dir / "out"));
    EXPECT_EQ(r.exit_code, 1) << value << ": " << r.output;
    EXPECT_NE(r.output.find("variate: error:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--sharded-draws"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("gather"), std::string::npos) << "the message lists the choices: " << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "out/digits-softmax-1.csv"));
}

// Ctrl-C: every device stops after the same iteration, so the files stay row for row.
TEST(ShardedDrawsCliOptions, CtrlCKeepsAlignedFilesAndTheManifest) {
  const ScratchDir dir("cli_sharded_sigint");
  const std::string data = write_tiny_movielens(dir);
  const std::string log = dir / "log.txt", output = dir / "out";
  const auto run = variate::testing::interrupt_after_rows(
      {"sample", "--model", "movielens", "--data", data, "--devices", "2", "--chains", "1", "--warmup", "20", "--draws",
       "1000000", "--sharded-draws", "per-device", "--output", output},
      log, device_file(output, 1, 1), 30);
  ASSERT_TRUE(run.stopped) << "the run did not stop within 20 s of SIGINT";
  const std::string& text = run.log;
  EXPECT_EQ(run.exit_code, 130) << text;
  EXPECT_NE(text.find("interrupted: kept"), std::string::npos) << text;
  EXPECT_NE(text.find("movielens.manifest.json"), std::string::npos) << text;
  const StanCsv main = read_stan_csv(output + "/movielens-1.csv");
  EXPECT_GE(main.draws.size(), 30u);
  for (int d = 0; d < 2; ++d) EXPECT_EQ(read_stan_csv(device_file(output, d, 1)).draws.size(), main.draws.size()) << d;
  EXPECT_TRUE(fs::exists(output + "/movielens.manifest.json"));
  EXPECT_FALSE(fs::exists(output + "/summary.csv"));
}

// The worked case: 943 users over two devices, device 1's first user is b_user.473.
TEST(ShardedDrawsCliOptions, MovieLens100kDeviceFilesUseGlobalNames) {
  const std::string data = VARIATE_SOURCE_DIR "/../shared/data/movielens-100k";
  if (!fs::exists(data)) GTEST_SKIP() << "no MovieLens-100K files in " << data;
  const ScratchDir dir("cli_sharded_movielens");
  const auto r = run_cli("sample --model movielens --data " + data +
                         " --devices 2 --chains 1 --sampler hmc --leapfrog-steps 2 --warmup 4 --draws 3 "
                         "--sharded-draws per-device --output " +
                         dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const StanCsv second = read_stan_csv(dir / "movielens.device1-1.csv");
  EXPECT_EQ(second.columns.front(), "b_user.473");
  EXPECT_EQ(second.columns.back(), "b_user.943");
  EXPECT_EQ(second.draws.size(), 3u);
  EXPECT_EQ(read_stan_csv(dir / "movielens-1.csv").columns.size(), 5u + 1682);
}

}  // namespace
