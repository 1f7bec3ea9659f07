#pragma once
// Ctrl-C while sampling: the handler only sets a flag the sampler polls between iterations, so the
// draws made so far are written and kept. SA_RESETHAND puts the default action back, so a second
// Ctrl-C ends the process at once.
#include <signal.h>

#include <atomic>

namespace variate::cli {

class SigintScope {
 public:
  SigintScope();  // clears the flag and installs the handler
  ~SigintScope();
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;
  /// Set once SIGINT arrived (inference::SamplerOptions::stop).
  static const std::atomic<bool>* flag();

 private:
  struct sigaction previous_ {};
};

}  // namespace variate::cli
