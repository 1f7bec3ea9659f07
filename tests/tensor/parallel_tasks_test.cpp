// parallel_tasks: every task runs once, a call returns without waiting for a helper thread that
// cannot run (as one descheduled on a shared machine), a task's exception reaches the caller, a
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

TEST(ParallelTasks, ACallDoesNotWaitForAHelperThatCannotRun) {
  struct sigaction action {};
  struct sigaction previous {};
  action.sa_handler = hold;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);
  // A thread of its own, so that its pool's one helper is the only thread the first call starts.
  std::thread caller([] {
    const std::set<long> before = thread_ids();
    parallel_tasks(2, 2, [](std::int64_t) {});
    std::vector<long> started;
    for (const long id : thread_ids())
      if (!before.count(id)) started.push_back(id);
    ASSERT_EQ(started.size(), 1u) << "the first call on 2 threads starts one helper";
    const long helper = started[0];
    // Once asleep waiting for the next call, the helper holds no lock of the pool.
    ASSERT_TRUE(eventually([&] { return thread_state(helper) == 'S'; })) << "the helper never went to sleep";
    ASSERT_EQ(syscall(SYS_tgkill, getpid(), helper, SIGUSR1), 0);
    ASSERT_TRUE(eventually([] { return held.load(); }));

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
  release = true;
  sigaction(SIGUSR1, &previous, nullptr);
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
