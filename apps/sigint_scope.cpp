#include "sigint_scope.hpp"

namespace variate::cli {
namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT flag must be safe to set in a signal handler");
extern "C" void on_sigint(int) { g_stop.store(true); }

}  // namespace

SigintScope::SigintScope() {
  g_stop.store(false);
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, &previous_);
}

SigintScope::~SigintScope() { sigaction(SIGINT, &previous_, nullptr); }

const std::atomic<bool>* SigintScope::flag() { return &g_stop; }

}  // namespace variate::cli
