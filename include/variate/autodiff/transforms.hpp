#pragma once
// Functional transforms over functions of tensors (JAX style): value_and_grad, grad, vjp, jacobian.
//
//   auto [value, grads] = value_and_grad([](const Tensor& w) { return sum(square(w)); }, w0);
//   // grads[0] == 2 * w0
//
// Inputs must be floating point. Transforms nest, but a value tracked by an outer transform must
// not reach an inner one: that is an error rather than a silent zero second derivative. Second
// derivatives come from hvp and hessian instead, which differentiate the backward sweep itself
// (reverse over reverse); an op whose rule does not support that makes them throw, naming it.
#include <array>
#include <functional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate {

template <std::size_t N>
/// The value of a scalar function and its gradients with respect to each of its N arguments.
struct ValueAndGrad {
  Tensor value;
  std::array<Tensor, N> grads;
};

namespace detail {
inline void check_scalar_output(const char* op, const Tensor& y) {
  VARIATE_CHECK(y.defined() && y.numel() == 1, op, "the function must return a single-element tensor, got ",
                y.defined() ? y.shape().str() : std::string("an undefined tensor"));
}
}  // namespace detail

/// f(xs...) and its gradient with respect to each x; f must return one element.
template <class F, class... Ts>
requires(std::is_same_v<Ts, Tensor>&&...) ValueAndGrad<sizeof...(Ts)> value_and_grad(F&& f, const Ts&... xs) {
  autodiff::detail::TapeScope scope;
  std::array<Tensor, sizeof...(Ts)> tracked{scope.track(xs)...};
  Tensor y = std::apply(f, tracked);
  detail::check_scalar_output("value_and_grad", y);
  scope.backward(y, Tensor::ones(y.shape(), y.dtype(), y.device()));
  ValueAndGrad<sizeof...(Ts)> out;
  for (std::size_t i = 0; i < tracked.size(); ++i) out.grads[i] = scope.grad_of(tracked[i]);
  out.value = autodiff::stop_gradient(y);
  return out;
}

/// For a variable number of inputs: f(std::span<const Tensor>) -> scalar; writes the gradients
/// into `grads` (same length as `inputs`) and returns the value. `scratch` holds the tracked
/// inputs; pass the same vector every call so that steady-state calls do not allocate.
template <class F>
Tensor value_and_grad(F&& f, std::span<const Tensor> inputs, std::span<Tensor> grads, std::vector<Tensor>& scratch) {
  VARIATE_CHECK(grads.size() == inputs.size(), "value_and_grad", inputs.size(), " inputs but room for ", grads.size(),
                " gradients");
  autodiff::detail::TapeScope scope;
  scratch.clear();
  for (const Tensor& x : inputs) scratch.push_back(scope.track(x));
  Tensor y = f(std::span<const Tensor>(scratch));
  detail::check_scalar_output("value_and_grad", y);
  scope.backward(y, Tensor::ones(y.shape(), y.dtype(), y.device()));
  for (std::size_t i = 0; i < inputs.size(); ++i) grads[i] = scope.grad_of(scratch[i]);
  scratch.clear();
  return autodiff::stop_gradient(y);
}

/// The gradient of a one-element function of one tensor.
template <class F>
Tensor grad(F&& f, const Tensor& x) {
  return value_and_grad(std::forward<F>(f), x).grads[0];
}

/// The gradients of a one-element function of several tensors.
template <class F, class... Ts>
requires(sizeof...(Ts) > 1 &&
         (std::is_same_v<Ts, Tensor> && ...)) std::array<Tensor, sizeof...(Ts)> grad(F&& f, const Ts&... xs) {
  return value_and_grad(std::forward<F>(f), xs...).grads;
}

/// f(xs...) and the vector-Jacobian products cotangent^T df/dx for each x; `cotangent` has the
/// shape of f's output.
template <class F, class... Ts>
requires(std::is_same_v<Ts, Tensor>&&...) ValueAndGrad<sizeof...(Ts)> vjp(F&& f, const Tensor& cotangent,
                                                                          const Ts&... xs) {
  autodiff::detail::TapeScope scope;
  std::array<Tensor, sizeof...(Ts)> tracked{scope.track(xs)...};
  Tensor y = std::apply(f, tracked);
  VARIATE_CHECK(cotangent.shape() == y.shape(), "vjp", "the cotangent has shape ", cotangent.shape(),
                " but the function's output has shape ", y.shape());
  scope.backward(y, cast(cotangent, y.dtype()));
  ValueAndGrad<sizeof...(Ts)> out;
  for (std::size_t i = 0; i < tracked.size(); ++i) out.grads[i] = scope.grad_of(tracked[i]);
  out.value = autodiff::stop_gradient(y);
  return out;
}

/// The Jacobian of f at x, shaped f(x).shape + x.shape (one backward sweep per output element;
/// meant for tests and small functions).
Tensor jacobian(const std::function<Tensor(const Tensor&)>& f, const Tensor& x);

/// Thrown by hvp and hessian when a backward rule on the way has no differentiable form: the
/// caller may then fall back to differences of gradients, which every rule supports.
class SecondOrderUnsupported : public Error {
 public:
  using Error::Error;
};

/// The Hessian-vector product H(x) v of a one-element function f, with v shaped like x: one forward
/// pass and two sweeps, so it costs a few gradients whatever the size of x.
///
///   hvp([](const Tensor& x) { return sum(pow(x, 3.0)); }, Tensor::vec({2.0, 1.0}), Tensor::vec({1.0, 0.0}))
///   // == [12, 0]
Tensor hvp(const std::function<Tensor(const Tensor&)>& f, const Tensor& x, const Tensor& v);

/// The Hessian of a one-element function f at x, shaped x.shape + x.shape (one sweep per element of
/// x after one recording sweep; meant for small x, e.g. a Laplace approximation's covariance).
Tensor hessian(const std::function<Tensor(const Tensor&)>& f, const Tensor& x);

}  // namespace variate
