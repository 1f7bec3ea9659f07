#include "tensor/cpu/parallel_tasks.hpp"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "tensor/cpu/helper_backoff.hpp"
#include "variate/core/error.hpp"

namespace variate::cpu {
namespace {

using Clock = std::chrono::steady_clock;
using Call = void (*)(const void*, std::int64_t);

// How long a waiting thread spins before it sleeps. Waking a sleeping thread costs 10-30 us on
// these virtual machines, so a short spin catches a kernel that follows the last one closely; a
// long one (OpenMP spins up to 300,000 pauses, milliseconds) holds a core that a descheduled
// thread of the same call may be waiting for.
constexpr auto kSpin = std::chrono::microseconds(50);

// The most threads one call uses: the shares live in a fixed array, so that a helper that wakes
// late never reads memory the caller has since moved.
constexpr int kMaxThreads = 256;

// Spins until ready() or kSpin has passed; returns ready(). The spinner does not yield: a thread
// that yields goes behind the others on its core (Linux's EEVDF scheduler pushes its deadline
// back), and with another process's busy loop there it lost a whole tick (4 ms) each time, where
// one that sleeps and is woken runs again at once.
template <class Ready>
bool spin_until(Ready ready) {
  const auto deadline = Clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0 && Clock::now() > deadline) return ready();
  }
}

// Whether this thread is running a task (a helper always is): a parallel_tasks call from a task
// runs serially, on the task's thread.
thread_local bool in_task = false;

std::uint64_t pack(std::int64_t next, std::int64_t end) { return std::uint64_t(next) << 32 | std::uint64_t(end); }

// The helper threads of one calling thread, and the one call of it in progress. Each thread that
// runs kernels has a pool of its own (each device of a thread mesh and each worker of threaded
// chains runs its own kernels), so calls from different threads never meet, and a call is never
// waiting for a helper busy with another thread's tasks. Helper i works on share i of a call, so a
// call on t threads uses helpers 1 to t - 1.
//
// The call's state is reused from call to call, so that a call allocates nothing. A helper that
// wakes late may find a later call in the shares: whatever call a claim succeeds on is the one in
// progress (the caller cannot finish it before the claimed task has ended), so the task runs with
// that call's function and counts towards it.
class Pool {
 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // The helpers sleep (or spin) between calls, so they see the stop at once and end.
  ~Pool() {
    stopping_.store(true);
    for (std::size_t h = 1; h <= helpers_.size(); ++h) wake(int(h));
    for (const pthread_t helper : helpers_) pthread_join(helper, nullptr);
  }

  // Runs call(task, k) for every k in [0, tasks) on this thread and threads - 1 helpers, or on this
  // thread alone while the helpers have been missing the calls that woke them (HelperBackoff).
  void run(std::int64_t tasks, int threads, Call call, const void* task) {
    start_helpers(threads - 1);
    const bool wake_helpers = backoff_.wake_helpers();
    if (!wake_helpers) threads = 1;
    // Every share is empty between calls; the stores below publish the call to any helper that
    // claims one of its tasks (release, paired with the claim's acquire).
    call_ = call;
    task_ = task;
    threads_.store(threads, std::memory_order_relaxed);
    remaining_.store(std::uint32_t(tasks), std::memory_order_relaxed);
    for (int t = 0; t < threads; ++t)
      slots_[std::size_t(t)].range.store(pack(tasks * t / threads, tasks * (t + 1) / threads),
                                         std::memory_order_release);
    for (int h = 1; h < threads; ++h) wake(h);
    in_task = true;
    const std::int64_t ran_here = work(0, threads);
    in_task = false;
    wait_for_started_tasks();
    if (wake_helpers) backoff_.record(ran_here < tasks);
    if (failed_.load(std::memory_order_relaxed)) {
      failed_.store(false, std::memory_order_relaxed);
      std::rethrow_exception(std::exchange(error_, nullptr));
    }
  }

  // In the child of a fork only the forking thread lives on: the helpers are gone (joining them
  // would wait forever), and the next call starts new ones.
  void forget_helpers() {
    helpers_.clear();
    for (Slot& slot : slots_) {
      slot.range.store(0, std::memory_order_relaxed);
      slot.wake.store(0, std::memory_order_relaxed);
    }
  }

 private:
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> range{0};  // the share's tasks still to run, [next, end), packed
    std::atomic<std::uint32_t> wake{0};   // bumped to hand a call to helper i (or to stop it)
  };

  struct Start {
    Pool* pool;
    int index;
  };

  static void* helper_main(void* arg) {
    const Start start = *static_cast<Start*>(arg);
    delete static_cast<Start*>(arg);
    start.pool->help(start.index);
    return nullptr;
  }

  // Starts helpers until there are `count` (allocating only when the count grows).
  void start_helpers(int count) {
    helpers_.reserve(std::size_t(count));
    while (int(helpers_.size()) < count) {
      auto* start = new Start{this, int(helpers_.size()) + 1};
      pthread_t helper;
      const int error = pthread_create(&helper, nullptr, &Pool::helper_main, start);
      if (error != 0) delete start;
      VARIATE_CHECK(error == 0, "parallel_tasks", "could not start a helper thread: ", std::strerror(error));
      helpers_.push_back(helper);
    }
  }

  // A read-modify-write, sequentially consistent like the waiter count notify_one reads, so that
  // a helper about to sleep either sees the new value or is woken.
  void wake(int helper) {
    std::atomic<std::uint32_t>& word = slots_[std::size_t(helper)].wake;
    word.fetch_add(1);
    word.notify_one();
  }

  void help(int index) {
    in_task = true;
    std::atomic<std::uint32_t>& word = slots_[std::size_t(index)].wake;
    for (std::uint32_t seen = 0;;) {
      if (!spin_until([&] { return word.load(std::memory_order_acquire) != seen; })) word.wait(seen);
      seen = word.load(std::memory_order_acquire);
      if (stopping_.load()) return;
      work(index, threads_.load(std::memory_order_relaxed));
    }
  }

  // Runs share `self` front to back, then takes tasks from the back of the other shares; returns
  // how many tasks it ran.
  std::int64_t work(int self, int threads) {
    if (self >= threads) return 0;  // a helper woken for an earlier call that used more threads
    std::int64_t ran = 0;
    for (std::int64_t k; (k = claim(self, true)) >= 0; ++ran) execute(k);
    for (int other = 1; other < threads; ++other)
      for (std::int64_t k; (k = claim((self + other) % threads, false)) >= 0; ++ran) execute(k);
    return ran;
  }

  // Claims one task of share t, from its front or its back, with one compare-and-swap, so that the
  // owner and a thief never take the same task; -1 when the share is empty.
  std::int64_t claim(int t, bool front) {
    std::atomic<std::uint64_t>& range = slots_[std::size_t(t)].range;
    std::uint64_t r = range.load(std::memory_order_relaxed);
    for (;;) {
      const auto next = std::int64_t(r >> 32), end = std::int64_t(r & 0xffffffffu);
      if (next >= end) return -1;
      const std::uint64_t claimed = front ? pack(next + 1, end) : pack(next, end - 1);
      if (range.compare_exchange_weak(r, claimed, std::memory_order_acquire, std::memory_order_relaxed))
        return front ? next : end - 1;
    }
  }

  void execute(std::int64_t k) {
    try {
      call_(task_, k);
    } catch (...) {
      if (!failed_.exchange(true)) error_ = std::current_exception();
    }
    // The last task wakes the caller if it sleeps (a sequentially consistent read-modify-write, as
    // in wake).
    if (remaining_.fetch_sub(1) == 1) remaining_.notify_one();
  }

  // Returns once every task has ended. The caller has claimed every task no helper started, so it
  // waits only for tasks running on helpers: briefly spinning, then asleep, so that a helper
  // waiting for a core gets this one.
  void wait_for_started_tasks() {
    if (spin_until([&] { return remaining_.load(std::memory_order_acquire) == 0; })) return;
    for (std::uint32_t r; (r = remaining_.load()) != 0;) remaining_.wait(r);
  }

  std::array<Slot, kMaxThreads> slots_;  // slot i: share i, and helper i's wake-up word
  Call call_ = nullptr;                  // the call in progress (see the class comment)
  const void* task_ = nullptr;
  std::atomic<int> threads_{0};
  std::atomic<std::uint32_t> remaining_{0};  // tasks of the call not yet ended
  std::atomic<bool> failed_{false};          // set by the first task that throws, which sets error_
  std::exception_ptr error_;
  std::atomic<bool> stopping_{false};
  HelperBackoff backoff_;           // touched by the calling thread only
  std::vector<pthread_t> helpers_;  // helper i is helpers_[i - 1]
};

// This thread's pool, made by its first call on more than one thread and ended with the thread.
thread_local std::unique_ptr<Pool> pool;

void forget_helpers_after_fork() {
  if (pool) pool->forget_helpers();
}

Pool& this_threads_pool() {
  if (!pool) {
    static const int registered = pthread_atfork(nullptr, nullptr, &forget_helpers_after_fork);
    VARIATE_CHECK(registered == 0, "parallel_tasks",
                  "could not register the fork handler: ", std::strerror(registered));
    pool = std::make_unique<Pool>();
  }
  return *pool;
}

}  // namespace

void run_parallel_tasks(std::int64_t tasks, int threads, Call call, const void* task) {
  threads = int(std::clamp<std::int64_t>(tasks, 1, std::clamp(threads, 1, kMaxThreads)));
  // Inside an OpenMP region (a program's own loop over work that runs kernels) the region's threads
  // already share the cores, as a nested region's would have.
  if (threads == 1 || in_task || omp_in_parallel()) {
    for (std::int64_t k = 0; k < tasks; ++k) call(task, k);
    return;
  }
  VARIATE_CHECK(tasks < (std::int64_t(1) << 32), "parallel_tasks", "at most 2^32 - 1 tasks, got ", tasks);
  this_threads_pool().run(tasks, threads, call, task);
}

}  // namespace variate::cpu
