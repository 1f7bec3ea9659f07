#include "stop_signals.hpp"

namespace variate::cli {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the stop flag must be safe to set in a signal handler");
extern "C" void on_stop_signal(int signal) {
  g_signal.store(signal);
  g_stop.store(true);
}

}  // namespace

StopSignalScope::StopSignalScope() {
  g_stop.store(false);
  g_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &action, &previous_[i]);
}

StopSignalScope::~StopSignalScope() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

const std::atomic<bool>* StopSignalScope::flag() { return &g_stop; }

int StopSignalScope::exit_status() {
  const int signal = g_signal.load();
  return 128 + (signal != 0 ? signal : SIGINT);
}

}  // namespace variate::cli
