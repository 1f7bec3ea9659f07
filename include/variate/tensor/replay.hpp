#pragma once
// Kernel replay: record the kernel calls one evaluation of a computation makes, then run only those
// calls again for new input values. For a small model a gradient is ~100 kernels on a few numbers
// each, and the host-side work around them (tracing the program, site lookups, the tape, allocation,
// reference counting) costs several times the arithmetic; a replay skips all of it. It is what
// JAX's jit does for a traced function, with the same contract: the computation must be a pure
// function of its input's values.
//
//   KernelRecorder recorder(input);            // input: allocated before, rewritten between runs
//   Tensor out = f(input);                     // the normal evaluation, recorded
//   std::unique_ptr<KernelReplay> replay = recorder.finish({out});
//   ... write new values into input ...; if (replay && replay->run()) read out;
//
// Safety: a computation whose host code reads or writes a value it computed (control flow on
// values, host-side loops) is not replayable: `finish` returns null and the caller keeps evaluating
// normally. A collective over devices made through `replayable_collective` is kept as a step that
// runs at every replay, in its place among the kernels, so that every device makes the same
// collectives whether it replays or evaluates. Argument checks that read computed values are
// recorded with `host_check` and run again at each replay, so a replay throws exactly where the
// evaluation would.
// A kernel whose host-visible result changes at replay time (Cholesky failing), or a choice made on
// computed values with `host_decision` that comes out otherwise, makes `run` return false. Kernels
// whose inputs are all constant run once, while recording; kernels nothing downstream uses are
// dropped.
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "variate/tensor/tensor.hpp"

namespace variate {

namespace detail {
struct ReplayStep;   // tensor/recording_state.hpp
struct BoundKernel;  // tensor/kernel_binder.hpp
}  // namespace detail

/// A recorded sequence of kernel launches that can be run again on new inputs without re-running
/// the host code that produced it.
class KernelReplay {
 public:
  explicit KernelReplay(std::vector<detail::ReplayStep> steps);
  ~KernelReplay();
  KernelReplay(const KernelReplay&) = delete;
  KernelReplay& operator=(const KernelReplay&) = delete;
  /// Runs the recorded kernels on the input's current values. Throws what the evaluation would
  /// throw (a host_check); false if the computation would have taken another path.
  bool run() const;
  std::size_t size() const;
  /// How many of the steps run as calls bound by the device's binder (tensor/kernel_binder.hpp).
  std::size_t bound() const;

 private:
  std::vector<detail::ReplayStep> steps_;  // each step's call, and the tensors it keeps alive
  // Step i's bound call (run == nullptr: not bound), apart from the steps, so that a replay of
  // thousands of scalar calls reads the bound calls, packed together, and not the whole steps.
  std::vector<detail::BoundKernel> kernels_;
};

/// Records the kernel calls made on this thread while it lives (one at a time per thread).
class KernelRecorder {
 public:
  explicit KernelRecorder(const Tensor& input);
  ~KernelRecorder();
  KernelRecorder(const KernelRecorder&) = delete;
  KernelRecorder& operator=(const KernelRecorder&) = delete;

  /// Ends the recording. The replay of the kernels that `outputs` depend on, or null (see why_not()).
  std::unique_ptr<KernelReplay> finish(std::initializer_list<Tensor> outputs);
  /// Why the recording cannot be replayed; empty if it can.
  const std::string& why_not() const;

  using State = detail::RecordingState;

 private:
  std::unique_ptr<State> state_;
};

/// Makes what this thread is recording not replayable. Code whose effects a recording cannot see
/// calls it: a collective, whose values come from other devices outside any kernel.
void not_replayable(const char* why);

namespace detail {
void keep_host_check(std::initializer_list<Tensor> reads, std::function<void()> check);
bool keep_host_decision(std::initializer_list<Tensor> reads, std::function<bool()> decide);
}  // namespace detail

/// A collective over devices: `compute` returns its result from the current values of `reads` and
/// from other devices' values, which reach this device outside any kernel. Outside a recording this
/// is compute(). While recording, compute runs unrecorded, its result is copied into a block of the
/// recording, and the replay keeps a step that runs compute again into that block, whether or not
/// anything downstream changed: every device must make the same collectives in the same order. A
/// recording with such a step and a kernel whose host-visible result may change at replay
/// (Cholesky) is not replayable, since a replay that stopped halfway would have made some of them.
Tensor replayable_collective(std::initializer_list<Tensor> reads, std::function<Tensor()> compute);

/// Whether this thread is recording kernels.
inline bool recording_kernels() { return detail::t_recording != nullptr; }

/// Whether `t` holds the same values at every replay of this thread's recording: it was not computed
/// from the recording's input (true outside a recording). Host code may read such a value and
/// decide on it, as the replay runs only the kernels that depend on the input.
bool same_at_every_replay(const Tensor& t);

/// Runs `check` (host code that reads the values of `reads` and may throw). While recording, it is
/// also kept in the replay, to run again on the replay's values, so it must then own what it
/// captures. Outside a recording it costs nothing more than the check.
template <class Check>
void host_check(std::initializer_list<Tensor> reads, Check check) {
  if (!recording_kernels()) {
    check();
    return;
  }
  detail::keep_host_check(reads, std::function<void()>(std::move(check)));
}

/// Returns decide() (host code that reads the values of `reads` to choose between two paths, such
/// as a bijector's image, which depends on the sign of its scale). While recording, the replay keeps
/// a step that decides again on the replay's values and makes `run` return false when the choice
/// differs from the recording's, as for a Cholesky factorization whose outcome changed: the caller
/// then evaluates normally. `decide` must own what it captures.
template <class Decide>
bool host_decision(std::initializer_list<Tensor> reads, Decide decide) {
  if (!recording_kernels()) return decide();
  return detail::keep_host_decision(reads, std::function<bool()>(std::move(decide)));
}

}  // namespace variate
