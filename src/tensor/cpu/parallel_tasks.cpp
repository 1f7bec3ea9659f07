#include "tensor/cpu/parallel_tasks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "variate/core/error.hpp"

namespace variate::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// How long a waiting thread spins before it sleeps. Waking a sleeping thread costs 10-30 us on
// these virtual machines, so a short spin catches a kernel that follows the last one closely; a
// long one (OpenMP spins up to 300,000 pauses, milliseconds) holds a core that a descheduled
// thread of the same call may be waiting for.
constexpr auto kSpin = std::chrono::microseconds(50);

// Spins until ready() or kSpin has passed; returns ready(). The spinner yields now and then, so
// that a thread waiting for this core (another process's, or with more threads than cores the one
// this spinner waits for) gets it at once.
template <class Ready>
bool spin_until(Ready ready) {
  const auto deadline = Clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0) {
      if (Clock::now() > deadline) return ready();
      std::this_thread::yield();
    }
  }
}

// Whether this thread is running a task (a helper always is): a parallel_tasks call from a task
// runs serially, as the pool has one call at a time.
thread_local bool in_task = false;

// One call's tasks. Shared with the helpers that took it, so that a helper that wakes late finds
// the call's state still there, with nothing left to claim: `call` and `task` are used only after a
// claim succeeds, and the caller returns only once every claimed task has ended.
class Job {
 public:
  Job(std::int64_t tasks, int threads, void (*call)(const void*, std::int64_t), const void* task)
      : call_(call), task_(task), tasks_(tasks), shares_(static_cast<std::size_t>(threads)) {
    for (int t = 0; t < threads; ++t)
      shares_[std::size_t(t)].range.store(pack(tasks * t / threads, tasks * (t + 1) / threads),
                                          std::memory_order_relaxed);
  }

  int threads() const { return int(shares_.size()); }

  // Runs share `self` front to back, then takes tasks from the back of the other shares.
  void work(int self) {
    const int n = threads();
    for (std::int64_t k; (k = claim(self, true)) >= 0;) run(k);
    for (int other = 1; other < n; ++other)
      for (std::int64_t k; (k = claim((self + other) % n, false)) >= 0;) run(k);
  }

  // Returns once every task has ended (the caller has claimed all that no helper started).
  void wait() {
    const auto all_done = [&] { return done_.load(std::memory_order_acquire) == tasks_; };
    if (spin_until(all_done)) return;
    // Either the last task's thread sees caller_sleeps_ and notifies, or the check under the mutex
    // sees its count (both are sequentially consistent).
    caller_sleeps_.store(true);
    std::unique_lock lock(mutex_);
    all_done_.wait(lock, all_done);
  }

  void rethrow_error() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct alignas(64) Share {
    std::atomic<std::uint64_t> range;  // the share's tasks still to run, [next, end), packed
  };

  static std::uint64_t pack(std::int64_t next, std::int64_t end) {
    return std::uint64_t(next) << 32 | std::uint64_t(end);
  }

  // Claims one task of share t, from its front or its back, with one compare-and-swap, so that the
  // owner and a thief never take the same task; -1 when the share is empty.
  std::int64_t claim(int t, bool front) {
    std::atomic<std::uint64_t>& range = shares_[std::size_t(t)].range;
    std::uint64_t r = range.load(std::memory_order_acquire);
    for (;;) {
      const auto next = std::int64_t(r >> 32), end = std::int64_t(r & 0xffffffffu);
      if (next >= end) return -1;
      const std::uint64_t claimed = front ? pack(next + 1, end) : pack(next, end - 1);
      if (range.compare_exchange_weak(r, claimed, std::memory_order_acquire)) return front ? next : end - 1;
    }
  }

  void run(std::int64_t k) {
    try {
      call_(task_, k);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    if (done_.fetch_add(1) + 1 == tasks_ && caller_sleeps_.load()) {
      std::lock_guard lock(mutex_);
      all_done_.notify_one();
    }
  }

  void (*const call_)(const void*, std::int64_t);
  const void* const task_;
  const std::int64_t tasks_;
  std::vector<Share> shares_;
  std::atomic<std::int64_t> done_{0};
  std::atomic<bool> caller_sleeps_{false};
  std::mutex mutex_;
  std::condition_variable all_done_;
  std::exception_ptr error_;  // the first a task threw (under mutex_)
};

// The helper threads of one calling thread (each thread that runs kernels has its own, as each
// device of a thread mesh and each worker of threaded chains runs its own kernels). Helper i works
// on share i of a call, so a call on t threads uses helpers 1 to t - 1.
class Pool {
 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : helpers_) t.join();
  }

  // Hands `job` to its helpers, starting those not started yet.
  void start(const std::shared_ptr<Job>& job) {
    while (int(helpers_.size()) < job->threads() - 1) {
      const int index = int(helpers_.size()) + 1;
      helpers_.emplace_back([this, index] { help(index); });
    }
    std::lock_guard lock(mutex_);
    job_ = job;
    generation_.fetch_add(1, std::memory_order_release);
    if (sleepers_ > 0) wake_.notify_all();
  }

 private:
  void help(int index) {
    in_task = true;
    std::uint64_t seen = 0;
    for (;;) {
      std::shared_ptr<Job> job;
      {
        const auto published = [&] { return generation_.load(std::memory_order_acquire) != seen; };
        spin_until(published);
        std::unique_lock lock(mutex_);
        ++sleepers_;
        wake_.wait(lock, published);
        --sleepers_;
        if (stopping_) return;
        seen = generation_.load(std::memory_order_relaxed);
        job = job_;
      }
      if (index < job->threads()) job->work(index);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> generation_{0};  // calls published (and one more when stopping)
  std::shared_ptr<Job> job_;                  // the last call published (under mutex_)
  int sleepers_ = 0;                          // helpers waiting on wake_ (under mutex_)
  bool stopping_ = false;                     // (under mutex_)
  std::vector<std::thread> helpers_;
};

}  // namespace

void run_parallel_tasks(std::int64_t tasks, int threads, void (*call)(const void*, std::int64_t), const void* task) {
  threads = int(std::clamp<std::int64_t>(tasks, 1, std::max(1, threads)));
  if (threads == 1 || in_task) {
    for (std::int64_t k = 0; k < tasks; ++k) call(task, k);
    return;
  }
  VARIATE_CHECK(tasks < (std::int64_t(1) << 32), "parallel_tasks", "at most 2^32 tasks, got ", tasks);
  thread_local Pool pool;
  const auto job = std::make_shared<Job>(tasks, threads, call, task);
  pool.start(job);
  in_task = true;
  job->work(0);
  in_task = false;
  job->wait();
  job->rethrow_error();
}

}  // namespace variate::cpu
