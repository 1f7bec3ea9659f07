// End-to-end tests of `variate sample --checkpoint-every`, `--resume` and `--init-from`: a run
// killed with SIGKILL (right after a given checkpoint, by the tool's test hook) in warm-up or in
// sampling and then resumed, even twice, writes the files of an uninterrupted run; corrupt or
// mismatched checkpoints are one clear error; warm starts sample with the earlier adaptation. The
// same on a mesh of devices (--devices), with replicated or sharded parameters; under mpirun, see
// mpi_checkpoint.sh.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/inference/checkpoint_file.hpp"

namespace {

namespace fs = std::filesystem;
using variate::testing::CliOutcome;
using variate::testing::run_cli;

class TempDir : public variate::testing::ScratchDir {
 public:
  explicit TempDir(const std::string& name) : ScratchDir("cli_checkpoint_" + name) {}
};

// Two chains on two threads: 150 warm-up iterations (so the metric is adapted) and 100 draws.
const std::string kOptions = "sample --model eight-schools --chains 2 --threads 2 --warmup 150 --draws 100";
const std::string kRun = kOptions + " --seed 5";

// Runs `args` with the test hook that kills the process (SIGKILL) right after chain `chain`'s
// checkpoint at `iteration`; expects it to die that way.
void run_killed_at(const std::string& args, int chain, int iteration) {
  const std::string at = std::to_string(chain) + ":" + std::to_string(iteration);
  ::setenv("VARIATE_TEST_KILL_AT_CHECKPOINT", at.c_str(), 1);
  const CliOutcome r = run_cli(args);
  ::unsetenv("VARIATE_TEST_KILL_AT_CHECKPOINT");
  // popen's shell either is replaced by the tool (no exit status) or reports 128 + SIGKILL.
  EXPECT_TRUE(r.exit_code == -1 || r.exit_code == 137)
      << "expected a kill at " << at << ", got exit " << r.exit_code << ":\n"
      << r.output;
}

// A file's lines less those that differ between two identical runs: the output path and the timing.
std::vector<std::string> comparable_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (line.find(" file = ") == std::string::npos && line.find("seconds (") == std::string::npos)
      lines.push_back(line);
  return lines;
}

void expect_same_files(const std::string& reference, const std::string& resumed,
                       std::initializer_list<const char*> names = {"eight-schools-1.csv", "eight-schools-2.csv",
                                                                   "summary.csv"}) {
  for (const char* name : names) {
    const std::vector<std::string> want = comparable_lines(reference + "/" + name);
    const std::vector<std::string> got = comparable_lines(resumed + "/" + name);
    ASSERT_GT(want.size(), 10u) << name;
    ASSERT_EQ(got.size(), want.size()) << name;
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << name << " line " << i + 1;
  }
}

TEST(CheckpointCli, RunsKilledInWarmupOrSamplingResumeToTheUninterruptedDraws) {
  const TempDir dir("resume");
  const std::string reference = dir / "reference", plain = dir / "plain";
  const CliOutcome full = run_cli(kRun + " --checkpoint-every 10 --output " + reference);
  ASSERT_EQ(full.exit_code, 0) << full.output;
  ASSERT_EQ(run_cli(kRun + " --output " + plain).exit_code, 0);
  expect_same_files(plain, reference);  // checkpoints do not change the draws

  // Chain 1 in warm-up, chain 2 right at the end of warm-up, chain 1 while sampling; the other
  // chain is wherever its thread got to, with rows after its checkpoint that must be dropped.
  for (const auto& [chain, iteration] : std::vector<std::pair<int, int>>{{1, 60}, {2, 150}, {1, 200}}) {
    SCOPED_TRACE("killed after chain " + std::to_string(chain) + "'s checkpoint at " + std::to_string(iteration));
    const std::string out = dir / ("killed-" + std::to_string(chain) + "-" + std::to_string(iteration));
    run_killed_at(kRun + " --checkpoint-every 10 --output " + out, chain, iteration);
    ASSERT_TRUE(fs::exists(out + "/checkpoint/eight-schools-" + std::to_string(chain) + ".ckpt"));
    const CliOutcome resumed = run_cli(kRun + " --resume " + out);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_NE(resumed.output.find("resuming"), std::string::npos) << resumed.output;
    expect_same_files(reference, out);
  }

  // Killed twice: in warm-up, then again while the resumed run samples.
  const std::string twice = dir / "twice";
  run_killed_at(kRun + " --checkpoint-every 10 --output " + twice, 2, 40);
  run_killed_at(kRun + " --resume " + twice, 2, 230);
  const CliOutcome resumed = run_cli(kRun + " --resume " + twice);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  expect_same_files(reference, twice);
}

// One error line naming each of `parts`.
void expect_one_error(const CliOutcome& r, std::initializer_list<const char*> parts) {
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  for (const char* part : parts) EXPECT_NE(r.output.find(part), std::string::npos) << r.output;
}

TEST(CheckpointCli, CorruptOrMismatchedCheckpointsAreOneClearError) {
  const TempDir dir("mismatch");
  // Rubin's eight schools, and the same with one result changed.
  const std::string schools =
      R"({"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]})";
  const std::string changed =
      R"({"J": 8, "y": [28, 8, -2, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]})";
  const std::string data = dir.write("schools.json", schools);
  const std::string out = dir / "out";
  const std::string args = kRun + " --data " + data;
  run_killed_at(args + " --checkpoint-every 10 --output " + out, 1, 60);
  const std::string csv = out + "/eight-schools-1.csv", before = variate::testing::read_text(csv);

  expect_one_error(run_cli(kOptions + " --seed 6 --data " + data + " --resume " + out),
                   {"eight-schools-", ".ckpt", "--seed", "'5'", "'6'"});
  expect_one_error(run_cli(kRun + " --resume " + out), {"data fingerprint", "(the model's own data)"});
  expect_one_error(run_cli("sample --model beta-bernoulli --resume " + out),
                   {"holds checkpoints of 'eight-schools', not of model 'beta-bernoulli'", "its --model"});
  // Another model's checkpoint under this model's name.
  fs::copy_file(out + "/checkpoint/eight-schools-1.ckpt", out + "/checkpoint/beta-bernoulli-1.ckpt");
  expect_one_error(run_cli("sample --model beta-bernoulli --resume " + out),
                   {"beta-bernoulli-1.ckpt", "its model is 'eight-schools', this run's is 'beta-bernoulli'"});
  // The same data file with other values.
  dir.write("schools.json", changed);
  expect_one_error(run_cli(args + " --resume " + out), {"data fingerprint"});
  dir.write("schools.json", schools);
  // A flipped byte, then a cut file: in chain 1's checkpoint, the one the kill waited for (chain 2
  // may not have reached one).
  const std::string checkpoint = out + "/checkpoint/eight-schools-1.ckpt";
  std::string bytes = variate::testing::read_text(checkpoint);
  ASSERT_GT(bytes.size(), 100u);
  bytes[bytes.size() / 2] ^= 0x20;
  std::ofstream(checkpoint, std::ios::binary) << bytes;
  expect_one_error(run_cli(args + " --resume " + out), {"eight-schools-1.ckpt", "checksum mismatch"});
  std::ofstream(checkpoint, std::ios::binary) << bytes.substr(0, 40);
  expect_one_error(run_cli(args + " --resume " + out), {"eight-schools-1.ckpt", "truncated"});
  EXPECT_EQ(variate::testing::read_text(csv), before) << "a refused resume must leave the files alone";

  expect_one_error(run_cli(kRun + " --resume " + (dir / "nowhere")), {"no folder", "nowhere"});
}

// Kills the run `options` (with --checkpoint-every `every`) after chain 1's checkpoint at each of
// `iterations`, resumes it, and expects the files of an uninterrupted run with checkpoints, which
// must be those of one without.
void expect_resumes_bit_for_bit(const TempDir& dir, const std::string& options, std::initializer_list<int> iterations,
                                std::initializer_list<const char*> files, int every = 10) {
  const std::string reference = dir / "reference", plain = dir / "plain";
  const std::string checkpoints = " --checkpoint-every " + std::to_string(every);
  const CliOutcome full = run_cli(options + checkpoints + " --output " + reference);
  ASSERT_EQ(full.exit_code, 0) << full.output;
  ASSERT_EQ(run_cli(options + " --output " + plain).exit_code, 0);
  expect_same_files(plain, reference, files);
  for (const int iteration : iterations) {
    SCOPED_TRACE("killed after the checkpoint at " + std::to_string(iteration));
    const std::string out = dir / ("killed-" + std::to_string(iteration));
    run_killed_at(options + checkpoints + " --output " + out, 1, iteration);
    const CliOutcome resumed = run_cli(options + " --resume " + out);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_NE(resumed.output.find("chain 1 at iteration " + std::to_string(iteration)), std::string::npos)
        << resumed.output;
    expect_same_files(reference, out, files);
  }
}

// The step size of every draw of `warm`'s chains is the adapted one of `earlier`'s.
void expect_warm_started(const std::string& earlier, const std::string& warm, const std::string& model, int chains) {
  for (int c = 1; c <= chains; ++c) {
    const std::string name = "/" + model + "-" + std::to_string(c) + ".csv";
    const double adapted = variate::data::read_stan_csv(earlier + name).adaptation.step_size;
    const auto steps = variate::data::read_stan_csv(warm + name).column("stepsize__");
    ASSERT_FALSE(steps.empty());
    for (double s : steps) ASSERT_EQ(s, adapted) << warm << " chain " << c;
  }
}

// Eight schools' data split over two devices, its parameters replicated: each checkpoint holds
// device 0's state, checked to be every device's. The chains run one after another on the mesh.
TEST(CheckpointCli, DeviceRunsResumeToTheUninterruptedDraws) {
  const TempDir dir("devices");
  const std::string devices = "sample --model eight-schools --devices 2 --chains 2 --warmup 100 --draws 60 --seed 5";
  // Chain 1 killed in warm-up and while sampling (chain 2 not begun).
  expect_resumes_bit_for_bit(dir, devices, {40, 130}, {"eight-schools-1.csv", "eight-schools-2.csv", "summary.csv"});
  // Chain 2 killed in warm-up, chain 1 done.
  const std::string out = dir / "killed-chain-2";
  run_killed_at(devices + " --checkpoint-every 10 --output " + out, 2, 70);
  // The draws depend on the device count (sums over devices, the streams of sharded coordinates).
  expect_one_error(run_cli("sample --model eight-schools --devices 3 --chains 2 --warmup 100 --draws 60 --seed 5 "
                           "--resume " +
                           out),
                   {"eight-schools-1.ckpt", "its --devices is '2', this run's is '3'"});
  expect_one_error(run_cli("sample --model eight-schools --chains 2 --warmup 100 --draws 60 --seed 5 --resume " + out),
                   {"eight-schools-1.ckpt", "its --devices is '2', this run's is '1'"});
  const CliOutcome resumed = run_cli(devices + " --resume " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("chain 1 at iteration 160, chain 2 at iteration 70"), std::string::npos)
      << resumed.output;
  expect_same_files(dir / "reference", out);
  // Warm starts from a run on two devices, on two devices or on one (the parameters are replicated).
  for (const auto& [more, name] : {std::pair{" --devices 2", "warm-2"}, std::pair{"", "warm-1"}}) {
    const std::string warm = dir / name;
    const CliOutcome r =
        run_cli(std::string("sample --model eight-schools --metric diag --chains 2 --warmup 0 --draws 20 --seed 9") +
                more + " --init-from " + (dir / "reference") + " --output " + warm);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_warm_started(dir / "reference", warm, "eight-schools", 2);
  }
}

// MovieLens with users sharded over two devices: each device's chain state differs (its users'
// coordinates), so a checkpoint holds both, and a draw log record both devices' coordinates.
TEST(CheckpointCli, ShardedParametersResumeToTheUninterruptedDraws) {
  const std::string data = VARIATE_SOURCE_DIR "/../shared/data/movielens-100k";
  if (!fs::exists(data)) GTEST_SKIP() << "no MovieLens-100K files in " << data;
  const std::string sharded =
      "sample --model movielens --data " + data +
      " --devices 2 --chains 1 --sampler hmc --leapfrog-steps 2 --trajectory-jitter 0.5 --warmup 4 --draws 6 --seed 2";
  const TempDir dir("sharded");
  expect_resumes_bit_for_bit(dir, sharded, {2, 6}, {"movielens-1.csv", "summary.csv"}, 2);
  // A warm start takes each device's part; another device count has another parameter layout.
  const std::string warm = dir / "warm";
  const CliOutcome r = run_cli("sample --model movielens --data " + data +
                               " --devices 2 --chains 1 --sampler hmc --leapfrog-steps 2 --warmup 0 --draws 3 "
                               "--seed 3 --init-from " +
                               (dir / "reference") + " --output " + warm);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_warm_started(dir / "reference", warm, "movielens", 1);
  expect_one_error(run_cli("sample --model movielens --data " + data +
                           " --devices 3 --chains 1 --sampler hmc --leapfrog-steps 2 --warmup 0 --draws 3 "
                           "--init-from " +
                           (dir / "reference") + " --output " + (dir / "three")),
                   {"movielens-1.ckpt", "parameter layout"});
}

// Fisher-divergence adaptation keeps its windows and its low-rank metric in the checkpoints: killed
// in an early window (switches to 45), later in warm-up, and while sampling.
TEST(CheckpointCli, FisherLowRankRunsResumeToTheUninterruptedDraws) {
  const TempDir dir("fisher");
  expect_resumes_bit_for_bit(dir, kRun + " --metric fisher-low-rank", {30, 110, 200},
                             {"eight-schools-1.csv", "eight-schools-2.csv", "summary.csv"});
}

// The unit metric is never adapted; jittered static HMC draws each trajectory's steps from the
// iteration's key, so a resumed run draws the same counts.
TEST(CheckpointCli, UnitMetricJitteredHmcRunsResumeToTheUninterruptedDraws) {
  const TempDir dir("unit");
  expect_resumes_bit_for_bit(dir, kRun + " --metric unit --sampler hmc --trajectory-length 1.5 --trajectory-jitter 0.3",
                             {30, 200}, {"eight-schools-1.csv", "eight-schools-2.csv", "summary.csv"});
}

// Vectorized NUTS chains run in lockstep: one checkpoint holds the batch. In single precision, and
// with Fisher's diagonal metric.
TEST(CheckpointCli, VectorizedRunsResumeToTheUninterruptedDraws) {
  const std::string vectorized = "sample --model eight-schools --vectorize --chains 4 --warmup 120 --draws 40 --seed 5";
  const std::initializer_list<const char*> files = {"eight-schools-1.csv", "eight-schools-4.csv", "summary.csv"};
  {
    const TempDir dir("vectorized_f32");
    expect_resumes_bit_for_bit(dir, vectorized + " --precision f32", {50, 120, 140}, files);
    EXPECT_TRUE(fs::exists(dir / "killed-50/checkpoint/eight-schools-chains.ckpt"));
    EXPECT_FALSE(fs::exists(dir / "killed-50/checkpoint/eight-schools-1.ckpt"));
    // The batch's folder resumed by threaded chains names the option that differs.
    expect_one_error(run_cli("sample --model eight-schools --chains 4 --warmup 120 --draws 40 --seed 5 --precision f32 "
                             "--threads 2 --resume " +
                             (dir / "killed-50")),
                     {"eight-schools-chains.ckpt", "its --vectorize is 'on', this run's is 'off'"});
  }
  const TempDir dir("vectorized_fisher");
  expect_resumes_bit_for_bit(dir, vectorized + " --metric fisher-diag", {60, 130}, files);
}

// The note a checkpoint keeps its interval in, corrupted behind a valid checksum.
TEST(CheckpointCli, ACorruptIntervalNoteIsOneClearError) {
  const TempDir dir("note");
  const std::string out = dir / "out";
  run_killed_at(kRun + " --checkpoint-every 10 --output " + out, 1, 60);
  const fs::path path = out + "/checkpoint/eight-schools-1.ckpt";
  variate::inference::Checkpoint saved = variate::inference::read_checkpoint(path);
  for (auto& [key, value] : saved.notes)
    if (key == "checkpoint every") value = "ten";
  variate::inference::write_checkpoint(path, saved);
  expect_one_error(run_cli(kRun + " --resume " + out),
                   {"eight-schools-1.ckpt", "'checkpoint every' should be the checkpoint interval", "'ten'"});
}

// ChEES-HMC's 4 vectorized chains: 120 warm-up iterations (the metric follows the chains to 90,
// pooled from 45; step size and trajectory length start their averages over then) and 40 draws.
const std::string kChees =
    "sample --model eight-schools --sampler chees --vectorize --chains 4 --warmup 120 --draws 40 --seed 5";
const std::initializer_list<const char*> kCheesFiles = {"eight-schools-1.csv", "eight-schools-4.csv", "summary.csv"};

TEST(CheckpointCli, CheesRunsKilledInWarmupOrSamplingResumeToTheUninterruptedDraws) {
  const TempDir dir("chees");
  const std::string reference = dir / "reference", plain = dir / "plain";
  const CliOutcome full = run_cli(kChees + " --checkpoint-every 10 --output " + reference);
  ASSERT_EQ(full.exit_code, 0) << full.output;
  ASSERT_EQ(run_cli(kChees + " --output " + plain).exit_code, 0);
  expect_same_files(plain, reference, kCheesFiles);  // checkpoints do not change the draws

  // Before the pooling, while pooling, after the metric is fixed, at the end of warm-up, sampling.
  for (const int iteration : {30, 60, 100, 120, 150}) {
    SCOPED_TRACE("killed after the checkpoint at " + std::to_string(iteration));
    const std::string out = dir / ("killed-" + std::to_string(iteration));
    run_killed_at(kChees + " --checkpoint-every 10 --output " + out, 1, iteration);
    ASSERT_TRUE(fs::exists(out + "/checkpoint/eight-schools-chains.ckpt"));
    const CliOutcome resumed = run_cli(kChees + " --resume " + out);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_NE(resumed.output.find("chain 4 at iteration " + std::to_string(iteration)), std::string::npos)
        << resumed.output;
    expect_same_files(reference, out, kCheesFiles);
  }

  // Killed twice: in warm-up, then again while the resumed run samples.
  const std::string twice = dir / "twice";
  run_killed_at(kChees + " --checkpoint-every 10 --output " + twice, 1, 50);
  run_killed_at(kChees + " --resume " + twice, 1, 140);
  const CliOutcome resumed = run_cli(kChees + " --resume " + twice);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  expect_same_files(reference, twice, kCheesFiles);
}

TEST(CheckpointCli, MismatchedOrCorruptCheesCheckpointsAreOneClearError) {
  const TempDir dir("chees_mismatch");
  const std::string out = dir / "out";
  run_killed_at(kChees + " --checkpoint-every 10 --output " + out, 1, 60);
  const std::string csv = out + "/eight-schools-1.csv", before = variate::testing::read_text(csv);
  expect_one_error(run_cli("sample --model eight-schools --sampler chees --vectorize --chains 8 --warmup 120 "
                           "--draws 40 --seed 5 --resume " +
                           out),
                   {"eight-schools-chains.ckpt", "--chains", "'4'", "'8'"});
  // The same folder resumed by NUTS, and a NUTS run's checkpoints resumed by ChEES.
  expect_one_error(run_cli("sample --model eight-schools --chains 4 --warmup 120 --draws 40 --seed 5 --resume " + out),
                   {"eight-schools-chains.ckpt", "its --sampler is 'chees', this run's is 'nuts'"});
  const std::string nuts = dir / "nuts";
  run_killed_at(
      "sample --model eight-schools --chains 4 --threads 2 --warmup 120 --draws 40 --seed 5 "
      "--checkpoint-every 10 --output " +
          nuts,
      1, 60);
  expect_one_error(run_cli(kChees + " --resume " + nuts),
                   {"eight-schools-1.ckpt", "its --sampler is 'nuts', this run's is 'chees'"});
  // A flipped byte in the batch's checkpoint.
  const std::string checkpoint = out + "/checkpoint/eight-schools-chains.ckpt";
  std::string bytes = variate::testing::read_text(checkpoint);
  ASSERT_GT(bytes.size(), 100u);
  bytes[bytes.size() / 2] ^= 0x20;
  std::ofstream(checkpoint, std::ios::binary) << bytes;
  expect_one_error(run_cli(kChees + " --resume " + out), {"eight-schools-chains.ckpt", "checksum mismatch"});
  EXPECT_EQ(variate::testing::read_text(csv), before) << "a refused resume must leave the files alone";
}

TEST(CheckpointCli, InitFromSamplesWithTheEarlierRunsAdaptation) {
  const TempDir dir("init_from");
  const std::string earlier = dir / "earlier", warm = dir / "warm";
  ASSERT_EQ(run_cli(kRun + " --checkpoint-every 50 --output " + earlier).exit_code, 0);
  const CliOutcome r = run_cli(
      "sample --model eight-schools --chains 2 --threads 2 --warmup 0 --draws 30 --seed 9 "
      "--init-from " +
      earlier + " --output " + warm);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (int c = 1; c <= 2; ++c) {
    const std::string name = "/eight-schools-" + std::to_string(c) + ".csv";
    const double adapted = variate::data::read_stan_csv(earlier + name).adaptation.step_size;
    const auto steps = variate::data::read_stan_csv(warm + name).column("stepsize__");
    ASSERT_EQ(steps.size(), 30u);
    for (double s : steps) EXPECT_EQ(s, adapted) << "chain " << c;
  }
  expect_one_error(
      run_cli("sample --model eight-schools --warmup 0 --init-from " + warm + " --output " + (dir / "again")),
      {"no checkpoint of model 'eight-schools'", "--checkpoint-every"});
  expect_one_error(
      run_cli("sample --model eight-schools --metric dense --init-from " + earlier + " --output " + (dir / "dense")),
      {"--metric", "'fisher-low-rank'", "'dense'"});  // the default, auto, chose fisher-low-rank
}

// A warm start from a Fisher run takes its low-rank metric and step size; from a vectorized run,
// its batch's chains.
TEST(CheckpointCli, InitFromFisherAndVectorizedRuns) {
  const TempDir dir("init_from_fisher");
  const std::string fisher = dir / "fisher", vectorized = dir / "vectorized";
  ASSERT_EQ(run_cli(kRun + " --metric fisher-low-rank --checkpoint-every 50 --output " + fisher).exit_code, 0);
  ASSERT_EQ(run_cli("sample --model eight-schools --vectorize --chains 2 --warmup 150 --draws 100 --seed 5 "
                    "--metric diag --checkpoint-every 50 --output " +
                    vectorized)
                .exit_code,
            0);
  for (const auto& [earlier, metric] : {std::pair{fisher, "fisher-low-rank"}, std::pair{vectorized, "diag"}}) {
    SCOPED_TRACE(earlier);
    const std::string warm = earlier + "-warm";
    const CliOutcome r =
        run_cli(std::string("sample --model eight-schools --chains 2 --threads 2 --warmup 0 ") +
                "--draws 30 --seed 9 --metric " + metric + " --init-from " + earlier + " --output " + warm);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (int c = 1; c <= 2; ++c) {
      const std::string name = "/eight-schools-" + std::to_string(c) + ".csv";
      const double adapted = variate::data::read_stan_csv(earlier + name).adaptation.step_size;
      for (double s : variate::data::read_stan_csv(warm + name).column("stepsize__")) ASSERT_EQ(s, adapted);
    }
  }
  expect_one_error(
      run_cli("sample --model eight-schools --metric fisher-diag --init-from " + fisher + " --output " + (dir / "d")),
      {"--metric", "'fisher-low-rank'", "'fisher-diag'"});
}

}  // namespace
