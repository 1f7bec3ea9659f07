#pragma once
// What a kernel recording (tensor/replay.hpp) keeps while it lives: the steps recorded so far and
// which blocks depend on the input. Shared by the recording backend, which adds the kernel calls,
// and replay.cpp, which adds the host checks and collectives and turns the steps into a replay.
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tensor/kernel_binder.hpp"
#include "variate/tensor/backend.hpp"

namespace variate::detail {

/// One recorded call, with the blocks it reads and writes (by element pointer: views share it).
struct ReplayStep {
  std::function<bool()> run;  // false: a host-visible kernel result differs from the recording's
  BoundKernel bound;          // the same call bound to its operands (run holds them), when bound
  std::vector<const void*> reads, writes;
  bool guard = false;       // a host_check or host_decision
  bool collective = false;  // a replayable_collective: always runs
  bool may_differ = false;  // run can return false (a host-visible result that changed)
};

struct RecordingState {
  Backend* device = nullptr;  // the real backend
  std::unique_ptr<Backend> recorder;
  Tensor input;
  std::vector<ReplayStep> steps;
  std::unordered_map<const void*, std::size_t> fresh;  // blocks allocated while recording -> bytes
  std::unordered_set<const void*> depends;             // blocks whose values depend on the input
  std::unordered_set<const void*> host_written;        // fresh blocks host code may have written
  std::string why_not;

  void stop(const std::string& reason) {
    if (why_not.empty()) why_not = reason;
    if (t_recording == this) t_recording = nullptr;
  }
};

/// Turns the recording off on this thread while host code that is not recorded runs (a kernel, a
/// host_check), and back on after.
class Suspend {
 public:
  Suspend() : saved_(t_recording) { t_recording = nullptr; }
  ~Suspend() { t_recording = saved_; }
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  RecordingState* saved_;
};

/// A block is identified by its element pointer, which the caching allocator gives to one live
/// block at a time and views share.
inline const void* block(const Tensor& t) {
  Suspend off;
  return t.defined() ? t.raw() : nullptr;
}

/// The backend that forwards every kernel to state.device and records it into `state`, binding
/// what the device's binder can bind.
std::unique_ptr<Backend> make_recording_backend(RecordingState& state, const KernelBinder* binder);

}  // namespace variate::detail
