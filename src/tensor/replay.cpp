#include "variate/tensor/replay.hpp"

#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "variate/tensor/backend.hpp"

namespace variate {
namespace detail {

constinit thread_local RecordingState* t_recording = nullptr;

namespace {

// A recording that holds more than this in intermediate values is not kept: replays pay off for
// small computations, and a big one would pin its intermediates for the life of the replay.
constexpr std::size_t kMaxRecordedBytes = std::size_t(256) << 20;

// Turns the recording off on this thread while host code that is not recorded runs (a kernel, a
// host_check), and back on after.
class Suspend {
 public:
  Suspend() : saved_(t_recording) { t_recording = nullptr; }
  ~Suspend() { t_recording = saved_; }
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  RecordingState* saved_;
};

}  // namespace

class RecordingBackend;

struct RecordingState {
  Backend* device = nullptr;  // the real backend
  std::unique_ptr<RecordingBackend> recorder;
  Tensor input;
  std::vector<KernelReplay::Step> steps;
  std::unordered_map<const void*, std::size_t> fresh;  // blocks allocated while recording -> bytes
  std::unordered_set<const void*> depends;             // blocks whose values depend on the input
  std::unordered_set<const void*> host_written;        // fresh blocks host code may have written
  std::string why_not;

  void stop(const std::string& reason) {
    if (why_not.empty()) why_not = reason;
    if (t_recording == this) t_recording = nullptr;
  }
};

namespace {

// A block is identified by its element pointer, which the caching allocator gives to one live block
// at a time and views share.
const void* block(const Tensor& t) {
  Suspend off;
  return t.defined() ? t.raw() : nullptr;
}

}  // namespace

// Forwards every kernel to the device's backend and keeps a copy of the call (with handles to its
// tensors, so their blocks stay alive) to run again.
class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(RecordingState& state) : state_(state), k_(*state.device) {}

  Storage* allocate_storage(std::size_t bytes) override {
    Storage* s = k_.allocate_storage(bytes);
    state_.fresh[s->data] = bytes;
    return s;
  }
  void release_storage(Storage* s) override { k_.release_storage(s); }
  std::int64_t system_allocations() const override { return k_.system_allocations(); }

  void fill(Tensor& out, double value) override {
    record({}, {&out}, [&k = k_, out, value]() mutable { k.fill(out, value); });
    bind_last([&] { return k_.bind_fill(out, value); });
  }
  void copy(const Tensor& x, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, out]() mutable { k.copy(x, out); });
  }
  void cast(const Tensor& x, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, out]() mutable { k.cast(x, out); });
  }
  void unary(UnaryOp op, const Tensor& x, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, op, x, out]() mutable { k.unary(op, x, out); });
    bind_last([&] { return k_.bind_unary(op, x, out); });
  }
  void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) override {
    record({&a, &b}, {&out}, [&k = k_, op, a, b, out]() mutable { k.binary(op, a, b, out); });
    bind_last([&] { return k_.bind_binary(op, a, b, out); });
  }
  void where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) override {
    record({&cond, &a, &b}, {&out}, [&k = k_, cond, a, b, out]() mutable { k.where(cond, a, b, out); });
    bind_last([&] { return k_.bind_where(cond, a, b, out); });
  }
  void betainc(const Tensor& a, const Tensor& b, const Tensor& x, Tensor& out) override {
    record({&a, &b, &x}, {&out}, [&k = k_, a, b, x, out]() mutable { k.betainc(a, b, x, out); });
  }
  void broadcast_to(const Tensor& x, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, out]() mutable { k.broadcast_to(x, out); });
  }
  void reduce(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) override {
    auto axes = std::make_shared<bool[]>(reduced.size());
    std::copy(reduced.begin(), reduced.end(), axes.get());
    record({&x}, {&out}, [&k = k_, op, x, axes, n = reduced.size(), out]() mutable {
      k.reduce(op, x, {axes.get(), n}, out);
    });
    bind_last([&] { return k_.bind_reduce(op, x, reduced, out); });
  }
  void argmax(const Tensor& x, int axis, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, axis, out]() mutable { k.argmax(x, axis, out); });
  }
  void cumsum(const Tensor& x, int axis, bool reverse, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, axis, reverse, out]() mutable { k.cumsum(x, axis, reverse, out); });
  }
  void sort(const Tensor& x, int axis, bool descending, Tensor* values, Tensor* indices) override {
    Tensor v = values ? *values : Tensor(), i = indices ? *indices : Tensor();
    record({&x}, {&v, &i}, [&k = k_, x, axis, descending, v, i]() mutable {
      k.sort(x, axis, descending, v.defined() ? &v : nullptr, i.defined() ? &i : nullptr);
    });
  }
  void matmul(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& out) override {
    record({&a, &b}, {&out},
           [&k = k_, a, transpose_a, b, transpose_b, out]() mutable { k.matmul(a, transpose_a, b, transpose_b, out); });
  }
  void permute(const Tensor& x, std::span<const int> perm, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, p = std::vector<int>(perm.begin(), perm.end()), out]() mutable {
      k.permute(x, p, out);
    });
  }
  void slice(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, axis, start, step, out]() mutable { k.slice(x, axis, start, step, out); });
    bind_last([&] { return k_.bind_slice(x, axis, start, step, out); });
  }
  // The accumulating kernels read what they add to.
  void slice_add(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) override {
    record({&x, &out}, {&out},
           [&k = k_, x, axis, start, step, out]() mutable { k.slice_add(x, axis, start, step, out); });
    bind_last([&] { return k_.bind_slice_add(x, axis, start, step, out); });
  }
  void concat(std::span<const Tensor> xs, int axis, Tensor& out) override {
    std::vector<const Tensor*> reads;
    for (const Tensor& x : xs) reads.push_back(&x);
    record(reads, {&out}, [&k = k_, parts = std::vector<Tensor>(xs.begin(), xs.end()), axis, out]() mutable {
      k.concat(parts, axis, out);
    });
  }
  void gather(const Tensor& x, int axis, const Tensor& index, Tensor& out) override {
    record({&x, &index}, {&out}, [&k = k_, x, axis, index, out]() mutable { k.gather(x, axis, index, out); });
  }
  void scatter_add(const Tensor& src, int axis, const Tensor& index, Tensor& out) override {
    record({&src, &index, &out}, {&out},
           [&k = k_, src, axis, index, out]() mutable { k.scatter_add(src, axis, index, out); });
  }
  void take(const Tensor& x, int axis, const Tensor& index, Tensor& out) override {
    record({&x, &index}, {&out}, [&k = k_, x, axis, index, out]() mutable { k.take(x, axis, index, out); });
  }
  void take_add(const Tensor& src, int axis, const Tensor& index, Tensor& out) override {
    record({&src, &index, &out}, {&out},
           [&k = k_, src, axis, index, out]() mutable { k.take_add(src, axis, index, out); });
  }
  void bernoulli_logit_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y, Tensor& log_lik,
                           Tensor& grad_w, Tensor& grad_alpha) override {
    // The kernel keeps a copy of x while x is not written (cpu/glm_panels.hpp). An x computed from
    // the input is rewritten at each replay, possibly by a bound kernel, whose pointer was taken at
    // the recording and whose writes are therefore not counted: the step counts one itself.
    const bool x_computed = state_.depends.contains(block(x));
    record({&x, &w, &alpha, &y}, {&log_lik, &grad_w, &grad_alpha},
           [&k = k_, x = Tensor(x), w, alpha, y, log_lik, grad_w, grad_alpha, x_computed]() mutable {
             if (x_computed) x.mark_written();
             k.bernoulli_logit_glm(x, w, alpha, y, log_lik, grad_w, grad_alpha);
           });
  }
  void categorical_logit_glm(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y, Tensor& log_lik,
                             Tensor& grad_w, Tensor& grad_b) override {
    record({&x, &w, &b, &y}, {&log_lik, &grad_w, &grad_b}, [&k = k_, x, w, b, y, log_lik, grad_w, grad_b]() mutable {
      k.categorical_logit_glm(x, w, b, y, log_lik, grad_w, grad_b);
    });
  }
  // A failed factorization is a host-visible result: a replay must see the same outcome.
  bool cholesky(const Tensor& x, Tensor& out) override {
    bool ok = false;
    {
      Suspend off;
      ok = k_.cholesky(x, out);
    }
    add({&x}, {&out}, [&k = k_, x, out, ok]() mutable { return k.cholesky(x, out) == ok; });
    state_.steps.back().may_differ = true;
    return ok;
  }
  void triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a, Tensor& out) override {
    record({&a, &b}, {&out}, [&k = k_, a, b, lower, transpose_a, out]() mutable {
      k.triangular_solve(a, b, lower, transpose_a, out);
    });
  }

 private:
  // Runs the kernel now (not recorded) and keeps it.
  template <class Kernel>
  void record(std::span<const Tensor* const> reads, std::initializer_list<const Tensor*> writes, Kernel kernel) {
    {
      Suspend off;
      kernel();
    }
    add(reads, writes, [kernel]() mutable {
      kernel();
      return true;
    });
  }
  template <class Kernel>
  void record(std::initializer_list<const Tensor*> reads, std::initializer_list<const Tensor*> writes, Kernel kernel) {
    record(std::span<const Tensor* const>(reads.begin(), reads.size()), writes, std::move(kernel));
  }
  void add(std::span<const Tensor* const> reads, std::initializer_list<const Tensor*> writes,
           std::function<bool()> run) {
    KernelReplay::Step step;
    step.run = std::move(run);
    for (const Tensor* t : reads)
      if (t->defined()) step.reads.push_back(block(*t));
    for (const Tensor* t : writes)
      if (t->defined()) step.writes.push_back(block(*t));
    bool depends = false;
    for (const void* r : step.reads) depends = depends || state_.depends.contains(r);
    for (const void* w : step.writes) {
      if (depends) state_.depends.insert(w);
      // A replay would run this kernel but not the host code that wrote the block before it.
      if (state_.host_written.contains(w)) state_.stop("a kernel wrote into a block host code had written");
    }
    state_.steps.push_back(std::move(step));
  }
  void add(std::initializer_list<const Tensor*> reads, std::initializer_list<const Tensor*> writes,
           std::function<bool()> run) {
    add(std::span<const Tensor* const>(reads.begin(), reads.size()), writes, std::move(run));
  }

  // The step just recorded also gets its call bound to the operands (which its closure keeps alive).
  template <class Bind>
  void bind_last(Bind bind) {
    Suspend off;  // binding reads element pointers, not values
    state_.steps.back().bound = bind();
  }

  RecordingState& state_;
  Backend& k_;
};

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

bool KernelReplay::run() const {
  for (const Step& step : steps_) {
    if (step.bound.run != nullptr) {
      step.bound.run(step.bound);
    } else if (!step.run()) {
      return false;
    }
  }
  return true;
}

std::size_t KernelReplay::bound() const {
  std::size_t n = 0;
  for (const Step& step : steps_) n += step.bound.run != nullptr;
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
  state_->recorder = std::make_unique<detail::RecordingBackend>(*state_);
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
  std::vector<KernelReplay::Step> kept;
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
  KernelReplay::Step step;
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

void not_replayable(const char* why) {
  if (detail::t_recording != nullptr) detail::t_recording->stop(why);
}

void detail::keep_host_check(std::initializer_list<Tensor> reads, std::function<void()> check) {
  detail::RecordingState* state = detail::t_recording;
  {
    detail::Suspend off;
    check();
  }
  KernelReplay::Step step;
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
  KernelReplay::Step step;
  step.guard = true;  // kept whether or not the outputs read what it reads
  step.may_differ = true;
  for (const Tensor& t : reads)
    if (t.defined()) step.reads.push_back(detail::block(t));
  step.run = [decide = std::move(decide), choice] { return decide() == choice; };
  state->steps.push_back(std::move(step));
  return choice;
}

}  // namespace variate
