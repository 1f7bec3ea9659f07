#pragma once
// Ctrl-C (SIGINT), SIGTERM and SIGHUP while sampling: the handler only sets a flag the sampler polls
// between iterations, so the draws made so far are written and kept, whichever way the run is told
// to stop (a terminal, `kill`, a batch system's time limit, a closed session). SA_RESETHAND puts
// the default action back, so a second signal ends the process at once.
#include <signal.h>

#include <atomic>
#include <iterator>

namespace variate::cli {

class StopSignalScope {
 public:
  StopSignalScope();  // clears the flag and installs the handlers
  ~StopSignalScope();
  StopSignalScope(const StopSignalScope&) = delete;
  StopSignalScope& operator=(const StopSignalScope&) = delete;
  /// Set once a stop signal arrived (inference::SamplerOptions::stop).
  static const std::atomic<bool>* flag();
  /// The shell's exit status for a run a signal stopped: 128 + the signal's number (130 for
  /// SIGINT), or 130 where the stop came from another device, not a signal to this process.
  static int exit_status();

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[std::size(kSignals)]{};
};

}  // namespace variate::cli
