#pragma once
// The kernels' threads: tasks [0, n) shared between the calling thread and helper threads of its
// own, so that the call returns as soon as every task has run, whichever threads ran them.
//
// A fork-join region (OpenMP's) returns only once every thread of its team has checked in. On a
// shared machine one of them is often descheduled for a whole time slice (milliseconds) while the
// kernel takes microseconds, and the others spin waiting for it: vectorized chains on 2 threads ran
// 3x slower than on 1 while another process held a core. Here a helper that starts late finds its
// share taken by the others and has nothing to do, and the caller waits only for tasks a running
// helper has started, spinning briefly and then sleeping so that the core goes to the late thread.
// Helpers that keep missing the calls that wake them are left asleep for a while (HelperBackoff).
#include <cstdint>
#include <type_traits>

namespace variate::cpu {

// Runs call(task, k) for every k in [0, tasks) on up to `threads` threads (parallel_tasks).
void run_parallel_tasks(std::int64_t tasks, int threads, void (*call)(const void*, std::int64_t), const void* task);

/// Calls task(k) once for every k in [0, tasks), on the calling thread and up to threads - 1
/// helpers. Thread t starts on its own contiguous share of the tasks, front to back (so that a
/// share's data stays in one core's caches from call to call); a thread that has finished its share
/// takes tasks from the back of the others'. Which thread runs a task depends on timing, so a task
/// must compute the same bits wherever it runs. A call from inside a task runs serially, on the
/// task's thread. The first exception a task throws is rethrown once every started task has ended.
template <class Fn>
void parallel_tasks(std::int64_t tasks, int threads, Fn&& task) {
  using F = std::remove_reference_t<Fn>;
  run_parallel_tasks(
      tasks, threads, [](const void* f, std::int64_t k) { (*static_cast<F*>(const_cast<void*>(f)))(k); },
      static_cast<const void*>(&task));
}

}  // namespace variate::cpu
