#pragma once
// Writes that the sampling threads hand to one thread of their own, so that a checkpoint costs the
// sampling thread a copy of its chain's state instead of three trips to the disk (each fsync takes
// milliseconds). Each slot (a chain) holds at most one waiting write: a newer one replaces it, as
// the newer checkpoint would overwrite the older at once anyway, so a slow disk never holds up
// sampling and never piles up writes. A slot is written at most once per `min_interval`: a write
// that comes sooner waits (and is replaced by newer ones) until the interval is over, so that a
// model fast enough to reach its checkpoints many times a second does not spend its processors
// on the disk's bookkeeping (fsync's journal commits run at normal priority).
//
//   BackgroundWrites writes(chains, std::chrono::seconds(1));
//   writes.submit(chain, [state] { write_checkpoint(path, state); });   // on a sampling thread
//   writes.flush();                                                      // at the end of the run
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace variate::cli {

class BackgroundWrites {
 public:
  using Clock = std::chrono::steady_clock;
  BackgroundWrites(std::size_t slots, Clock::duration min_interval);
  /// Finishes the waiting writes at once (their errors go unreported: call flush to see them).
  ~BackgroundWrites();
  BackgroundWrites(const BackgroundWrites&) = delete;
  BackgroundWrites& operator=(const BackgroundWrites&) = delete;

  /// Queues `write` in `slot`, replacing the slot's write that has not started yet. Thread-safe.
  /// Rethrows the error of an earlier write, which stops all further writes.
  void submit(std::size_t slot, std::function<void()> write);
  /// Does every queued write now, whatever the interval, and waits until they are done; rethrows
  /// the first write's error.
  void flush();

 private:
  void run();
  // The next waiting write that may start now (round-robin from next_), or nullptr; `due` becomes
  // the earliest time a waiting write may start, or Clock::time_point::max() when none waits.
  std::function<void()> take_due(Clock::time_point now, Clock::time_point& due);

  const Clock::duration min_interval_;
  std::mutex mutex_;
  std::condition_variable queued_, done_;
  std::vector<std::function<void()>> waiting_;  // per slot; empty: nothing waits
  std::vector<Clock::time_point> last_start_;   // per slot: when its last write started
  std::size_t next_ = 0;                        // the slot to look at first, so that none starves
  int flushing_ = 0;                            // flush calls under way: the interval is ignored
  bool writing_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: it starts once the members above are ready
};

}  // namespace variate::cli
