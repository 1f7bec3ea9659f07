// Backward rules of the neural-network ops (autodiff/nn_ops.hpp). The forward passes record
// nothing of their own: they call the tensor layer's kernels, or the operators with recording
// paused (gelu, whose Phi the rule shares); the rules work on constants (the cotangent and saved
// tensors, whose tape identity is dropped when saved), so their infix arithmetic records nothing.
#include <cmath>
#include <numbers>

#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate {

using autodiff::BackwardContext;
using autodiff::record;

namespace {

Tensor scalar_like(const Tensor& x, double v) { return Tensor::scalar(v, float_type(x.dtype())); }

// Phi(x) = erfc(-x / sqrt 2) / 2, accurate in the lower tail where 1 + erf would cancel.
Tensor normal_cdf(const Tensor& x) { return erfc(x * (-std::numbers::sqrt2 / 2)) * 0.5; }

}  // namespace

Tensor relu(const Tensor& x) {
  Tensor y = prim::binary(BinaryOp::maximum, x, scalar_like(x, 0.0));
  return record(y, {x}, {autodiff::stop_gradient(y)}, [](const BackwardContext& ctx) {
    const Tensor& g = ctx.grad();
    ctx.add(0, where(gt(ctx.saved(0), scalar_like(g, 0.0)), g, scalar_like(g, 0.0)));
  });
}

Tensor elu(const Tensor& x, double alpha) {
  const Tensor positive = prim::binary(BinaryOp::gt, x, 0.0);
  const Tensor negative_part = prim::mul(prim::unary(UnaryOp::expm1, x), scalar_like(x, alpha));
  Tensor y = prim::where(positive, x, negative_part);
  // d/dx = 1 for x > 0, alpha e^x = y + alpha otherwise.
  return record(y, {x}, {positive, autodiff::stop_gradient(y)}, [alpha](const BackwardContext& ctx) {
    const Tensor& g = ctx.grad();
    ctx.add(0, where(ctx.saved(0), g, g * (ctx.saved(1) + alpha)));
  });
}

Tensor gelu(const Tensor& x) {
  Tensor y;
  {
    const autodiff::NoRecording values;
    y = x * normal_cdf(x);
  }
  // d/dx x Phi(x) = Phi(x) + x phi(x).
  return record(y, {x}, {autodiff::stop_gradient(x)}, [](const BackwardContext& ctx) {
    const Tensor& x = ctx.saved(0);
    const Tensor density = exp(square(x) * -0.5) * (0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
    ctx.add(0, ctx.grad() * (normal_cdf(x) + x * density));
  });
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  VARIATE_CHECK(weight.rank() == 2, "linear", "the weight must be a matrix (out, in), got shape ", weight.shape());
  VARIATE_CHECK(x.rank() >= 1 && x.dim(-1) == weight.dim(1), "linear", "the input's last dim must be ", weight.dim(1),
                " (the weight's in-features), got input shape ", x.shape());
  VARIATE_CHECK(!bias.defined() || (bias.rank() == 1 && bias.dim(0) == weight.dim(0)), "linear",
                "the bias must have shape [", weight.dim(0), "], got ", bias.shape());
  Tensor y = prim::matmul(x, weight, false, true);
  if (bias.defined()) y = prim::add(y, bias);
  const Tensor inputs[] = {x, weight, bias.defined() ? bias : Tensor::scalar(0.0, y.dtype())};
  const Tensor saved[] = {autodiff::stop_gradient(x), autodiff::stop_gradient(weight)};
  return record(y, inputs, saved, [](const BackwardContext& ctx) {
    const Tensor &g = ctx.grad(), &x = ctx.saved(0), &w = ctx.saved(1);
    if (ctx.needs_grad(0)) ctx.add(0, matmul(g, w));
    if (ctx.needs_grad(1)) {
      // Leading (batch) dims of x and g fold into the one contracted dim of g^T x.
      const std::int64_t in = w.dim(1), out = w.dim(0);
      ctx.add(1, matmul(reshape(g, {-1, out}), reshape(x, {-1, in}), true, false));
    }
    ctx.add(2, g);  // summed over the batch dims by add
  });
}

}  // namespace variate
