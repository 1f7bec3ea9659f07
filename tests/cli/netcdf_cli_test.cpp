// End-to-end tests of `variate sample --output-format`: the netCDF file of a run, opened group by
// group with Debian's xarray (as arviz.from_netcdf opens it), has ArviZ's InferenceData layout and
// every value of the CSV files; a run killed with SIGKILL leaves a readable file whose draws are
// the first rows of its CSV; netcdf alone writes no CSV. Without netCDF the option's error says so.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using variate::testing::CliOutcome;
using variate::testing::run_cli;
using variate::testing::ScratchDir;

const std::string kRun = "sample --model eight-schools --chains 2 --threads 2 --warmup 150 --quiet --seed 3";

#ifndef VARIATE_TEST_NETCDF

TEST(NetcdfCli, WithoutNetcdfTheOptionSaysSo) {
  const ScratchDir dir("cli_netcdf_none");
  const CliOutcome r = run_cli(kRun + " --draws 10 --output-format both --output " + (dir / "run"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("built without netCDF"), std::string::npos) << r.output;
  GTEST_SKIP() << "netCDF not found: variate was built without netCDF output (install libnetcdf-dev)";
}

#else

const std::string kPython = "/usr/bin/python3";  // Debian's, with python3-xarray (a pyenv python has none)
const std::string kChecker = std::string(VARIATE_SOURCE_DIR) + "/tests/cli/data/check_inference_data.py";
const std::string kEightSchoolsY = "28,8,-3,7,-1,1,18,12";

// Skips the test unless Debian's python has xarray and netCDF4.
#define SKIP_WITHOUT_XARRAY()                                                                                  \
  if (std::system((kPython + " -c \"import importlib.util as u, sys; sys.exit(not (u.find_spec('xarray') and " \
                             "u.find_spec('netCDF4')))\"")                                                     \
                      .c_str()) != 0)                                                                          \
  GTEST_SKIP() << kPython << " cannot import xarray and netCDF4 (install python3-xarray and python3-netcdf4)"

// Runs the checker on run folder `out`; its output, and whether it passed.
CliOutcome check_run(const std::string& out, const std::string& dtype, bool killed) {
  const std::string command = kPython + " " + kChecker + " " + out + "/eight-schools.nc " + dtype + " " +
                              kEightSchoolsY + " " + out + "/eight-schools-1.csv " + out + "/eight-schools-2.csv" +
                              (killed ? " --killed" : "") + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(NetcdfCli, BothWritesAnInferenceDataFileHoldingTheCsvDraws) {
  SKIP_WITHOUT_XARRAY();
  const ScratchDir dir("cli_netcdf_both");
  const std::string out = dir / "run";
  const CliOutcome r = run_cli(kRun + " --draws 100 --output-format both --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(out + "/eight-schools.nc"), std::string::npos) << r.output;
  const CliOutcome check = check_run(out, "float64", false);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("ok: 3600 posterior values"), std::string::npos) << check.output;  // 2 x 100 x 18
}

// The tool runs (f32, so the file stores float) until chain 1's CSV holds 200 draws and then
// 2.5 s more, longer than the file's sync interval (1 s), and is killed with SIGKILL.
TEST(NetcdfCli, AKilledRunLeavesAReadableFileWithItsFirstDraws) {
  SKIP_WITHOUT_XARRAY();
  const ScratchDir dir("cli_netcdf_killed");
  const std::string out = dir / "run";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string command = std::string(VARIATE_CLI_PATH) + " " + kRun +
                                " --draws 1000000 --precision f32 --output-format both --output " + out +
                                " > /dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (variate::testing::draw_rows(out + "/eight-schools-1.csv") < 200 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
  const CliOutcome check = check_run(out, "float32", true);
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

TEST(NetcdfCli, NetcdfAloneWritesNoCsv) {
  const ScratchDir dir("cli_netcdf_only");
  const std::string out = dir / "run";
  const CliOutcome r = run_cli(kRun + " --draws 20 --output-format netcdf --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out + "/eight-schools.nc"));
  EXPECT_TRUE(fs::exists(out + "/summary.csv"));
  EXPECT_FALSE(fs::exists(out + "/eight-schools-1.csv"));
  // An earlier run's netCDF file is one of the run's files: refused without --overwrite.
  const CliOutcome again = run_cli(kRun + " --draws 20 --output-format netcdf --output " + out);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.output.find("eight-schools.nc"), std::string::npos) << again.output;
  const CliOutcome report = run_cli(kRun + " --draws 20 --output-format netcdf --report --output " + (dir / "r"));
  EXPECT_NE(report.output.find("--report reads the CSV files"), std::string::npos) << report.output;
}

#endif

}  // namespace
