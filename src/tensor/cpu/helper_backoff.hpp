#pragma once
// Whether a call of parallel_tasks wakes its pool's helper threads or runs on the calling thread
// alone.
//
// On a shared machine a woken helper can wait for a core for a whole time slice (milliseconds)
// while a kernel call takes microseconds: with one core held by another process, the helper of
// vectorized chains on 2 threads ran under 1% of the tasks. Waking it still costs the caller a
// system call per call, the helper's spin takes time from the threads that run, and a task it
// starts just before being descheduled is one the caller must wait for (a time slice). So after
// kMissesBeforeBackoff calls in a row that the caller ran alone, the next calls run on the caller
// without waking the helpers; then kMissesBeforeBackoff calls probe again. Each probe that finds
// the helpers still absent doubles the serial stretch, up to kMaxSerialCalls; a call in which a
// helper runs a task returns it to kFirstSerialCalls. Which thread runs a task never changes what
// it computes, so neither does this.
#include <algorithm>
#include <cstdint>

namespace variate::cpu {

class HelperBackoff {
 public:
  // Calls in a row without a helper's task that start a serial stretch (also the length of a probe:
  // a helper asleep takes tens of microseconds to wake, longer than a small call, so one call is
  // too short a probe on an idle machine).
  static constexpr int kMissesBeforeBackoff = 8;
  static constexpr std::int64_t kFirstSerialCalls = 16;
  static constexpr std::int64_t kMaxSerialCalls = 1024;

  /// Whether the next call wakes the helpers (then record() says whether one of them helped).
  bool wake_helpers() {
    if (serial_left_ == 0) return true;
    --serial_left_;
    return false;
  }

  /// After a call that woke the helpers: whether a helper ran one of its tasks.
  void record(bool helped) {
    if (helped) {
      misses_ = 0;
      serial_calls_ = kFirstSerialCalls;
      return;
    }
    if (++misses_ < kMissesBeforeBackoff) return;
    misses_ = 0;
    serial_left_ = serial_calls_;
    serial_calls_ = std::min(2 * serial_calls_, kMaxSerialCalls);
  }

 private:
  int misses_ = 0;                                 // calls in a row that no helper helped
  std::int64_t serial_left_ = 0;                   // calls still to run without the helpers
  std::int64_t serial_calls_ = kFirstSerialCalls;  // the next serial stretch
};

}  // namespace variate::cpu
