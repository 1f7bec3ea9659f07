#include "variate/tensor/replay.hpp"

#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "tensor/recording_state.hpp"

namespace variate {
namespace detail {

constinit thread_local RecordingState* t_recording = nullptr;

namespace {

// A recording that holds more than this in intermediate values is not kept: replays pay off for
// small computations, and a big one would pin its intermediates for the life of the replay.
constexpr std::size_t kMaxRecordedBytes = std::size_t(256) << 20;

}  // namespace

Backend* recording_backend() { return t_recording ? t_recording->recorder.get() : nullptr; }

// Host code that reads a constant (the data, or what kernels computed from constants) decides the
// same at every replay; host code that reads a value computed from the input would not be run again.
void note_host_access(const Storage* s, bool write) {
  RecordingState* state = t_recording;
  if (s == nullptr || state == nullptr) return;
  if (state->depends.contains(s->data)) {  // the input itself, or computed from it
    state->stop(
        "host code touched a value computed from the input (control flow on values, a host-side loop, a "
        "collective over devices, or a check not made with host_check)");
  } else if (write && state->fresh.contains(s->data)) {
    state->host_written.insert(s->data);
  }
}

}  // namespace detail

KernelReplay::KernelReplay(std::vector<detail::ReplayStep> steps) : steps_(std::move(steps)) {
  kernels_.reserve(steps_.size());
  for (const detail::ReplayStep& step : steps_) kernels_.push_back(step.bound);
}
KernelReplay::~KernelReplay() = default;

bool KernelReplay::run() const {
  const std::size_t n = kernels_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const detail::BoundKernel& k = kernels_[i];
    if (k.run != nullptr) {
      k.run(k);
    } else if (!steps_[i].run()) {
      return false;
    }
  }
  return true;
}

std::size_t KernelReplay::size() const { return steps_.size(); }

std::size_t KernelReplay::bound() const {
  std::size_t n = 0;
  for (const detail::BoundKernel& k : kernels_) n += k.run != nullptr;
  return n;
}

KernelRecorder::KernelRecorder(const Tensor& input) : state_(std::make_unique<State>()) {
  state_->input = input;
  if (detail::t_recording != nullptr) {
    state_->why_not = "a recording is already active on this thread";
    return;
  }
  state_->device = &backend(input.device());
  state_->depends.insert(detail::block(input));
  state_->recorder = detail::make_recording_backend(*state_, detail::kernel_binder(input.device()));
  detail::t_recording = state_.get();
}

KernelRecorder::~KernelRecorder() {
  if (detail::t_recording == state_.get()) detail::t_recording = nullptr;
}

const std::string& KernelRecorder::why_not() const { return state_->why_not; }

std::unique_ptr<KernelReplay> KernelRecorder::finish(std::initializer_list<Tensor> outputs) {
  State& s = *state_;
  if (detail::t_recording == &s) detail::t_recording = nullptr;
  if (!s.why_not.empty()) return nullptr;
  using Block = const void*;
  std::unordered_map<Block, int> writers;
  for (const auto& step : s.steps)
    for (Block w : step.writes) {
      if (!s.fresh.contains(w)) {
        s.why_not = "a kernel wrote into a tensor that existed before the evaluation (data or a cache)";
        return nullptr;
      }
      ++writers[w];
    }
  // A step must run again if it reads the input, or anything computed from it, or a block written
  // more than once (whose value at that point only a replay of every writer reproduces). The rest
  // computed constants while recording, and their results stay in the blocks the replay holds.
  std::unordered_set<Block> variable{detail::block(s.input)};
  const auto rewritten = [&](Block b) {
    auto it = writers.find(b);
    return it != writers.end() && it->second > 1;
  };
  std::vector<bool> runs(s.steps.size(), false);
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const auto& step = s.steps[i];
    bool v = false;
    for (Block r : step.reads) v = v || variable.contains(r) || rewritten(r);
    for (Block w : step.writes) v = v || rewritten(w);
    runs[i] = v || step.collective;
    if (runs[i]) variable.insert(step.writes.begin(), step.writes.end());
  }
  // Keep only what the outputs (and the checks) depend on.
  std::unordered_set<Block> needed;
  for (const Tensor& out : outputs) needed.insert(detail::block(out));
  std::vector<bool> keep(s.steps.size(), false);
  bool collective = false, may_differ = false;  // among the kept steps
  for (std::size_t i = s.steps.size(); i-- > 0;) {
    const auto& step = s.steps[i];
    if (!runs[i]) continue;
    bool live = step.guard || step.collective;
    for (Block w : step.writes) live = live || needed.contains(w);
    if (!live) continue;
    keep[i] = true;
    collective = collective || step.collective;
    may_differ = may_differ || step.may_differ;
    needed.insert(step.reads.begin(), step.reads.end());
  }
  if (collective && may_differ) {
    s.why_not = "a collective over devices and a kernel whose outcome may change at replay (Cholesky)";
    return nullptr;
  }
  std::size_t bytes = 0;
  for (Block b : needed)
    if (auto it = s.fresh.find(b); it != s.fresh.end()) bytes += it->second;
  if (bytes > detail::kMaxRecordedBytes) {
    s.why_not = "the evaluation's intermediate values are too large to keep";
    return nullptr;
  }
  std::vector<detail::ReplayStep> kept;
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (keep[i]) kept.push_back(std::move(s.steps[i]));
  s.steps.clear();
  return std::make_unique<KernelReplay>(std::move(kept));
}

Tensor replayable_collective(std::initializer_list<Tensor> reads, std::function<Tensor()> compute) {
  detail::RecordingState* state = detail::t_recording;
  if (state == nullptr) return compute();
  Tensor result;
  {
    detail::Suspend off;
    result = compute();
  }
  // Allocated through the recording, so that the replay may write it.
  Tensor out = Tensor::empty(result.shape(), result.dtype(), result.device());
  {
    detail::Suspend off;
    backend(out.device()).copy(result, out);
  }
  detail::ReplayStep step;
  step.collective = true;
  for (const Tensor& t : reads)
    if (t.defined()) step.reads.push_back(detail::block(t));
  step.writes.push_back(detail::block(out));
  step.run = [compute = std::move(compute), out]() mutable {
    backend(out.device()).copy(compute(), out);
    return true;
  };
  // Other devices' values: host code that reads the result reads something the replay changes.
  state->depends.insert(step.writes[0]);
  state->steps.push_back(std::move(step));
  return out;
}

bool same_at_every_replay(const Tensor& t) {
  const detail::RecordingState* state = detail::t_recording;
  return state == nullptr || !state->depends.contains(detail::block(t));
}

void not_replayable(const char* why) {
  if (detail::t_recording != nullptr) detail::t_recording->stop(why);
}

void detail::keep_host_check(std::initializer_list<Tensor> reads, std::function<void()> check) {
  detail::RecordingState* state = detail::t_recording;
  {
    detail::Suspend off;
    check();
  }
  detail::ReplayStep step;
  step.guard = true;
  for (const Tensor& t : reads)
    if (t.defined()) step.reads.push_back(detail::block(t));
  step.run = [check = std::move(check)] {
    check();
    return true;
  };
  state->steps.push_back(std::move(step));
}

bool detail::keep_host_decision(std::initializer_list<Tensor> reads, std::function<bool()> decide) {
  detail::RecordingState* state = detail::t_recording;
  bool choice = false;
  {
    detail::Suspend off;
    choice = decide();
  }
  detail::ReplayStep step;
  step.guard = true;  // kept whether or not the outputs read what it reads
  step.may_differ = true;
  for (const Tensor& t : reads)
    if (t.defined()) step.reads.push_back(detail::block(t));
  step.run = [decide = std::move(decide), choice] { return decide() == choice; };
  state->steps.push_back(std::move(step));
  return choice;
}

}  // namespace variate
