#include "variate/autodiff/tape.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape_bytes.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::autodiff {
namespace detail {

// Bytes saved by the nodes of each rule type, in order of first appearance. A handful of rule
// types per tape, so a linear search beats hashing.
using RuleBytes = std::vector<std::pair<const std::type_info*, std::size_t>>;

namespace {
void add_rule_bytes(RuleBytes& tally, const std::type_info& rule, std::size_t bytes) {
  for (auto& [type, total] : tally)
    if (type == &rule || *type == rule) {
      total += bytes;
      return;
    }
  tally.emplace_back(&rule, bytes);
}
}  // namespace

// A bump allocator over a list of chunks that are kept across resets.
class Arena {
 public:
  ~Arena() {
    for (auto& c : chunks_) std::free(c.data);
  }
  void* allocate(std::size_t bytes, std::size_t align) {
    while (true) {
      if (current_ < chunks_.size()) {
        Chunk& c = chunks_[current_];
        const std::size_t start = (used_ + align - 1) / align * align;
        if (start + bytes <= c.size) {
          used_ = start + bytes;
          return c.data + start;
        }
        ++current_;
        used_ = 0;
        continue;
      }
      // Chunks are 64-byte aligned, so aligning offsets aligns addresses for any rule object.
      const std::size_t wanted =
          std::max<std::size_t>(bytes + align, chunks_.empty() ? 1 << 16 : chunks_.back().size * 2);
      const std::size_t size = (wanted + 63) / 64 * 64;
      chunks_.push_back({static_cast<char*>(std::aligned_alloc(64, size)), size});
      if (!chunks_.back().data) throw std::bad_alloc();
    }
  }
  void reset() {
    current_ = 0;
    used_ = 0;
  }

 private:
  struct Chunk {
    char* data;
    std::size_t size;
  };
  std::vector<Chunk> chunks_;
  std::size_t current_ = 0, used_ = 0;
};

class Tape {
 public:
  std::uint32_t epoch = 0;
  Arena arena;
  Node* last = nullptr;
  std::int32_t num_slots = 0;
  std::size_t saved_bytes = 0;
  RuleBytes saved_by_rule;       // capacity kept across sweeps
  std::vector<Tensor> adjoints;  // capacity kept across sweeps
  std::vector<char> owned;       // per slot: its adjoint is a buffer of the sweep's own
  bool second_order = false;     // hvp, hessian: fused ops record their formulas instead

  void reset() {
    for (Node* n = last; n; n = n->prev) {
      n->destroy(n->rule);
      for (int i = 0; i < n->num_saved; ++i) n->saved[i].~Tensor();
    }
    last = nullptr;
    num_slots = 0;
    saved_bytes = 0;
    saved_by_rule.clear();
    second_order = false;
    adjoints.clear();
    arena.reset();
  }
};

namespace {
std::atomic<std::uint32_t> next_epoch{1};

struct ThreadTapes {
  std::vector<std::unique_ptr<Tape>> stack;  // tapes by nesting depth, reused
  int depth = 0;
  int unrecorded_depth = 0;  // the depth at which a NoRecording scope paused recording (0: none)
  std::size_t last_sweep_saved = 0;
  RuleBytes last_sweep_by_rule;
};
thread_local ThreadTapes tapes;
}  // namespace

Tape* active_tape() {
  return tapes.depth == tapes.unrecorded_depth ? nullptr : tapes.stack[std::size_t(tapes.depth - 1)].get();
}

bool is_tracked(const Tensor& x) {
  const Tape* t = active_tape();
  return t && x.tape_ref().slot >= 0 && x.tape_ref().epoch == t->epoch;
}

namespace {
// Whether `ref` belongs to a transform that encloses the active one.
bool tracked_by_outer_tape(TapeRef ref) {
  if (ref.slot < 0) return false;
  for (int d = 0; d + 1 < tapes.depth; ++d)
    if (tapes.stack[std::size_t(d)]->epoch == ref.epoch) return true;
  return false;
}

[[noreturn]] void fail_nested(const char* where) {
  variate::detail::fail(where,
                        ": a value tracked by an enclosing transform (value_and_grad, grad, vjp, jacobian) "
                        "reached a transform nested inside it. Gradients of gradients are not supported by nesting: "
                        "the inner result would be a constant to the outer transform, so second derivatives would "
                        "come out as a silent zero; use hvp or hessian");
}
}  // namespace

bool any_tracked(std::span<const Tensor> xs) {
  const Tape* t = active_tape();
  if (t == nullptr) return false;
  bool tracked = false;
  for (const Tensor& x : xs) {
    const TapeRef ref = x.tape_ref();
    if (ref.slot < 0) continue;
    if (ref.epoch == t->epoch) {
      tracked = true;
    } else if (tapes.depth > 1 && tracked_by_outer_tape(ref)) {
      fail_nested("autodiff");
    }
  }
  return tracked;
}

void* arena_allocate(Tape* tape, std::size_t bytes, std::size_t align) { return tape->arena.allocate(bytes, align); }

Tensor push_node(Tape* tape, Tensor out, std::span<const Tensor> inputs, std::span<const Tensor> saved, void* rule,
                 void (*invoke)(void*, const BackwardContext&), void (*destroy)(void*), const std::type_info& rule_type,
                 SecondOrder second_order) {
  auto* node = static_cast<Node*>(tape->arena.allocate(sizeof(Node), alignof(Node)));
  node->invoke = invoke;
  node->destroy = destroy;
  node->rule = rule;
  node->rule_type = &rule_type;
  node->second_order = second_order;
  node->num_inputs = int(inputs.size());
  node->num_saved = int(saved.size());
  node->inputs = static_cast<InputRef*>(tape->arena.allocate(sizeof(InputRef) * inputs.size(), alignof(InputRef)));
  int i = 0;
  for (const Tensor& x : inputs)
    new (&node->inputs[i++]) InputRef{is_tracked(x) ? x.tape_ref().slot : -1, x.dtype(), x.shape()};
  node->saved = static_cast<Tensor*>(tape->arena.allocate(sizeof(Tensor) * saved.size(), alignof(Tensor)));
  i = 0;
  std::size_t bytes = 0;
  for (const Tensor& s : saved) {
    new (&node->saved[i++]) Tensor(s);
    bytes += s.defined() ? s.nbytes() : 0;
  }
  tape->saved_bytes += bytes;
  add_rule_bytes(tape->saved_by_rule, rule_type, bytes);
  node->out_slot = tape->num_slots++;
  node->prev = tape->last;
  tape->last = node;
  out.set_tape_ref({tape->epoch, node->out_slot});
  // A rule that saves its own output (exp, sqrt, division) was handed a copy made before the output
  // was tracked; a second-order sweep must see it as the output, or its derivative would be lost.
  // Only on such a tape: comparing data pointers is a host access to a kernel recording.
  if (second_order == SecondOrder::supported && tape->second_order)
    for (i = 0; i < node->num_saved; ++i) {
      Tensor& s = node->saved[i];
      if (s.defined() && s.tape_ref().slot < 0 && s.raw() == out.raw() && s.shape() == out.shape() &&
          s.dtype() == out.dtype())
        s.set_tape_ref(out.tape_ref());
    }
  return out;
}

TapeScope::TapeScope() {
  if (tapes.depth == int(tapes.stack.size())) tapes.stack.push_back(std::make_unique<Tape>());
  tape_ = tapes.stack[std::size_t(tapes.depth++)].get();
  tape_->epoch = next_epoch.fetch_add(1, std::memory_order_relaxed);
}

TapeScope::~TapeScope() {
  tapes.last_sweep_saved = tape_->saved_bytes;
  tapes.last_sweep_by_rule = tape_->saved_by_rule;
  tape_->reset();
  --tapes.depth;
}

Tensor TapeScope::track(const Tensor& x) {
  VARIATE_CHECK(x.defined(), "value_and_grad", "an input tensor is undefined");
  VARIATE_CHECK(is_floating(x.dtype()), "value_and_grad", "inputs must be floating point to be differentiated, got ",
                x.dtype(), " of shape ", x.shape());
  if (tracked_by_outer_tape(x.tape_ref())) fail_nested("value_and_grad");
  Tensor t(x);
  t.set_tape_ref({tape_->epoch, tape_->num_slots++});
  return t;
}

void TapeScope::backward(const Tensor& root, const Tensor& seed) {
  Tape& t = *tape_;
  t.adjoints.clear();
  t.adjoints.resize(std::size_t(t.num_slots));
  t.owned.assign(std::size_t(t.num_slots), 0);
  if (!(root.tape_ref().slot >= 0 && root.tape_ref().epoch == t.epoch)) return;  // root is a constant
  t.adjoints[std::size_t(root.tape_ref().slot)] = seed;
  // Rules are written with the recording ops; their saved tensors may be tracked ones.
  const NoRecording rules_record_nothing;
  for (Node* n = t.last; n; n = n->prev) {
    Tensor grad = std::move(t.adjoints[std::size_t(n->out_slot)]);
    if (!grad.defined()) continue;
    n->invoke(n->rule, BackwardContext(*n, grad, t.adjoints.data(), /*differentiable=*/false, t.owned.data()));
  }
}

// The C++ name of a rule's type, which names the op that records it (its enclosing function).
static std::string rule_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  return name;
}

Tensor TapeScope::differentiable_grad(const Tensor& root, const Tensor& tracked) {
  Tape& t = *tape_;
  if (!(root.tape_ref().slot >= 0 && root.tape_ref().epoch == t.epoch))
    return Tensor::zeros(tracked.shape(), tracked.dtype(), tracked.device());
  // Its own adjoints: backward() reuses the tape's for the sweeps that differentiate the result.
  // The rules append nodes as they run; the walk starts below them, at the function's last node.
  std::vector<Tensor> adjoints(std::size_t(t.num_slots));
  adjoints[std::size_t(root.tape_ref().slot)] = Tensor::ones(root.shape(), root.dtype(), root.device());
  for (Node* n = t.last; n; n = n->prev) {
    Tensor grad = std::move(adjoints[std::size_t(n->out_slot)]);
    if (!grad.defined()) continue;
    if (n->second_order != SecondOrder::supported)
      throw SecondOrderUnsupported(rule_name(*n->rule_type) +
                                   ": its derivative is not differentiable; hessian/hvp unsupported through it");
    n->invoke(n->rule, BackwardContext(*n, grad, adjoints.data(), /*differentiable=*/true));
  }
  const auto slot = std::size_t(tracked.tape_ref().slot);
  if (adjoints[slot].defined()) return adjoints[slot];
  return Tensor::zeros(tracked.shape(), tracked.dtype(), tracked.device());
}

Tensor TapeScope::grad_of(const Tensor& tracked) const {
  const auto slot = std::size_t(tracked.tape_ref().slot);
  if (slot < tape_->adjoints.size() && tape_->adjoints[slot].defined()) return tape_->adjoints[slot];
  return Tensor::zeros(tracked.shape(), tracked.dtype(), tracked.device());
}

}  // namespace detail

void BackwardContext::add(int input, const Tensor& cotangent) const {
  const detail::InputRef& in = node_.inputs[input];
  if (in.slot < 0) return;
  Tensor& acc = adjoints_[in.slot];
  if (differentiable_) {
    Tensor g = cast(sum_to(cotangent, in.shape), in.dtype);
    acc = acc.defined() ? acc + g : std::move(g);
    return;
  }
  Tensor g = prim::cast(prim::sum_to(cotangent, in.shape), in.dtype);
  // The sum is a buffer of its own (prim::add never hands back an operand); a first cotangent may be
  // shared.
  const bool fresh = acc.defined();
  acc = acc.defined() ? prim::add(acc, g) : std::move(g);
  if (owned_) owned_[in.slot] = fresh;
}

void BackwardContext::add_to_slice(int input, int axis, std::int64_t start, std::int64_t step,
                                   const Tensor& cotangent) const {
  VARIATE_CHECK(!differentiable_ && owned_ != nullptr, "add_to_slice",
                "a recording sweep must add a recorded cotangent");
  const detail::InputRef& in = node_.inputs[input];
  bool fits = axis >= 0 && axis < in.shape.rank() && start >= 0 && step > 0 && cotangent.rank() == in.shape.rank();
  for (int d = 0; fits && d < in.shape.rank(); ++d)
    fits = d == axis ? cotangent.dim(d) == 0 || start + step * (cotangent.dim(d) - 1) < in.shape[d]
                     : cotangent.dim(d) == in.shape[d];
  VARIATE_CHECK(fits, "add_to_slice", "a cotangent of shape ", cotangent.shape(), " from ", start, " in steps of ",
                step, " along axis ", axis, " does not fit in an input of shape ", in.shape);
  if (in.slot < 0) return;
  Tensor& acc = adjoints_[in.slot];
  const bool in_place = !acc.defined() || owned_[in.slot];
  Tensor target = acc.defined() && in_place ? acc : Tensor::zeros(in.shape, in.dtype, cotangent.device());
  backend(target.device()).slice_add(prim::cast(cotangent, in.dtype), axis, start, step, target);
  if (!in_place) return add(input, target);  // a shared cotangent: their sum is the sweep's own
  acc = std::move(target);
  owned_[in.slot] = 1;
}

NoRecording::NoRecording() : resumed_depth_(detail::tapes.unrecorded_depth) {
  detail::tapes.unrecorded_depth = detail::tapes.depth;
}

NoRecording::~NoRecording() { detail::tapes.unrecorded_depth = resumed_depth_; }

bool records_second_order() {
  const detail::Tape* t = detail::active_tape();
  return t && t->second_order;
}

void detail::mark_second_order() {
  detail::Tape* t = detail::active_tape();
  VARIATE_CHECK(t != nullptr, "hessian", "no transform is active to differentiate twice");
  t->second_order = true;
}

Tensor stop_gradient(const Tensor& x) {
  Tensor t(x);
  t.set_tape_ref({});
  return t;
}

std::size_t saved_bytes() {
  const detail::Tape* t = detail::active_tape();
  return t ? t->saved_bytes : 0;
}

std::size_t last_sweep_saved_bytes() { return detail::tapes.last_sweep_saved; }

namespace {
// The function that records a rule, from the rule's type: a lambda's demangled name is its
// enclosing function's, "variate::linear(variate::Tensor const&, ...)::{lambda(...)#1}".
std::string op_of_rule(const std::type_info& rule) {
  std::string name = detail::rule_name(rule);
  std::size_t open = name.find('(');
  if (open != std::string::npos && name.compare(open >= 8 ? open - 8 : 0, 10, "operator()") == 0)
    open = name.find('(', open + 2);
  name = name.substr(0, open);
  constexpr std::string_view ns = "variate::";
  if (name.starts_with(ns)) name.erase(0, ns.size());
  return name;
}

std::vector<OpSavedBytes> by_op(const detail::RuleBytes& tally) {
  std::vector<OpSavedBytes> out;
  for (const auto& [type, bytes] : tally) {
    std::string op = op_of_rule(*type);
    auto same = std::find_if(out.begin(), out.end(), [&](const OpSavedBytes& e) { return e.op == op; });
    if (same != out.end()) {
      same->bytes += bytes;
    } else {
      out.push_back({std::move(op), bytes});
    }
  }
  return out;
}
}  // namespace

std::vector<OpSavedBytes> saved_bytes_by_op() {
  const detail::Tape* t = detail::active_tape();
  return t ? by_op(t->saved_by_rule) : std::vector<OpSavedBytes>{};
}

std::vector<OpSavedBytes> last_sweep_saved_bytes_by_op() { return by_op(detail::tapes.last_sweep_by_rule); }

std::size_t last_sweep_saved_bytes(std::string_view op) {
  for (const OpSavedBytes& e : last_sweep_saved_bytes_by_op())
    if (e.op == op) return e.bytes;
  return 0;
}

}  // namespace variate::autodiff
