#pragma once
// One process's part of an MPI mesh: its device threads exchange locally, and the thread that
// called Mesh::run exchanges their contributions with the other ranks in rounds.
//
// Protocol. Each run is a sequence of rounds, the same on every rank. A round starts on a rank
// when each of its devices has *settled*: it waits in a collective (with its op and tensor), has
// returned from the run's function, or has failed (with its message). The rank then sends every
// local device's state, in one all-gather (mpi_transport.hpp), so all ranks see every device's
// state in device order and take the same decision (tensors of 32 KiB or more follow the all-gather
// as point-to-point messages between the tensors' own memory, when every device waits):
//   - all devices wait in a collective: the round is that collective; every device gets the
//     device-ordered tensors and the run goes on;
//   - otherwise the run ends: with the error of the lowest failed device, or, when none failed but
//     some returned while others wait in a collective, with that mismatch; with success when all
//     returned. Waiting devices are released with detail::Aborted.
// A failing device therefore still takes part, through its rank, in the round the others wait in,
// and the last round of every run is the status exchange all ranks agree on: no rank hangs.
//
// Who plays a round: the last device to settle into a collective plays it itself, on its own
// thread, so that a collective costs no thread wake-ups on a rank with one device (waking a
// sleeping thread costs 10-30 us on these virtual machines, and a sharded gradient makes two
// collectives). A round that starts because a device returned or failed is played by the thread
// that called Mesh::run (`drive`), which also returns once a round has concluded the run.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "distribute/mpi_transport.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::distribute::detail {

class MpiRank {
 public:
  /// Joins the MPI mesh (collective: every rank constructs its MpiRank at the same point).
  MpiRank(std::string axis, int threads_per_rank);

  int size() const { return ranks() * local_count_; }
  int ranks() const { return transport_.ranks(); }
  int first_device() const { return transport_.rank() * local_count_; }
  int local_count() const { return local_count_; }
  int ranks_on_node() const { return transport_.ranks_on_node(); }

  /// Called by Mesh::run before the device threads start.
  void begin_run();

  // On device thread `local` (0 .. local_count - 1) while it runs the function:
  /// Every device's `x` in device order, valid until this device's next exchange.
  std::span<const Tensor> exchange(int local, const char* op, const Tensor& x);
  void returned(int local);
  void failed(int local, std::exception_ptr error);

  /// On the thread that called Mesh::run, while the devices run: the rounds that no device plays.
  /// Returns once every rank knows the outcome.
  void drive();
  /// After every device thread has stopped: throws the run's agreed error, if any.
  void end_run();

 private:
  enum class State : std::uint8_t { running, waiting, returned, failed };
  struct Device {
    State state = State::running;
    const char* op = "";
    Tensor x;
    std::exception_ptr error;
  };
  struct Entry;  // a device's state as every rank decodes it

  std::vector<char> encode() const;
  std::vector<Entry> decode(const GatheredBytes& all) const;
  void receive_sent_apart(std::vector<Entry>& entries);
  std::exception_ptr outcome_of(const std::vector<Entry>& entries) const;
  void conclude(std::exception_ptr outcome);
  void play_round(std::unique_lock<std::mutex>& lock);

  const std::string axis_;
  const int local_count_;
  MpiTransport transport_;

  std::mutex mutex_;
  std::condition_variable settled_cv_;   // the driver waits until no device is running, or the end
  std::condition_variable released_cv_;  // waiting devices wait for the round's result
  std::vector<Device> devices_;
  int running_ = 0;
  std::uint64_t collective_ = 0;  // the number of the round in progress, counted per run
  bool concluded_ = false;
  bool in_round_ = false;  // a thread is playing the round (the lock is released for the exchange)
  std::exception_ptr outcome_;
  // The last completed collective: every device's tensor and op, in device order.
  std::vector<Tensor> tensors_;
  std::vector<std::string> ops_;
};

}  // namespace variate::distribute::detail
