#pragma once
// The reverse-mode tape (layer 2). While a transform such as value_and_grad runs, each
// differentiable op on tracked tensors appends a node to a thread-local arena: the output's slot,
// the inputs' slots and shapes, the tensors saved for the backward pass, and the backward rule.
// After the sweep the arena is reset, not freed, so a gradient evaluation of a fixed-shape
// function allocates nothing from the heap in steady state.
//
// Defining an op with a custom backward rule (the one mechanism every rule uses), written with the
// operators of autodiff/ops.hpp, its value computed with recording paused (autodiff/no_recording.hpp):
//
//   Tensor my_exp(const Tensor& x) {
//     Tensor y;
//     {
//       const autodiff::NoRecording values;
//       y = exp(x);
//     }
//     return autodiff::record(y, {x}, {y}, [](const autodiff::BackwardContext& ctx) {
//       ctx.add(0, ctx.grad() * ctx.saved(0));  // d exp(x) = exp(x) dx
//     });
//   }
//
// Tensors needed by the rule are passed as `saved` (never captured), so the tape can count the
// bytes it keeps alive; other state (axes, flags) may be captured by value.
//
// Second order (hessian, hvp) differentiates the backward sweep itself: the rules run again with
// recording on, so the gradient becomes a tracked function of the inputs. A rule takes part only
// when it says so with SecondOrder::supported, which is a promise that it computes its cotangents
// with the differentiable ops of ops.hpp alone from ctx.grad(), ctx.saved() and captured values that
// do not depend on the inputs (shapes, axes): no prim:: kernel, no Tensor::view, no host copy.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <span>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "variate/tensor/tensor.hpp"

namespace variate::autodiff {

class BackwardContext;

/// Whether a backward rule may itself be differentiated (see the top of this file).
enum class SecondOrder : bool { unsupported, supported };

namespace detail {

struct InputRef {
  std::int32_t slot;  // -1: the input is a constant for this tape
  DType dtype;
  Shape shape;
};

struct Node {
  void (*invoke)(void* rule, const BackwardContext& ctx);
  void (*destroy)(void* rule);
  void* rule;
  const std::type_info* rule_type;  // names the op when a second-order sweep cannot run the rule
  SecondOrder second_order;
  Node* prev;
  std::int32_t out_slot;
  int num_inputs;
  int num_saved;
  InputRef* inputs;
  Tensor* saved;
};

class Tape;
/// The innermost active tape of this thread, or nullptr when no transform is running.
Tape* active_tape();
/// Whether `x` is tracked by the active tape.
bool is_tracked(const Tensor& x);
bool any_tracked(std::span<const Tensor> xs);
void* arena_allocate(Tape* tape, std::size_t bytes, std::size_t align);
Tensor push_node(Tape* tape, Tensor out, std::span<const Tensor> inputs, std::span<const Tensor> saved, void* rule,
                 void (*invoke)(void*, const BackwardContext&), void (*destroy)(void*), const std::type_info& rule_type,
                 SecondOrder second_order);

template <class Rule>
void invoke_rule(void* rule, const BackwardContext& ctx) {
  (*static_cast<Rule*>(rule))(ctx);
}
template <class Rule>
void destroy_rule(void* rule) {
  static_cast<Rule*>(rule)->~Rule();
}

}  // namespace detail

/// What a backward rule sees: the output's cotangent, the saved tensors, and where to add each
/// input's cotangent. `add` sums away broadcast dimensions and converts to the input's dtype.
class BackwardContext {
 public:
  /// `differentiable`: the sweep records (second order), so `add` accumulates with recording ops.
  /// `owned` (first order only): per slot, whether its adjoint is a buffer the sweep made for it
  /// alone, which add_to_slice may update in place.
  BackwardContext(const detail::Node& node, const Tensor& grad, Tensor* adjoints, bool differentiable = false,
                  char* owned = nullptr)
      : node_(node), grad_(grad), adjoints_(adjoints), differentiable_(differentiable), owned_(owned) {}
  const Tensor& grad() const { return grad_; }
  const Tensor& saved(int i) const { return node_.saved[i]; }
  int num_inputs() const { return node_.num_inputs; }
  const Shape& input_shape(int i) const { return node_.inputs[i].shape; }
  bool needs_grad(int input) const { return node_.inputs[input].slot >= 0; }
  void add(int input, const Tensor& cotangent) const;
  /// Whether the sweep records (second order): the rule's cotangents must then come from recording
  /// ops alone.
  bool differentiable() const { return differentiable_; }
  /// First-order sweeps: adds `cotangent` to the elements start, start + step, ... along `axis` of
  /// the input's cotangent (a slice's backward), in place where the sweep owns that cotangent's
  /// buffer, so that the slices of one tensor (the latent sites of a flat point) fill one buffer
  /// instead of each padding its own with zeros.
  void add_to_slice(int input, int axis, std::int64_t start, std::int64_t step, const Tensor& cotangent) const;

 private:
  const detail::Node& node_;
  const Tensor& grad_;
  Tensor* adjoints_;
  bool differentiable_;
  char* owned_;
};

/// Records `out` = op(inputs) on the active tape with backward rule `rule(const BackwardContext&)`,
/// if any input is tracked; returns `out` (tracked when recorded, a constant otherwise).
template <class Rule>
Tensor record(Tensor out, std::span<const Tensor> inputs, std::span<const Tensor> saved, Rule&& rule,
              SecondOrder second_order = SecondOrder::unsupported) {
  detail::Tape* tape = detail::active_tape();
  if (tape == nullptr || !detail::any_tracked(inputs)) {
    out.set_tape_ref({});
    return out;
  }
  using R = std::decay_t<Rule>;
  void* mem = detail::arena_allocate(tape, sizeof(R), alignof(R));
  new (mem) R(std::forward<Rule>(rule));
  return detail::push_node(tape, std::move(out), inputs, saved, mem, &detail::invoke_rule<R>, &detail::destroy_rule<R>,
                           typeid(R), second_order);
}

/// `x` as a constant: no gradient flows through it.
Tensor stop_gradient(const Tensor& x);

template <class Rule>
Tensor record(Tensor out, std::initializer_list<Tensor> inputs, std::initializer_list<Tensor> saved, Rule&& rule,
              SecondOrder second_order = SecondOrder::unsupported) {
  return record(std::move(out), std::span<const Tensor>(inputs.begin(), inputs.size()),
                std::span<const Tensor>(saved.begin(), saved.size()), std::forward<Rule>(rule), second_order);
}

/// Bytes of the tensors saved for the backward pass on the active tape so far (0 outside a
/// transform), and in the most recent completed sweep on this thread.
std::size_t saved_bytes();
std::size_t last_sweep_saved_bytes();

namespace detail {

/// RAII scope of one tape: tracks inputs, runs backward sweeps, resets the arena on exit. Scopes
/// nest: tensors tracked by an outer scope are constants inside an inner one.
class TapeScope {
 public:
  TapeScope();
  ~TapeScope();
  TapeScope(const TapeScope&) = delete;
  TapeScope& operator=(const TapeScope&) = delete;

  /// A handle to `x` tracked by this tape.
  Tensor track(const Tensor& x);
  /// Backpropagates `seed` (shaped like `root`) from `root`; may be called repeatedly.
  void backward(const Tensor& root, const Tensor& seed);
  /// The cotangent accumulated for a tracked input in the last backward sweep (zeros if none).
  Tensor grad_of(const Tensor& tracked_input) const;
  /// The gradient of `root` (one element) with respect to `tracked_input`, as a value tracked by
  /// this tape: a sweep that records the rules' ops, so that backward() from it differentiates the
  /// gradient again. Throws naming the op at the first rule without SecondOrder::supported.
  Tensor differentiable_grad(const Tensor& root, const Tensor& tracked_input);

 private:
  Tape* tape_;
};

}  // namespace detail
}  // namespace variate::autodiff
