// Thread devices: one persistent thread per device, a barrier that fails instead of hanging, and
// exchange slots double-buffered by collective number. On an MPI mesh the same threads are this
// rank's devices, and their exchanges and outcomes go through the rank protocol (mpi_rank.hpp).
#include "variate/distribute/mesh.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "distribute/communicator.hpp"
#include "distribute/mpi_rank.hpp"
#include "variate/core/error.hpp"

namespace variate::distribute {
namespace {

using detail::Aborted;

// A barrier for n devices that never waits forever: when a device fails (its function threw) or
// returns (it will reach no further barrier), every waiter wakes and every later arrival throws.
//
// A waiter first spins for a while, then sleeps on the condition variable. Waking a sleeping thread
// costs 10-30 us on these virtual machines, and a sharded gradient or NUTS step makes several
// collectives: a psum of a scalar on 2 devices took 13-26 us with sleeping alone, 2-4 us with the
// spin. Spinning only pays while the devices it waits for are running: with more devices than
// cores, or with another process on a core, the device waited for is often off its core, a spin
// cannot end early and only takes CPU time from it (eight schools on 2 devices with a core held
// spun in 9 of 10 collectives in vain). So the spin time adapts, as an adaptive mutex's does: it
// halves after a spin that ended in sleeping and doubles after one that completed, between
// kMinSpin and kMaxSpin, and a waiter spins at most that long before it sleeps.
class Rendezvous {
 public:
  explicit Rendezvous(int n) : n_(n), spin_(n <= default_device_count()) {}

  // The bounds of the spin time, in nanoseconds. The least keeps probing whether spinning pays again.
  static constexpr std::int64_t kMinSpin = 1'000, kMaxSpin = 200'000;

  void reset() {
    std::lock_guard lock(mutex_);
    arrived_ = 0;
    failed_ = finished_ = -1;
    ended_.store(false, std::memory_order_relaxed);
  }

  // Returns once all n devices have arrived; `op`, `axis` and `collective` only name the call.
  void arrive(int device, const char* op, const std::string& axis, std::uint64_t collective) {
    std::unique_lock lock(mutex_);
    if (failed_ < 0 && finished_ < 0) {
      const std::uint64_t generation = generation_.load(std::memory_order_relaxed);
      if (++arrived_ == n_) {
        arrived_ = 0;
        // Release: a spinner that sees the new generation sees every device's exchange slot, written
        // before that device locked the mutex to arrive.
        generation_.store(generation + 1, std::memory_order_release);
        cv_.notify_all();
        return;
      }
      if (spin_) {
        lock.unlock();
        if (spin_until_changed(generation)) return;
        lock.lock();
      }
      const auto completed = [&] { return generation_.load(std::memory_order_relaxed) != generation; };
      cv_.wait(lock, [&] { return completed() || failed_ >= 0 || finished_ >= 0; });
      if (completed()) return;  // even if a device failed afterwards
    }
    std::ostringstream out;
    if (failed_ >= 0) {
      out << op << " over axis '" << axis << "' (collective #" << collective << " on device " << device
          << "): aborted because device " << failed_ << " failed";
      throw Aborted(out.str());
    }
    ::variate::detail::fail(op, " over axis '", axis, "': device ", finished_,
                            " returned from the run's function while device ", device, " waits in its collective #",
                            collective, "; every device must call the same collectives in the same order");
  }

  void fail(int device) { mark(failed_, device); }
  void finish(int device) { mark(finished_, device); }

 private:
  // Whether the barrier of `generation` completed within the spin time; false also when a device
  // failed or returned, which the caller then reports under the mutex. Adapts the spin time.
  bool spin_until_changed(std::uint64_t generation) {
    using Clock = std::chrono::steady_clock;
    const std::int64_t budget = spin_ns_.load(std::memory_order_relaxed);
    const auto deadline = Clock::now() + std::chrono::nanoseconds(budget);
    for (int i = 1;; ++i) {
      if (generation_.load(std::memory_order_acquire) != generation) {
        spin_ns_.store(std::min(kMaxSpin, 2 * budget), std::memory_order_relaxed);
        return true;
      }
      if (ended_.load(std::memory_order_relaxed)) return false;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if (i % 64 == 0 && Clock::now() > deadline) {
        spin_ns_.store(std::max(kMinSpin, budget / 2), std::memory_order_relaxed);
        return false;
      }
    }
  }

  void mark(int& which, int device) {
    std::lock_guard lock(mutex_);
    which = which < 0 ? device : std::min(which, device);
    ended_.store(true, std::memory_order_relaxed);
    cv_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  const int n_;
  const bool spin_;
  int arrived_ = 0;
  std::atomic<std::uint64_t> generation_ = 0;
  std::atomic<std::int64_t> spin_ns_ = kMaxSpin;  // the spin time, shared by the devices; see above
  std::atomic<bool> ended_ = false;               // a device failed or returned (failed_ or finished_ is set)
  int failed_ = -1;                               // lowest device whose function threw, or -1
  int finished_ = -1;                             // lowest device whose function returned, or -1
};

class ThreadCommunicator;
// The communicator of the device running on this thread, null outside Mesh::run.
thread_local detail::Communicator* current = nullptr;

}  // namespace

struct Mesh::Impl {
  // A thread mesh of n devices, or (ranks != null) this rank's n devices of an MPI mesh.
  Impl(int n, std::string axis_name, std::unique_ptr<detail::MpiRank> ranks = nullptr)
      : n(n),
        axis(std::move(axis_name)),
        ranks(std::move(ranks)),
        first(this->ranks ? this->ranks->first_device() : 0),
        global_n(this->ranks ? this->ranks->size() : n),
        // The kernel threads of the creating thread (the cores, or OMP_NUM_THREADS when set) are
        // shared by all devices of the ranks running on the machine.
        omp_threads(std::max(1, omp_get_max_threads() / (n * (this->ranks ? this->ranks->ranks_on_node() : 1)))),
        rendezvous(n),
        errors(std::size_t(n)),
        aborted(std::size_t(n)) {
    for (auto& t : tensors) t.resize(std::size_t(n));
    for (auto& o : ops) o.resize(std::size_t(n), "");
  }

  void worker(int device);
  void start();
  void stop();

  const int n;  // the devices (threads) of this process
  const std::string axis;
  const std::unique_ptr<detail::MpiRank> ranks;  // null for a thread mesh
  const int first;                               // the global index of this process's device 0
  const int global_n;                            // the devices of the whole mesh
  const int omp_threads;
  Rendezvous rendezvous;
  // Exchange slots. Collective k uses buffer k % 2: a device writes its slot of buffer k % 2 only
  // after the barrier of collective k - 1, which every device reaches only after it has finished
  // reading buffer k % 2 for collective k - 2. So one barrier per collective suffices.
  std::array<std::vector<Tensor>, 2> tensors;
  std::array<std::vector<const char*>, 2> ops;
  std::vector<std::unique_ptr<ThreadCommunicator>> comms;
  std::vector<std::thread> threads;

  // The job queue of the pool: one job (a run) at a time.
  std::mutex mutex;
  std::condition_variable start_cv, done_cv;
  std::uint64_t job_number = 0;
  int running = 0;
  bool stopping = false;
  const std::function<void(int)>* job = nullptr;
  std::vector<std::exception_ptr> errors;
  std::vector<char> aborted;  // whether errors[i] is an Aborted (a consequence, not a cause)

  std::mutex run_mutex;  // serializes runs
};

namespace {

class ThreadCommunicator final : public detail::Communicator {
 public:
  // `index` is the device's index within this process.
  ThreadCommunicator(Mesh::Impl& mesh, int index) : mesh_(mesh), index_(index) {}
  int index() const override { return mesh_.first + index_; }
  int size() const override { return mesh_.global_n; }
  const std::string& axis() const override { return mesh_.axis; }
  void begin_run() { collective_ = 0; }

  std::span<const Tensor> exchange(const char* op, const Tensor& x) override {
    if (mesh_.ranks) return mesh_.ranks->exchange(index_, op, x);
    const std::uint64_t k = collective_++;
    const std::size_t buffer = k % 2;
    mesh_.tensors[buffer][std::size_t(index_)] = x;
    mesh_.ops[buffer][std::size_t(index_)] = op;
    mesh_.rendezvous.arrive(index_, op, mesh_.axis, k);
    const auto& ops = mesh_.ops[buffer];
    // Every device runs the same check on the same slots, so all throw the same message.
    for (std::size_t i = 1; i < ops.size(); ++i)
      if (std::strcmp(ops[i], ops[0]) != 0)
        ::variate::detail::fail("collective #", k, " over axis '", mesh_.axis, "': device 0 calls ", ops[0],
                                " but device ", i, " calls ", ops[i],
                                "; every device must call the same collectives in the same order");
    return mesh_.tensors[buffer];
  }

 private:
  Mesh::Impl& mesh_;
  const int index_;
  std::uint64_t collective_ = 0;
};

[[noreturn]] void rethrow_device_error(const std::exception_ptr& error, int device, int n, const std::string& axis) {
  std::ostringstream out;
  out << "Mesh::run: device " << device << " of " << n << " (axis '" << axis << "') failed: ";
  const std::string prefix = out.str();
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    std::throw_with_nested(Error(prefix + e.what()));
  } catch (const std::exception& e) {
    std::throw_with_nested(std::runtime_error(prefix + e.what()));
  } catch (...) {
    std::throw_with_nested(std::runtime_error(prefix + "an exception not derived from std::exception"));
  }
}

}  // namespace

void Mesh::Impl::worker(int device) {
  // An OpenMP setting of this thread only: the kernels this device runs share the cores with the
  // other devices instead of each starting one thread per core.
  omp_set_num_threads(omp_threads);
  ThreadCommunicator& comm = *comms[std::size_t(device)];
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* body = nullptr;
    {
      std::unique_lock lock(mutex);
      start_cv.wait(lock, [&] { return stopping || job_number != seen; });
      if (stopping) return;
      seen = job_number;
      body = job;
    }
    comm.begin_run();
    current = &comm;
    std::exception_ptr error;
    bool was_aborted = false;
    try {
      (*body)(first + device);
      if (ranks)
        ranks->returned(device);
      else
        rendezvous.finish(device);
    } catch (const Aborted&) {
      error = std::current_exception();
      was_aborted = true;
    } catch (...) {
      error = std::current_exception();
      if (ranks)
        ranks->failed(device, error);
      else
        rendezvous.fail(device);
    }
    current = nullptr;
    std::lock_guard lock(mutex);
    errors[std::size_t(device)] = std::move(error);
    aborted[std::size_t(device)] = was_aborted;
    if (--running == 0) done_cv.notify_all();
  }
}

void Mesh::Impl::start() {
  for (int i = 0; i < n; ++i) comms.push_back(std::make_unique<ThreadCommunicator>(*this, i));
  try {
    for (int i = 0; i < n; ++i) threads.emplace_back([this, i] { worker(i); });
  } catch (...) {
    stop();
    throw;
  }
}

void Mesh::Impl::stop() {
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  start_cv.notify_all();
  for (std::thread& t : threads)
    if (t.joinable()) t.join();
}

int default_device_count() { return int(std::max(1u, std::thread::hardware_concurrency())); }

Mesh::Mesh(int num_devices, std::string axis) {
  VARIATE_CHECK(num_devices >= 1 && num_devices <= 4096, "Mesh", "the number of devices must be in [1, 4096], got ",
                num_devices);
  VARIATE_CHECK(!axis.empty(), "Mesh", "the axis name must not be empty");
  impl_ = std::make_unique<Impl>(num_devices, std::move(axis));
  impl_->start();
}

Mesh Mesh::mpi(std::string axis, int threads_per_rank) {
  VARIATE_CHECK(threads_per_rank >= 1 && threads_per_rank <= 4096, "Mesh::mpi",
                "threads_per_rank must be in [1, 4096], got ", threads_per_rank);
  VARIATE_CHECK(!axis.empty(), "Mesh::mpi", "the axis name must not be empty");
  auto ranks = std::make_unique<detail::MpiRank>(axis, threads_per_rank);
  auto impl = std::make_unique<Impl>(threads_per_rank, std::move(axis), std::move(ranks));
  impl->start();
  return Mesh(std::move(impl));
}

Mesh::Mesh(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Mesh::Mesh(Mesh&&) noexcept = default;
Mesh& Mesh::operator=(Mesh&& other) noexcept {
  if (this != &other) {
    if (impl_) impl_->stop();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

Mesh::~Mesh() {
  if (impl_) impl_->stop();
}

int Mesh::size() const { return impl_->global_n; }
int Mesh::first_local_device() const { return impl_->first; }
int Mesh::local_device_count() const { return impl_->n; }
const std::string& Mesh::axis() const { return impl_->axis; }
int Mesh::threads_per_device() const { return impl_->omp_threads; }

void Mesh::run_each(const std::function<void(int)>& body) {
  if (current != nullptr)
    ::variate::detail::fail("Mesh::run: called inside a run (on device ", current->index(), " of axis '",
                            current->axis(), "'); runs do not nest");
  Impl& m = *impl_;
  std::lock_guard run_lock(m.run_mutex);
  if (m.ranks)
    m.ranks->begin_run();
  else
    m.rendezvous.reset();
  {
    std::lock_guard lock(m.mutex);
    m.job = &body;
    m.running = m.n;
    ++m.job_number;
  }
  m.start_cv.notify_all();
  // On an MPI mesh this thread exchanges with the other ranks while the devices run.
  if (m.ranks) m.ranks->drive();
  {
    std::unique_lock lock(m.mutex);
    m.done_cv.wait(lock, [&] { return m.running == 0; });
    m.job = nullptr;
  }
  // Release the exchanged tensors now rather than at the next run.
  for (auto& t : m.tensors) std::fill(t.begin(), t.end(), Tensor());
  std::vector<std::exception_ptr> errors(std::size_t(m.n));
  errors.swap(m.errors);
  // Every rank agreed on the outcome in the last round; the local errors are part of it.
  if (m.ranks) return m.ranks->end_run();
  // The lowest device that failed by itself; devices aborted by its failure only follow it.
  int culprit = -1;
  for (int i = 0; i < m.n && culprit < 0; ++i)
    if (errors[std::size_t(i)] && !m.aborted[std::size_t(i)]) culprit = i;
  for (int i = 0; i < m.n && culprit < 0; ++i)
    if (errors[std::size_t(i)]) culprit = i;
  if (culprit >= 0) rethrow_device_error(errors[std::size_t(culprit)], culprit, m.n, m.axis);
}

detail::Communicator& detail::communicator(const char* op, std::string_view axis) {
  if (current == nullptr)
    ::variate::detail::fail(op, ": axis '", axis,
                            "' is not available: no mesh is running on this thread (known axes: none); call ", op,
                            " inside Mesh::run");
  if (axis != current->axis())
    ::variate::detail::fail(op, ": unknown axis '", axis, "' (known axes: '", current->axis(), "')");
  return *current;
}

int axis_index(std::string_view axis) { return detail::communicator("axis_index", axis).index(); }
int axis_size(std::string_view axis) { return detail::communicator("axis_size", axis).size(); }
const std::string* running_axis() { return current == nullptr ? nullptr : &current->axis(); }

}  // namespace variate::distribute
