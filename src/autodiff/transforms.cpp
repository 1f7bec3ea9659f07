#include "variate/autodiff/transforms.hpp"

#include <cstring>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"

namespace variate {

namespace {

// The Jacobian of `y`, recorded on `scope`, with respect to its tracked input: one backward sweep
// per element of y, each row copied out; shaped y.shape + x.shape.
Tensor jacobian_rows(const char* op, autodiff::detail::TapeScope& scope, const Tensor& y, const Tensor& tracked,
                     const Tensor& x) {
  VARIATE_CHECK(x.device().kind == DeviceKind::cpu, op, "needs cpu tensors, got ", x.device());
  Shape shape = y.shape();
  for (auto d : x.shape()) shape.push_back(d);
  Tensor jac = Tensor::empty(shape, x.dtype(), x.device());
  const std::size_t row_bytes = x.nbytes();
  for (std::int64_t i = 0; i < y.numel(); ++i) {
    Tensor seed = Tensor::zeros(y.shape(), y.dtype(), y.device());
    dispatch_dtype(y.dtype(), [&](auto zero) { static_cast<decltype(zero)*>(seed.raw())[i] = decltype(zero)(1); });
    scope.backward(y, seed);
    const Tensor g = cast(scope.grad_of(tracked), x.dtype());
    std::memcpy(static_cast<char*>(jac.raw()) + std::size_t(i) * row_bytes, g.raw(), row_bytes);
  }
  return jac;
}

}  // namespace

Tensor jacobian(const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
  autodiff::detail::TapeScope scope;
  const Tensor tracked = scope.track(x);
  const Tensor y = f(tracked);
  VARIATE_CHECK(y.defined(), "jacobian", "the function returned an undefined tensor");
  return jacobian_rows("jacobian", scope, y, tracked, x);
}

Tensor hvp(const std::function<Tensor(const Tensor&)>& f, const Tensor& x, const Tensor& v) {
  VARIATE_CHECK(v.defined() && v.shape() == x.shape(), "hvp", "the vector must have x's shape ", x.shape(), ", got ",
                v.defined() ? v.shape().str() : std::string("an undefined tensor"));
  autodiff::detail::TapeScope scope;
  autodiff::detail::mark_second_order();
  const Tensor tracked = scope.track(x);
  const Tensor y = f(tracked);
  detail::check_scalar_output("hvp", y);
  const Tensor g = scope.differentiable_grad(y, tracked);
  // H v is the gradient of the directional derivative g . v.
  const Tensor directional = sum(g * cast(v, g.dtype()));
  scope.backward(directional, Tensor::ones(directional.shape(), directional.dtype(), directional.device()));
  return scope.grad_of(tracked);
}

Tensor hessian(const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
  autodiff::detail::TapeScope scope;
  autodiff::detail::mark_second_order();
  const Tensor tracked = scope.track(x);
  const Tensor y = f(tracked);
  detail::check_scalar_output("hessian", y);
  return jacobian_rows("hessian", scope, scope.differentiable_grad(y, tracked), tracked, x);
}

}  // namespace variate
