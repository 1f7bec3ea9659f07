#pragma once
// Runs the `variate` binary for the end-to-end tests (tests/cli/, which define VARIATE_CLI_PATH).
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace variate::testing {

struct CliOutcome {
  int exit_code;
  std::string output;  // stdout and stderr together
};

inline CliOutcome run_cli(const std::string& args) {
  const std::string command = std::string(VARIATE_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace variate::testing
