#pragma once
// Runs the `variate` binary for the end-to-end tests (tests/cli/, which define VARIATE_CLI_PATH).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The rows of draws of a Stan CSV file as text (no comments, no header), to compare runs exactly.
inline std::vector<std::string> draw_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> rows;
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (!header) rows.push_back(line);
    header = false;
  }
  return rows;
}

/// The rows of draws in a Stan CSV file being written (lines that are not comments, less the header).
inline int draw_rows(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  int rows = 0;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') ++rows;
  return rows - 1;
}

struct InterruptedRun {
  bool stopped;     // exited within 20 s of the signal (otherwise it was killed)
  int exit_code;    // -1 unless it exited normally
  int signal;       // the signal that ended it; 0 when it exited
  std::string log;  // stdout and stderr together
};

/// Runs `variate args...` with its output in `log`, sends `signal` once `ready()` is true (or after
/// 30 s), and waits for it to stop.
template <class Ready>
InterruptedRun interrupt_when(const std::vector<std::string>& args, const std::string& log, Ready ready, int signal) {
  const pid_t pid = fork();
  if (pid < 0) return {false, -1, 0, "fork failed"};
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv{const_cast<char*>("variate")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::signal(signal, SIG_DFL);  // an ignored signal would stay ignored across execv
    execv(VARIATE_CLI_PATH, argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!ready() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(pid, signal);
  int status = 0;
  bool stopped = true;
  const auto stop_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > stop_deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      stopped = false;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {stopped, WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
          read_text(log)};
}

/// interrupt_when `watched` holds `rows` rows of draws.
inline InterruptedRun interrupt_after_rows(const std::vector<std::string>& args, const std::string& log,
                                           const std::string& watched, int rows, int signal = SIGINT) {
  return interrupt_when(
      args, log, [&] { return draw_rows(watched) >= rows; }, signal);
}

}  // namespace variate::testing
