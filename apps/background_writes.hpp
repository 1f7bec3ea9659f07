#pragma once
// Writes that the sampling threads hand to one thread of their own, so that a checkpoint costs the
// sampling thread a copy of its chain's state instead of three trips to the disk (each fsync takes
// milliseconds). Each slot (a chain) holds at most one waiting write: a newer one replaces it, as
// the newer checkpoint would overwrite the older at once anyway, so a slow disk never holds up
// sampling and never piles up writes.
//
//   BackgroundWrites writes(chains);
//   writes.submit(chain, [state] { write_checkpoint(path, state); });   // on a sampling thread
//   writes.flush();                                                      // at the end of the run
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
  explicit BackgroundWrites(std::size_t slots);
  /// Finishes the waiting writes (their errors go unreported: call flush to see them).
  ~BackgroundWrites();
  BackgroundWrites(const BackgroundWrites&) = delete;
  BackgroundWrites& operator=(const BackgroundWrites&) = delete;

  /// Queues `write` in `slot`, replacing the slot's write that has not started yet. Thread-safe.
  /// Rethrows the error of an earlier write, which stops all further writes.
  void submit(std::size_t slot, std::function<void()> write);
  /// Waits until every queued write is done; rethrows the first write's error.
  void flush();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable queued_, done_;
  std::vector<std::function<void()>> waiting_;  // per slot; empty: nothing waits
  std::size_t next_ = 0;                        // the slot to look at first, so that none starves
  bool writing_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: it starts once the members above are ready
};

}  // namespace variate::cli
