#include "variate/data/stan_csv.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

using Config = std::vector<std::pair<std::string, std::string>>;

// The start of a CmdStan 2.32 run of the bernoulli example (`bernoulli sample data
// file=bernoulli.data.json random seed=1234`), with five of its 1000 draws.
constexpr const char* kBernoulliCsv = R"(# stan_version_major = 2
# stan_version_minor = 32
# stan_version_patch = 2
# model = bernoulli_model
# start_datetime = 2023-06-12 14:05:01 UTC
# method = sample (Default)
#   sample
#     num_samples = 1000 (Default)
#     num_warmup = 1000 (Default)
#     save_warmup = 0 (Default)
#     thin = 1 (Default)
#     adapt
#       engaged = 1 (Default)
#       gamma = 0.050000000000000003 (Default)
#       delta = 0.80000000000000004 (Default)
#       kappa = 0.75 (Default)
#       t0 = 10 (Default)
#       init_buffer = 75 (Default)
#       term_buffer = 50 (Default)
#       window = 25 (Default)
#     algorithm = hmc (Default)
#       hmc
#         engine = nuts (Default)
#           nuts
#             max_depth = 10 (Default)
#         metric = diag_e (Default)
#         metric_file =  (Default)
#         stepsize = 1 (Default)
#         stepsize_jitter = 0 (Default)
#     num_chains = 1 (Default)
# id = 1 (Default)
# data
#   file = bernoulli.data.json
# init = 2 (Default)
# random
#   seed = 1234
# output
#   file = output.csv (Default)
#   diagnostic_file =  (Default)
#   refresh = 100 (Default)
#   sig_figs = -1 (Default)
#   profile_file = profile.csv (Default)
# num_threads = 1 (Default)
# stanc_version = stanc3 v2.32.2
# stancflags = 
lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,theta
# Adaptation terminated
# Step size = 0.932037
# Diagonal elements of inverse mass matrix:
# 0.544012
-6.74827,0.95365,0.932037,1,3,0,6.86007,0.252862
-6.77931,0.985786,0.932037,2,3,0,6.80024,0.188947
-7.42614,0.878228,0.932037,1,3,0,7.57498,0.399651
-6.90118,1,0.932037,1,1,0,7.2983,0.174468
-7.64362,0.876698,0.932037,1,3,0,7.93212,0.103637
# 
#  Elapsed Time: 0.004 seconds (Warm-up)
#                0.011 seconds (Sampling)
#                0.015 seconds (Total)
# 
)";

const std::vector<std::string> kBernoulliColumns = {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
                                                    "n_leapfrog__", "divergent__",   "energy__",   "theta"};

// Each test writes its files into its own directory, removed afterwards.
class StanCsvFile : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_ / name; }
  std::string write(const std::string& name, const std::string& contents) const { return dir_.write(name, contents); }

  static std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  const variate::testing::ScratchDir dir_{"stan_csv_" + variate::testing::current_test_name()};
};

void expect_bernoulli(const StanCsv& csv) {
  ASSERT_EQ(csv.columns, kBernoulliColumns);
  ASSERT_EQ(csv.draws.size(), 5u);
  for (const auto& row : csv.draws) EXPECT_EQ(row.size(), 8u);
  EXPECT_EQ(csv.column("theta"), (std::vector<double>{0.252862, 0.188947, 0.399651, 0.174468, 0.103637}));
  EXPECT_EQ(csv.column("treedepth__"), (std::vector<double>{1, 2, 1, 1, 1}));
  EXPECT_EQ(csv.draws[1][0], -6.77931);
  EXPECT_TRUE(csv.warmup_draws.empty());

  ASSERT_TRUE(csv.has_adaptation);
  EXPECT_EQ(csv.adaptation.step_size, 0.932037);
  EXPECT_EQ(csv.adaptation.inverse_metric, (std::vector<double>{0.544012}));
  EXPECT_FALSE(csv.adaptation.dense);

  // Keys lose their nesting indentation and values their " (Default)".
  ASSERT_NE(csv.config_value("model"), nullptr);
  EXPECT_EQ(*csv.config_value("model"), "bernoulli_model");
  EXPECT_EQ(*csv.config_value("method"), "sample");
  EXPECT_EQ(*csv.config_value("num_samples"), "1000");
  EXPECT_EQ(*csv.config_value("gamma"), "0.050000000000000003");
  EXPECT_EQ(*csv.config_value("metric_file"), "");
  EXPECT_EQ(*csv.config_value("stancflags"), "");
  EXPECT_EQ(*csv.config_value("start_datetime"), "2023-06-12 14:05:01 UTC");
  EXPECT_EQ(*csv.config_value("file"), "bernoulli.data.json");  // the first of data and output files
  EXPECT_EQ(csv.config_value("sample"), nullptr);               // a group name, not an entry
  EXPECT_EQ(csv.config_value("absent"), nullptr);
  EXPECT_EQ(csv.config.front(), (std::pair<std::string, std::string>{"stan_version_major", "2"}));
  EXPECT_EQ(csv.config.back(), (std::pair<std::string, std::string>{"stancflags", ""}));
  EXPECT_EQ(csv.config.size(), 38u);
}

TEST_F(StanCsvFile, ReadsCmdStanBernoulliOutput) {
  const std::string file = write("bernoulli.csv", kBernoulliCsv);
  const StanCsv csv = read_stan_csv(file);
  EXPECT_EQ(csv.path, file);
  expect_bernoulli(csv);
}

TEST_F(StanCsvFile, ReadsGzipCompressedOutput) {
  const std::string file = path("bernoulli.csv.gz");
  gzFile out = gzopen(file.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzputs(out, kBernoulliCsv), int(std::string(kBernoulliCsv).size()));
  ASSERT_EQ(gzclose(out), Z_OK);
  expect_bernoulli(read_stan_csv(file));
}

TEST_F(StanCsvFile, ReadsWindowsLineEnds) {
  std::string crlf;
  for (const char c : std::string(kBernoulliCsv)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  expect_bernoulli(read_stan_csv(write("bernoulli_crlf.csv", crlf)));
}

TEST_F(StanCsvFile, RoundTripsDoublesBitExactly) {
  const std::vector<double> values = {1e-300,
                                      -0.0,
                                      0.1,
                                      1.0 / 3.0,
                                      -2.5e17,
                                      std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN(),
                                      0.0};
  std::vector<std::string> columns;
  for (std::size_t i = 0; i < values.size(); ++i) columns.push_back("x." + std::to_string(i + 1));
  {
    StanCsvWriter out(path("round_trip.csv"), {{"model", "round_trip"}}, columns);
    EXPECT_EQ(out.path(), path("round_trip.csv"));
    out.write_row(values);
    out.write_row(values);
  }
  EXPECT_NE(contents(path("round_trip.csv")).find("1e-300,-0,0.1,"), std::string::npos);
  EXPECT_NE(contents(path("round_trip.csv")).find(",inf,-inf,nan,0\n"), std::string::npos);

  const StanCsv csv = read_stan_csv(path("round_trip.csv"));
  EXPECT_EQ(csv.columns, columns);
  ASSERT_EQ(csv.draws.size(), 2u);
  for (const auto& row : csv.draws) {
    ASSERT_EQ(row.size(), values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i])) {
        EXPECT_TRUE(std::isnan(row[i]));
      } else {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(row[i]), std::bit_cast<std::uint64_t>(values[i])) << values[i];
      }
    }
  }
  EXPECT_FALSE(csv.has_adaptation);
}

TEST_F(StanCsvFile, WritesTheLayoutCmdStanWrites) {
  {
    StanCsvWriter out(
        path("layout.csv"),
        {{"model", "bernoulli_model"}, {"method", "sample"}, {"    num_samples", "2"}, {"metric_file", ""}},
        {"lp__", "theta"});
    out.write_adaptation({0.5, {0.25, 2}, false});
    out.write_row(std::vector<double>{-6.5, 0.25});
    out.write_row(std::vector<double>{-7, 0.125});
    out.write_timing(0.004, 0.0115);
  }
  EXPECT_EQ(contents(path("layout.csv")),
            "# model = bernoulli_model\n"
            "# method = sample\n"
            "#     num_samples = 2\n"
            "# metric_file = \n"
            "lp__,theta\n"
            "# Adaptation terminated\n"
            "# Step size = 0.5\n"
            "# Diagonal elements of inverse mass matrix:\n"
            "# 0.25, 2\n"
            "-6.5,0.25\n"
            "-7,0.125\n"
            "# \n"
            "#  Elapsed Time: 0.004 seconds (Warm-up)\n"
            "#                0.0115 seconds (Sampling)\n"
            "#                0.0155 seconds (Total)\n"
            "# \n");

  const StanCsv csv = read_stan_csv(path("layout.csv"));
  EXPECT_EQ(csv.config,
            (Config{{"model", "bernoulli_model"}, {"method", "sample"}, {"num_samples", "2"}, {"metric_file", ""}}));
  EXPECT_EQ(csv.column("theta"), (std::vector<double>{0.25, 0.125}));
  ASSERT_TRUE(csv.has_adaptation);
  EXPECT_EQ(csv.adaptation.step_size, 0.5);
  EXPECT_EQ(csv.adaptation.inverse_metric, (std::vector<double>{0.25, 2}));
  EXPECT_FALSE(csv.adaptation.dense);
}

TEST_F(StanCsvFile, RoundTripsDenseAdaptation) {
  const StanCsvAdaptation adaptation{0.1, {2, 0.1, -0.3, 0.1, 1e-300, 0, -0.3, 0, 5}, true};
  {
    StanCsvWriter out(path("dense.csv"), {{"metric", "dense_e"}}, {"lp__", "a", "b", "c"});
    out.write_adaptation(adaptation);
    out.write_row(std::vector<double>{1, 2, 3, 4});
    out.write_timing(1, 2);
  }
  EXPECT_NE(contents(path("dense.csv"))
                .find("# Step size = 0.1\n# Elements of inverse mass matrix:\n# 2, 0.1, -0.3\n# 0.1, 1e-300, 0\n"
                      "# -0.3, 0, 5\n1,2,3,4\n"),
            std::string::npos);
  const StanCsv csv = read_stan_csv(path("dense.csv"));
  ASSERT_TRUE(csv.has_adaptation);
  EXPECT_TRUE(csv.adaptation.dense);
  EXPECT_EQ(csv.adaptation.step_size, 0.1);
  EXPECT_EQ(csv.adaptation.inverse_metric, adaptation.inverse_metric);
  EXPECT_EQ(csv.draws, (std::vector<std::vector<double>>{{1, 2, 3, 4}}));

  // A dense block at the end of an interrupted file also ends the matrix.
  StanCsvWriter out(path("dense_only.csv"), {}, {"lp__", "a"});
  out.write_adaptation({0.2, {1, 0.5, 0.5, 1}, true});
  EXPECT_EQ(read_stan_csv(path("dense_only.csv")).adaptation.inverse_metric, (std::vector<double>{1, 0.5, 0.5, 1}));

  EXPECT_ERROR(out.write_adaptation({0.2, {1, 2, 3}, true}), "3, which is not a square number");
  EXPECT_ERROR(read_stan_csv(write("not_square.csv",
                                   "lp__,a\n# Adaptation terminated\n# Step size = 1\n"
                                   "# Elements of inverse mass matrix:\n# 1, 2\n# 3\n1,2\n")),
               "not_square.csv:6: the dense inverse mass matrix has 2 rows but a row of 1 elements");
}

TEST_F(StanCsvFile, InterruptedRunKeepsEveryRowWritten) {
  // The writer is still open, as if the process were killed now: rows must already be on disk.
  StanCsvWriter out(path("interrupted.csv"), {{"model", "m"}, {"num_samples", "1000"}}, {"lp__", "mu"});
  out.write_adaptation({0.8, {1.5}, false});
  out.write_row(std::vector<double>{-1, 0.1});
  out.write_row(std::vector<double>{-2, 0.2});
  StanCsv csv = read_stan_csv(path("interrupted.csv"));
  EXPECT_EQ(csv.column("mu"), (std::vector<double>{0.1, 0.2}));
  EXPECT_EQ(csv.adaptation.inverse_metric, (std::vector<double>{1.5}));

  out.write_row(std::vector<double>{-3, 0.3});
  csv = read_stan_csv(path("interrupted.csv"));
  EXPECT_EQ(csv.column("mu"), (std::vector<double>{0.1, 0.2, 0.3}));
}

// What a crash or a full disk leaves: the file ends inside its last row, even inside a number.
TEST_F(StanCsvFile, SkipsACutLastRowWithAWarning) {
  {
    StanCsvWriter out(path("whole.csv"), {{"model", "m"}}, {"lp__", "mu"});
    out.write_adaptation({0.8, {1.5}, false});
    out.write_row(std::vector<double>{-1.25, 0.125});
    out.write_row(std::vector<double>{-2.5, 0.375});
  }
  std::ifstream in(path("whole.csv"), std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(whole.ends_with("-2.5,0.375\n"));
  const std::string cut_line = "8";  // after # model, the header, 4 lines of adaptation and the first row
  // The last row cut to "-2.5,0.375" (every field, no line end), "-2.5,0.3" (inside a number),
  // "-2.5,0" and "-2.5" (one field of two).
  for (const std::size_t cut : {std::size_t(1), std::size_t(3), std::size_t(5), std::size_t(7)}) {
    const std::string file = write("cut.csv", whole.substr(0, whole.size() - cut));
    const StanCsv csv = read_stan_csv(file);
    EXPECT_EQ(csv.column("mu"), (std::vector<double>{0.125})) << "cut " << cut;
    EXPECT_NE(csv.warning.find(file + ":" + cut_line + ": the last row is cut short"), std::string::npos)
        << csv.warning;
  }
  EXPECT_EQ(read_stan_csv(path("whole.csv")).warning, "");
  EXPECT_EQ(read_stan_csv(path("whole.csv")).column("mu"), (std::vector<double>{0.125, 0.375}));
  // A short row that has its line end was written so: still an error.
  EXPECT_ERROR(read_stan_csv(write("short.csv", "lp__,mu\n-1,0.1\n-2\n")), "short.csv:3: found 1 fields, expected 2");
}

// Rows far longer than the reader's 1 MiB chunks (a model with 100,000 parameters) read whole,
// with every value where it was written.
TEST_F(StanCsvFile, ReadsRowsLongerThanItsReadChunks) {
  constexpr std::size_t kColumns = 100000;
  std::vector<std::string> names;
  for (std::size_t c = 0; c < kColumns; ++c) names.push_back("x." + std::to_string(c + 1));
  {
    StanCsvWriter out(path("wide.csv"), {{"model", "m"}}, names);
    out.write_adaptation({0.5, std::vector<double>(kColumns, 1.0), false});
    for (int r = 0; r < 3; ++r) {
      std::vector<double> row(kColumns);
      for (std::size_t c = 0; c < kColumns; ++c) row[c] = double(r) + 1e-6 * double(c) + 0.1234567891;
      out.write_row(row);
    }
  }
  const StanCsv csv = read_stan_csv(path("wide.csv"));
  ASSERT_EQ(csv.draws.size(), 3u);
  EXPECT_EQ(csv.columns.size(), kColumns);
  EXPECT_EQ(csv.adaptation.inverse_metric.size(), kColumns);
  for (int r = 0; r < 3; ++r)
    for (const std::size_t c : {std::size_t(0), std::size_t(65535), kColumns - 1})
      EXPECT_EQ(csv.draws[std::size_t(r)][c], double(r) + 1e-6 * double(c) + 0.1234567891) << r << " " << c;
}

// A filter reads only its columns, in file order, and checks only their fields; the header stays whole.
TEST_F(StanCsvFile, ReadsOnlyTheColumnsAFilterKeeps) {
  const std::string file = write("some.csv", "# model = m\nlp__,a,b,c\n-1,0.5,oops,1.5\n-2,0.25,2,3.5\n");
  const StanCsv csv = read_stan_csv(file, [](std::string_view name) { return name == "c" || name == "a"; });
  EXPECT_EQ(csv.header, (std::vector<std::string>{"lp__", "a", "b", "c"}));
  EXPECT_EQ(csv.columns, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(csv.draws, (std::vector<std::vector<double>>{{0.5, 1.5}, {0.25, 3.5}}));
  EXPECT_ERROR(read_stan_csv(file), "some.csv:3: column 'b' (3): 'oops' is not a number");
  EXPECT_ERROR(read_stan_csv(write("short.csv", "a,b\n1\n"), [](std::string_view) { return false; }),
               "short.csv:2: found 1 fields, expected 2");
}

// A write that fails (here the file size limit, as a full disk fails with ENOSPC) stops the writer
// with an error naming the file, and the file keeps whole lines only. In a child process, whose
// file size limit the test may lower.
TEST_F(StanCsvFile, AFailedWriteIsAnErrorAndLeavesWholeRows) {
  const std::string file = path("limited.csv"), message_file = path("message.txt");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);  // the write then fails with EFBIG instead of killing the process
    const rlimit limit{1000, 1000};
    setrlimit(RLIMIT_FSIZE, &limit);
    std::string message = "(no error)";
    try {
      StanCsvWriter out(file, {{"model", "m"}}, {"lp__", "mu", "sigma"});
      for (int i = 0; i < 1000; ++i) out.write_row(std::vector<double>{-1.0 / 3 - i, 2.0 / 3, 0.1 * i});
    } catch (const Error& e) {
      message = e.what();
    }
    std::ofstream(message_file) << message;
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  std::ifstream message_in(message_file);
  const std::string message((std::istreambuf_iterator<char>(message_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(message.find("StanCsvWriter: cannot write to file '" + file + "': File too large"), std::string::npos)
      << message;
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_GT(text.size(), 900u);
  EXPECT_LE(text.size(), 1000u);
  EXPECT_TRUE(text.ends_with("\n"));
  const StanCsv csv = read_stan_csv(file);
  EXPECT_EQ(csv.warning, "");
  EXPECT_GT(csv.draws.size(), 10u);
  for (std::size_t i = 0; i < csv.draws.size(); ++i) EXPECT_EQ(csv.draws[i][2], 0.1 * double(i));
}

TEST_F(StanCsvFile, SeparatesSavedWarmupDraws) {
  // Rows above the adaptation block are warm-up, as CmdStan writes them with save_warmup = 1.
  const Config config = {{"save_warmup", "1"}, {"num_warmup", "5"}, {"thin", "2"}};
  {
    StanCsvWriter out(path("warmup.csv"), config, {"lp__", "x"});
    for (int i = 0; i < 3; ++i) out.write_row(std::vector<double>{-1, double(i)});
    out.write_adaptation({0.5, {1}, false});
    for (int i = 0; i < 2; ++i) out.write_row(std::vector<double>{-1, 10.0 + i});
  }
  const StanCsv csv = read_stan_csv(path("warmup.csv"));
  EXPECT_EQ(csv.warmup_draws, (std::vector<std::vector<double>>{{-1, 0}, {-1, 1}, {-1, 2}}));
  EXPECT_EQ(csv.column("x"), (std::vector<double>{10, 11}));

  // Without the block, the config says how many: num_warmup = 5 and thin = 2 save iterations 0, 2
  // and 4, so 3 rows.
  {
    StanCsvWriter out(path("no_block.csv"), config, {"lp__", "x"});
    for (int i = 0; i < 5; ++i) out.write_row(std::vector<double>{-1, double(i)});
  }
  const StanCsv no_block = read_stan_csv(path("no_block.csv"));
  EXPECT_EQ(no_block.warmup_draws.size(), 3u);
  EXPECT_EQ(no_block.column("x"), (std::vector<double>{3, 4}));

  // Stopped during warm-up (booleans may be written as true/false): every row is warm-up.
  const StanCsv early =
      read_stan_csv(write("early.csv", "#     save_warmup = true\n#     num_warmup = 1000 (Default)\nlp__,x\n1,2\n"));
  EXPECT_EQ(early.warmup_draws.size(), 1u);
  EXPECT_TRUE(early.draws.empty());
  EXPECT_TRUE(early.column("x").empty());

  // num_warmup + thin - 1 overflowed near 2^63.
  const StanCsv most = read_stan_csv(
      write("most.csv", "# save_warmup = 1\n# num_warmup = 9223372036854775807\n# thin = 2\nlp__,x\n1,2\n"));
  EXPECT_EQ(most.warmup_draws.size(), 1u);

  // Without save_warmup no row is warm-up.
  EXPECT_TRUE(read_stan_csv(write("unsaved.csv", "# num_warmup = 4\nlp__,x\n1,2\n")).warmup_draws.empty());

  EXPECT_ERROR(read_stan_csv(write("bad_thin.csv", "# save_warmup = 1\n# thin = 0\nlp__,x\n")),
               "bad_thin.csv: config thin = '0' is not an integer >= 1");
  EXPECT_ERROR(read_stan_csv(write("bad_warmup.csv", "# save_warmup = 1\n# num_warmup = many\nlp__,x\n")),
               "config num_warmup = 'many' is not an integer >= 0");
}

TEST_F(StanCsvFile, ReadsAdaptationBlocksWithoutAMetric) {
  // CmdStan's fixed_param sampler writes no step size; the unit metric writes a note, not a matrix.
  const StanCsv fixed = read_stan_csv(write("fixed.csv",
                                            "lp__,accept_stat__,y\n# Adaptation terminated\n0,0,1.5\n"
                                            "0,0,2.5\n# \n#  Elapsed Time: 0 seconds (Warm-up)\n"));
  EXPECT_TRUE(fixed.has_adaptation);
  EXPECT_EQ(fixed.adaptation.step_size, 0);
  EXPECT_TRUE(fixed.adaptation.inverse_metric.empty());
  EXPECT_EQ(fixed.column("y"), (std::vector<double>{1.5, 2.5}));

  const StanCsv unit = read_stan_csv(write("unit.csv",
                                           "lp__,y\n# Adaptation terminated\n# Step size = 0.75\n"
                                           "# No free parameters for unit metric\n0,1\n"));
  EXPECT_EQ(unit.adaptation.step_size, 0.75);
  EXPECT_TRUE(unit.adaptation.inverse_metric.empty());
  EXPECT_EQ(unit.draws.size(), 1u);
}

TEST_F(StanCsvFile, MissingAndEmptyFilesAreErrors) {
  const std::string absent = path("absent.csv");
  EXPECT_ERROR(read_stan_csv(absent), "read_stan_csv: cannot open file '" + absent + "'");
  EXPECT_ERROR(read_stan_csv(absent), "No such file");
  EXPECT_ERROR(read_stan_csv(write("empty.csv", "")), "empty.csv: the file is empty");
  EXPECT_ERROR(read_stan_csv(write("blank.csv", "\n  \r\n")), "blank.csv: the file is empty");
  EXPECT_ERROR(read_stan_csv(write("comments.csv", "# model = m\n#\n# \n")), "comments.csv: no line of column names");
  EXPECT_ERROR(read_stan_csv(write("numbers.csv", "# model = m\n1,2,3\n")),
               "numbers.csv:2: expected the line of column names");
}

TEST_F(StanCsvFile, MalformedRowsAreErrorsNamingLineAndColumn) {
  const std::string file = write("rows.csv", "# model = m\nlp__,theta,sigma\n1,2,3\n\n4,5\n");
  EXPECT_ERROR(read_stan_csv(file), "read_stan_csv: " + file + ":5: found 2 fields, expected 3");
  EXPECT_ERROR(read_stan_csv(file), "header on line 2");
  EXPECT_ERROR(read_stan_csv(write("long.csv", "lp__,theta\n1,2,3\n")), "long.csv:2: found 3 fields, expected 2");

  const std::string text = write("text.csv", "lp__,theta\n1,2\n3,abc\n");
  EXPECT_ERROR(read_stan_csv(text), text + ":3: column 'theta' (2): 'abc' is not a number");
  EXPECT_ERROR(read_stan_csv(write("empty_field.csv", "lp__,theta\n,2\n")),
               "empty_field.csv:2: column 'lp__' (1): '' is not a number");
  EXPECT_ERROR(read_stan_csv(write("dup.csv", "lp__,theta,theta\n")),
               "dup.csv:1: column name 'theta' appears twice (columns 2 and 3)");
  EXPECT_ERROR(read_stan_csv(write("no_name.csv", "lp__,,theta\n")), "no_name.csv:1: column 2 of the header");
  EXPECT_ERROR(read_stan_csv(write("step.csv", "lp__\n# Adaptation terminated\n# Step size = big\n")),
               "step.csv:3: the step size 'big' is not a number");
  EXPECT_ERROR(read_stan_csv(write("no_diag.csv",
                                   "lp__\n# Adaptation terminated\n# Step size = 1\n"
                                   "# Diagonal elements of inverse mass matrix:\n1\n")),
               "no_diag.csv:5: the adaptation block that starts on line 2 is incomplete");
  EXPECT_ERROR(read_stan_csv(write("diag.csv",
                                   "lp__\n# Adaptation terminated\n# Step size = 1\n"
                                   "# Diagonal elements of inverse mass matrix:\n# 1, x\n")),
               "diag.csv:5: expected the diagonal of the inverse mass matrix");
}

TEST_F(StanCsvFile, MissingColumnNamesTheColumnAndFile) {
  const std::string file = write("bernoulli.csv", kBernoulliCsv);
  const StanCsv csv = read_stan_csv(file);
  EXPECT_ERROR(csv.column("mu"), "StanCsv::column: no column 'mu' in file '" + file + "'");
  EXPECT_ERROR(csv.column("mu"), "lp__, accept_stat__");
}

TEST_F(StanCsvFile, WriterChecksItsArguments) {
  StanCsvWriter out(path("checks.csv"), {}, {"lp__", "theta"});
  EXPECT_ERROR(out.write_row(std::vector<double>{1, 2, 3}),
               "StanCsvWriter::write_row: " + path("checks.csv") + ": expected 2 values (one per column), found 3");
  EXPECT_ERROR(out.write_timing(-1, 2), "expected finite non-negative times");
  EXPECT_ERROR(StanCsvWriter(path("bad.csv"), {}, {"lp__", "a,b"}), "column 2 name 'a,b' is not valid");
  EXPECT_ERROR(StanCsvWriter(path("bad.csv"), {}, {}), "expected at least one column name");
  EXPECT_ERROR(StanCsvWriter(path("bad.csv"), {{"a = b", "1"}}, {"x"}), "config key 'a = b' is not a valid key");
  EXPECT_ERROR(StanCsvWriter(path("bad.csv"), {{"a", "1\n2"}}, {"x"}), "the value of config key 'a' holds a line");
  const std::string nowhere = path("no_such_dir/out.csv");
  EXPECT_ERROR(StanCsvWriter(nowhere, {}, {"x"}), "StanCsvWriter: cannot open file '" + nowhere + "' for writing");
}

TEST(StanColumnNames, FollowStanNamingAndColumnMajorOrder) {
  EXPECT_EQ(stan_column_name("beta", std::vector<std::int64_t>{0, 1}), "beta.1.2");
  EXPECT_EQ(stan_column_name("sigma", {}), "sigma");
  EXPECT_EQ(stan_column_names("sigma", {}), (std::vector<std::string>{"sigma"}));
  EXPECT_EQ(stan_column_names("beta", std::vector<std::int64_t>{2, 3}),
            (std::vector<std::string>{"beta.1.1", "beta.2.1", "beta.1.2", "beta.2.2", "beta.1.3", "beta.2.3"}));
  EXPECT_EQ(stan_column_names("z", std::vector<std::int64_t>{3}), (std::vector<std::string>{"z.1", "z.2", "z.3"}));
  EXPECT_TRUE(stan_column_names("z", std::vector<std::int64_t>{3, 0}).empty());

  EXPECT_EQ(column_major_order(std::vector<std::int64_t>{2, 3}), (std::vector<std::int64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(column_major_order({}), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(column_major_order(std::vector<std::int64_t>{4}), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(column_major_order(std::vector<std::int64_t>{2, 2, 2}),
            (std::vector<std::int64_t>{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_TRUE(column_major_order(std::vector<std::int64_t>{0, 2}).empty());

  // Names and offsets agree: the element at row-major offset order[i] is named names[i].
  const std::vector<std::int64_t> shape = {2, 3, 4};
  const auto names = stan_column_names("w", shape);
  const auto order = column_major_order(shape);
  ASSERT_EQ(names.size(), 24u);
  ASSERT_EQ(order.size(), 24u);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::int64_t offset = order[i];
    const std::vector<std::int64_t> index = {offset / 12, offset / 4 % 3, offset % 4};
    EXPECT_EQ(names[i], stan_column_name("w", index));
  }

  EXPECT_ERROR(stan_column_name("beta", std::vector<std::int64_t>{1, -1}), "index 1 of site 'beta' is -1");
  EXPECT_ERROR(stan_column_names("beta", std::vector<std::int64_t>{2, -3}), "dimension 1 of the shape is -3");
  EXPECT_ERROR(column_major_order(std::vector<std::int64_t>{-1}), "column_major_order: dimension 0");
}

}  // namespace
}  // namespace variate::data
