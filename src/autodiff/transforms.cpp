#include "variate/autodiff/transforms.hpp"

#include <cstring>

namespace variate {

Tensor jacobian(const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
  autodiff::detail::TapeScope scope;
  const Tensor tracked = scope.track(x);
  const Tensor y = f(tracked);
  VARIATE_CHECK(y.defined(), "jacobian", "the function returned an undefined tensor");
  VARIATE_CHECK(x.device().kind == DeviceKind::cpu, "jacobian", "needs cpu tensors, got ", x.device());
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

}  // namespace variate
