#pragma once
// One way to write math on tensors: the infix operators and named functions of autodiff/ops.hpp,
// everywhere. They record a tape node when a transform is running and an input is tracked; an op
// with its own backward rule computes its value with recording paused and records one node:
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
// The backward sweep runs every rule with recording paused, so rules use the same operators and
// record nothing, whatever their saved tensors.
//
// hvp and hessian differentiate the rules themselves, which an op with a fused first-order rule
// cannot support; such an op asks records_second_order() and then records its formula instead:
//
//   if (autodiff::records_second_order()) return formula(x);

namespace variate::autodiff {

/// While it lives, the differentiable ops of this thread compute values only and record nothing,
/// as outside a transform. A transform started inside it records as usual; scopes nest. Costs two
/// thread-local writes.
class NoRecording {
 public:
  NoRecording();
  ~NoRecording();
  NoRecording(const NoRecording&) = delete;
  NoRecording& operator=(const NoRecording&) = delete;

 private:
  int resumed_depth_;
};

/// Whether the active tape's rules will be differentiated (inside hvp or hessian).
bool records_second_order();

namespace detail {
/// Marks the active tape as one whose rules will be differentiated, until it is reset.
void mark_second_order();
}  // namespace detail

}  // namespace variate::autodiff
