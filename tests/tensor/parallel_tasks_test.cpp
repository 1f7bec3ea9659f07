// parallel_tasks: every task runs once, a call returns without waiting for a helper thread that
// cannot run (as one descheduled on a shared machine), calls stop waking a helper that keeps
// missing them and probe it again later (HelperBackoff), a task's exception reaches the caller, a
// call from inside a task runs on the task's thread, a steady-state call allocates nothing, and a
// forked child runs calls of its own and exits.
#include "tensor/cpu/parallel_tasks.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/heap_allocations.hpp"
#include "tensor/cpu/helper_backoff.hpp"

namespace variate::cpu {
namespace {

using namespace std::chrono_literals;

// This process's threads, by kernel thread id (Linux).
std::set<long> thread_ids() {
  std::set<long> ids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    ids.insert(std::stol(entry.path().filename().string()));
  return ids;
}

// The scheduler state of a thread of this process: 'R' running, 'S' sleeping, ...
char thread_state(long id) {
  std::ifstream in("/proc/self/task/" + std::to_string(id) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto name_end = stat.rfind(')');
  return name_end != std::string::npos && name_end + 2 < stat.size() ? stat[name_end + 2] : '?';
}

// Polls `done` every millisecond for up to 10 s; returns done().
template <class Done>
bool eventually(Done done) {
  for (int i = 0; i < 10000 && !done(); ++i) std::this_thread::sleep_for(1ms);
  return done();
}

// A thread that receives SIGUSR1 is held in the handler until `release` (at most 20 s): it cannot
// run, as a thread descheduled for a long time cannot.
std::atomic<bool> held{false}, release{false};
extern "C" void hold(int) {
  held = true;
  for (int i = 0; i < 20000 && !release; ++i) {
    const timespec millisecond{0, 1000000};
    nanosleep(&millisecond, nullptr);
  }
  held = false;
}

TEST(ParallelTasks, RunsEveryTaskOnce) {
  for (const int threads : {1, 2, 3, 8}) {
    for (const std::int64_t tasks : {0, 1, 2, 7, 100}) {
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(tasks));
      parallel_tasks(tasks, threads, [&](std::int64_t k) { ++runs[std::size_t(k)]; });
      for (std::int64_t k = 0; k < tasks; ++k)
        EXPECT_EQ(runs[std::size_t(k)], 1) << "task " << k << " of " << tasks << ", threads " << threads;
    }
  }
}

// Starts the calling thread's pool with one helper, by a call whose two tasks each wait (up to
// 10 s) for the other to start, so that the helper runs one; holds the helper (SIGUSR1, once it
// sleeps, holding no lock of the pool) and sets `helper` to its thread id. The caller must be a
// thread of its own, so that its pool's helper is the only thread the call starts.
void start_and_hold_a_helper(long& helper) {
  const std::set<long> before = thread_ids();
  std::atomic<int> started{0};
  parallel_tasks(2, 2, [&](std::int64_t) {
    ++started;
    eventually([&] { return started == 2; });
  });
  ASSERT_EQ(started, 2);
  std::vector<long> new_threads;
  for (const long id : thread_ids())
    if (!before.count(id)) new_threads.push_back(id);
  ASSERT_EQ(new_threads.size(), 1u) << "the first call on 2 threads starts one helper";
  helper = new_threads[0];
  ASSERT_TRUE(eventually([&] { return thread_state(helper) == 'S'; })) << "the helper never went to sleep";
  ASSERT_EQ(syscall(SYS_tgkill, getpid(), helper, SIGUSR1), 0);
  ASSERT_TRUE(eventually([] { return held.load(); }));
}

// Installs `hold` as the SIGUSR1 handler while it lives; lets a held helper go at the end.
class HoldOnSignal {
 public:
  HoldOnSignal() {
    release = false;
    struct sigaction action {};
    action.sa_handler = hold;
    sigemptyset(&action.sa_mask);
    EXPECT_EQ(sigaction(SIGUSR1, &action, &previous_), 0);
  }
  ~HoldOnSignal() {
    release = true;
    eventually([] { return !held; });
    sigaction(SIGUSR1, &previous_, nullptr);
  }

 private:
  struct sigaction previous_ {};
};

TEST(ParallelTasks, ACallDoesNotWaitForAHelperThatCannotRun) {
  const HoldOnSignal signal;
  std::thread caller([] {
    long helper = 0;
    start_and_hold_a_helper(helper);
    if (::testing::Test::HasFatalFailure()) return;

    std::vector<std::thread::id> ran_on(64);
    parallel_tasks(64, 2, [&](std::int64_t k) { ran_on[std::size_t(k)] = std::this_thread::get_id(); });
    EXPECT_TRUE(held) << "the call returned only once the held helper was let go";
    for (std::size_t k = 0; k < ran_on.size(); ++k) EXPECT_EQ(ran_on[k], std::this_thread::get_id()) << "task " << k;

    release = true;
    EXPECT_TRUE(eventually([] { return !held; }));
    std::vector<std::atomic<int>> runs(64);
    parallel_tasks(64, 2, [&](std::int64_t k) { ++runs[std::size_t(k)]; });
    for (std::size_t k = 0; k < runs.size(); ++k) EXPECT_EQ(runs[k], 1) << "task " << k << " after the release";
  });
  caller.join();
}

TEST(ParallelTasks, CallsStopWakingAHelperThatMissesThemAndProbeItLater) {
  const HoldOnSignal signal;
  std::thread caller([] {
    long helper = 0;
    start_and_hold_a_helper(helper);
    if (::testing::Test::HasFatalFailure()) return;
    // While held, the helper misses every call that wakes it; `expected` follows the pool's backoff.
    HelperBackoff expected;
    for (int call = 0; call < HelperBackoff::kMissesBeforeBackoff; ++call) {
      ASSERT_TRUE(expected.wake_helpers());
      expected.record(false);
      parallel_tasks(8, 2, [](std::int64_t) {});
    }
    // Calls to come run on the caller alone: the helper, let go and asleep again once it has found
    // nothing left of the calls it missed, could take tasks only if woken.
    release = true;
    ASSERT_TRUE(eventually([] { return !held; }));
    ASSERT_TRUE(eventually([&] { return thread_state(helper) == 'S'; })) << "the helper never went to sleep";
    const auto here = std::this_thread::get_id();
    std::int64_t serial = 0;
    for (; !expected.wake_helpers(); ++serial) {
      std::atomic<int> started{0};
      std::vector<std::thread::id> ran_on(2);
      parallel_tasks(2, 2, [&](std::int64_t k) {
        ran_on[std::size_t(k)] = std::this_thread::get_id();
        ++started;
        // Long enough for a woken helper to take the other task.
        for (int i = 0; i < 20 && started < 2; ++i) std::this_thread::sleep_for(1ms);
      });
      ASSERT_EQ(ran_on[0], here) << "serial call " << serial;
      ASSERT_EQ(ran_on[1], here) << "serial call " << serial;
    }
    EXPECT_GT(serial, 0) << "the missed calls started a serial stretch";
    // The probe's first call wakes the helper: each of its two tasks waits for the other to start.
    std::atomic<int> started{0};
    std::atomic<int> elsewhere{0};
    parallel_tasks(2, 2, [&](std::int64_t) {
      elsewhere += std::this_thread::get_id() != here;
      ++started;
      eventually([&] { return started == 2; });
    });
    EXPECT_EQ(elsewhere, 1) << "the probe's call was shared with the helper";
  });
  caller.join();
}

TEST(ParallelTasks, RethrowsATasksExceptionOnceEveryTaskHasRun) {
  std::atomic<int> runs{0};
  EXPECT_THROW(parallel_tasks(16, 2,
                              [&](std::int64_t k) {
                                ++runs;
                                if (k == 11) throw std::runtime_error("task 11 failed");
                              }),
               std::runtime_error);
  EXPECT_EQ(runs, 16);
}

TEST(ParallelTasks, ACallFromATaskRunsOnTheTasksThread) {
  std::vector<std::atomic<int>> runs(4 * 8);
  std::atomic<bool> moved{false};
  parallel_tasks(4, 2, [&](std::int64_t k) {
    const auto outer = std::this_thread::get_id();
    parallel_tasks(8, 2, [&](std::int64_t j) {
      if (std::this_thread::get_id() != outer) moved = true;
      ++runs[std::size_t(k * 8 + j)];
    });
  });
  EXPECT_FALSE(moved);
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i], 1) << "outer " << i / 8 << ", inner " << i % 8;
}

TEST(ParallelTasks, TwoThreadsCallAtOnce) {
  constexpr int kTasks = 50;
  std::vector<std::atomic<int>> runs(2 * kTasks);
  std::vector<std::thread> callers;
  for (int c = 0; c < 2; ++c)
    callers.emplace_back([&, c] {
      for (int repeat = 0; repeat < 20; ++repeat)
        parallel_tasks(kTasks, 2, [&](std::int64_t k) { ++runs[std::size_t(c * kTasks + k)]; });
    });
  for (std::thread& t : callers) t.join();
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i], 20) << "caller " << i / kTasks;
}

TEST(ParallelTasks, CallsOnChangingThreadCountsRunEveryTaskOnce) {
  // The call's state is reused: helpers woken for one call may still be looking at the shares when
  // the next, on a different number of threads, begins.
  std::vector<std::atomic<int>> runs(37);
  const int thread_counts[] = {2, 4, 1, 3, 2, 5};
  for (int repeat = 0; repeat < 300; ++repeat) {
    const int threads = thread_counts[repeat % 6];
    parallel_tasks(37, threads, [&](std::int64_t k) { ++runs[std::size_t(k)]; });
    for (std::size_t k = 0; k < runs.size(); ++k)
      ASSERT_EQ(runs[k].exchange(0), 1) << "task " << k << ", call " << repeat << " on " << threads << " threads";
  }
}

TEST(ParallelTasks, ASteadyStateCallAllocatesNothing) {
  std::vector<std::atomic<int>> runs(64);
  const auto call = [&] { parallel_tasks(64, 3, [&](std::int64_t k) { ++runs[std::size_t(k)]; }); };
  call();  // starts the helpers
  const std::int64_t before = testing::heap_allocations();
  for (int repeat = 0; repeat < 100; ++repeat) call();
  EXPECT_EQ(testing::heap_allocations() - before, 0);
  for (std::size_t k = 0; k < runs.size(); ++k) EXPECT_EQ(runs[k], 101) << "task " << k;
}

TEST(ParallelTasks, AForkedChildRunsTasksAndExits) {
#if defined(__SANITIZE_ADDRESS__)
  // LeakSanitizer's check at exit cannot stop the threads of a child forked from a threaded
  // process, and fails the child's exit whatever the pool does.
  GTEST_SKIP() << "not under AddressSanitizer (its leak check fails in forked children)";
#endif
  std::vector<std::atomic<int>> runs(64);
  const auto call = [&] { parallel_tasks(64, 2, [&](std::int64_t k) { ++runs[std::size_t(k)]; }); };
  call();  // this thread's pool has a helper, which the child will not have
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a child that hangs (waiting for the parent's helper) dies instead
    for (auto& r : runs) r = 0;
    for (int repeat = 0; repeat < 10; ++repeat) call();
    bool each_ten_times = true;
    for (auto& r : runs) each_ten_times = each_ten_times && r == 10;
    std::exit(each_ten_times ? 0 : 1);  // exit, not _exit: thread-local and static destructors run
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a task of the child's calls did not run exactly once";
  call();  // the parent's pool is unchanged
  for (std::size_t k = 0; k < runs.size(); ++k) EXPECT_EQ(runs[k], 2) << "task " << k;
}

}  // namespace
}  // namespace variate::cpu
