// The recording backend of a kernel recording (tensor/replay.hpp): every kernel goes on to the
// device's backend, and a copy of the call (with handles to its tensors, so their blocks stay alive)
// is kept to run again. Small calls are also bound through the device's binder (kernel_binder.hpp).
#include <algorithm>
#include <memory>
#include <vector>

#include "tensor/recording_state.hpp"

namespace variate::detail {
namespace {

class RecordingBackend final : public Backend {
 public:
  RecordingBackend(RecordingState& state, const KernelBinder* binder)
      : state_(state), k_(*state.device), binder_(binder) {}

  Storage* allocate_storage(std::size_t bytes) override {
    Storage* s = k_.allocate_storage(bytes);
    state_.fresh[s->data] = bytes;
    return s;
  }
  void release_storage(Storage* s) override { k_.release_storage(s); }
  std::int64_t system_allocations() const override { return k_.system_allocations(); }

  void fill(Tensor& out, double value) override {
    record({}, {&out}, [&k = k_, out, value]() mutable { k.fill(out, value); });
    bind_last([&](const KernelBinder& binder) { return binder.fill(out, value); });
  }
  void copy(const Tensor& x, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, out]() mutable { k.copy(x, out); });
  }
  void cast(const Tensor& x, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, out]() mutable { k.cast(x, out); });
    bind_last([&](const KernelBinder& binder) { return binder.cast(x, out); });
  }
  void unary(UnaryOp op, const Tensor& x, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, op, x, out]() mutable { k.unary(op, x, out); });
    bind_last([&](const KernelBinder& binder) { return binder.unary(op, x, out); });
  }
  void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) override {
    record({&a, &b}, {&out}, [&k = k_, op, a, b, out]() mutable { k.binary(op, a, b, out); });
    bind_last([&](const KernelBinder& binder) { return binder.binary(op, a, b, out); });
  }
  void where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) override {
    record({&cond, &a, &b}, {&out}, [&k = k_, cond, a, b, out]() mutable { k.where(cond, a, b, out); });
    bind_last([&](const KernelBinder& binder) { return binder.where(cond, a, b, out); });
  }
  void betainc(const Tensor& a, const Tensor& b, const Tensor& x, Tensor& out) override {
    record({&a, &b, &x}, {&out}, [&k = k_, a, b, x, out]() mutable { k.betainc(a, b, x, out); });
  }
  void broadcast_to(const Tensor& x, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, out]() mutable { k.broadcast_to(x, out); });
    bind_last([&](const KernelBinder& binder) { return binder.broadcast_to(x, out); });
  }
  void reduce(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) override {
    auto axes = std::make_shared<bool[]>(reduced.size());
    std::copy(reduced.begin(), reduced.end(), axes.get());
    record({&x}, {&out}, [&k = k_, op, x, axes, n = reduced.size(), out]() mutable {
      k.reduce(op, x, {axes.get(), n}, out);
    });
    bind_last([&](const KernelBinder& binder) { return binder.reduce(op, x, reduced, out); });
  }
  void argmax(const Tensor& x, int axis, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, axis, out]() mutable { k.argmax(x, axis, out); });
  }
  void cumsum(const Tensor& x, int axis, bool reverse, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, axis, reverse, out]() mutable { k.cumsum(x, axis, reverse, out); });
  }
  void linear_recurrence(const Tensor& a, const Tensor& u, int axis, bool adjoint, Tensor& out) override {
    record({&a, &u}, {&out},
           [&k = k_, a, u, axis, adjoint, out]() mutable { k.linear_recurrence(a, u, axis, adjoint, out); });
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
    record({&x}, {&out},
           [&k = k_, x, p = std::vector<int>(perm.begin(), perm.end()), out]() mutable { k.permute(x, p, out); });
  }
  void slice(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) override {
    record({&x}, {&out}, [&k = k_, x, axis, start, step, out]() mutable { k.slice(x, axis, start, step, out); });
    bind_last([&](const KernelBinder& binder) { return binder.slice(x, axis, start, step, out); });
  }
  // The accumulating kernels read what they add to.
  void slice_add(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) override {
    record({&x, &out}, {&out},
           [&k = k_, x, axis, start, step, out]() mutable { k.slice_add(x, axis, start, step, out); });
    bind_last([&](const KernelBinder& binder) { return binder.slice_add(x, axis, start, step, out); });
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
  void normal_id_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& sigma, const Tensor& y,
                     Tensor& log_lik, Tensor& grad_w, Tensor& grad_alpha, Tensor& grad_sigma) override {
    record({&x, &w, &alpha, &sigma, &y}, {&log_lik, &grad_w, &grad_alpha, &grad_sigma},
           [&k = k_, x, w, alpha, sigma, y, log_lik, grad_w, grad_alpha, grad_sigma]() mutable {
             k.normal_id_glm(x, w, alpha, sigma, y, log_lik, grad_w, grad_alpha, grad_sigma);
           });
  }
  void categorical_logit_glm(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y, Tensor& log_lik,
                             Tensor& grad_w, Tensor& grad_b) override {
    // As bernoulli_logit_glm: the kernel keeps a compressed copy of x (cpu/sparse_rows.hpp).
    const bool x_computed = state_.depends.contains(block(x));
    record({&x, &w, &b, &y}, {&log_lik, &grad_w, &grad_b},
           [&k = k_, x = Tensor(x), w, b, y, log_lik, grad_w, grad_b, x_computed]() mutable {
             if (x_computed) x.mark_written();
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
  void cholesky_backward(const Tensor& l, const Tensor& l_grad, Tensor& out) override {
    record({&l, &l_grad}, {&out}, [&k = k_, l, l_grad, out]() mutable { k.cholesky_backward(l, l_grad, out); });
  }
  void triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a, Tensor& out) override {
    record({&a, &b}, {&out},
           [&k = k_, a, b, lower, transpose_a, out]() mutable { k.triangular_solve(a, b, lower, transpose_a, out); });
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
    ReplayStep step;
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
    if (binder_ == nullptr) return;
    Suspend off;  // binding reads element pointers, not values
    state_.steps.back().bound = bind(*binder_);
  }

  RecordingState& state_;
  Backend& k_;
  const KernelBinder* binder_;  // null: the device binds nothing
};

}  // namespace

std::unique_ptr<Backend> make_recording_backend(RecordingState& state, const KernelBinder* binder) {
  return std::make_unique<RecordingBackend>(state, binder);
}

}  // namespace variate::detail
