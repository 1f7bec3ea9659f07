// Backward rules of the neural-network ops (autodiff/nn_ops.hpp). The forward passes record
// nothing of their own: they call the tensor layer's kernels, or the operators with recording
// paused (gelu, whose Phi the rule shares); the rules work on constants (the cotangent and saved
// tensors, whose tape identity is dropped when saved), so their infix arithmetic records nothing.
#include <array>
#include <cmath>
#include <numbers>

#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/rad.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate {

using autodiff::BackwardContext;
using autodiff::record;

namespace {

Tensor scalar_like(const Tensor& x, double v) { return Tensor::scalar(v, float_type(x.dtype())); }

// Phi(x) = erfc(-x / sqrt 2) / 2, accurate in the lower tail where 1 + erf would cancel.
Tensor normal_cdf(const Tensor& x) { return erfc(x * (-std::numbers::sqrt2 / 2)) * 0.5; }

// ReLU's mask packed 53 units to an f64 word, sum_j m_j 2^j: an integer below 2^53, which an f64
// holds exactly (the tensor layer has no bitwise ops). 8 bytes per 53 units, not one per unit.
constexpr std::int64_t kMaskBitsPerWord = 53;

Tensor bit_values() {
  static const std::array<double, kMaskBitsPerWord> powers = [] {
    std::array<double, kMaskBitsPerWord> p{};
    for (std::size_t j = 0; j < p.size(); ++j) p[j] = std::ldexp(1.0, int(j));
    return p;
  }();
  return Tensor::from(std::span<const double>(powers), Shape{kMaskBitsPerWord});
}

Tensor pack_mask(const Tensor& mask) {
  const std::int64_t n = mask.numel(), words = (n + kMaskBitsPerWord - 1) / kMaskBitsPerWord;
  Tensor bits = prim::reshape(prim::cast(mask, DType::f64), Shape{n});
  if (words * kMaskBitsPerWord > n) {
    const Tensor padded[] = {bits, Tensor::zeros(Shape{words * kMaskBitsPerWord - n})};
    bits = prim::concat(padded, 0);
  }
  const int units[] = {1};
  return prim::sum(prim::mul(prim::reshape(bits, Shape{words, kMaskBitsPerWord}), bit_values()), units);
}

// The mask of `shape` from its words: bit j of w is q - 2 floor(q / 2) for q = floor(w / 2^j), all
// exact, since dividing by a power of 2 is.
Tensor unpack_mask(const Tensor& words, const Shape& shape) {
  const Tensor q = prim::unary(UnaryOp::floor, prim::div(prim::expand_dims(words, 1), bit_values()));
  const Tensor half = prim::unary(UnaryOp::floor, prim::mul(q, Tensor::scalar(0.5)));
  const Tensor bits = prim::sub(q, prim::mul(half, Tensor::scalar(2.0)));
  const Tensor flat = prim::slice(prim::reshape(bits, Shape{words.numel() * kMaskBitsPerWord}), 0, 0, shape.numel());
  return prim::binary(BinaryOp::gt, prim::reshape(flat, shape), 0.5);
}

}  // namespace

Tensor relu(const Tensor& x) {
  Tensor y = prim::binary(BinaryOp::maximum, x, scalar_like(x, 0.0));
  // The mask, not y: a RAD linear layer after this one keeps only a sketch of y, which would not
  // shrink the tape if y itself stayed alive here.
  const Tensor positive = pack_mask(prim::binary(BinaryOp::gt, y, 0.0));
  return record(y, {x}, {positive}, [](const BackwardContext& ctx) {
    const Tensor& g = ctx.grad();
    ctx.add(0, where(unpack_mask(ctx.saved(0), g.shape()), g, scalar_like(g, 0.0)));
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
  std::uint64_t op_index = 0;
  const autodiff::RadConfig* rad = weight.dim(1) > 0 && autodiff::detail::is_tracked(weight)
                                       ? autodiff::detail::rad_for_next_op(&op_index)
                                       : nullptr;
  if (rad != nullptr) {
    // Under RAD the input's sketch, compressed or not, replaces the input; input and bias gradients
    // stay exact.
    const std::int64_t in = weight.dim(1);
    const Tensor rows = prim::reshape(x, Shape{x.numel() / in, in});
    const auto [stored, ranges] = autodiff::detail::rad_save(*rad, op_index, rows);
    const Tensor sketched[] = {stored, ranges, autodiff::stop_gradient(weight)};
    return record(y, inputs, sketched, [rad = *rad, op_index](const BackwardContext& ctx) {
      const Tensor &g = ctx.grad(), &w = ctx.saved(2);
      if (ctx.needs_grad(0)) ctx.add(0, matmul(g, w));
      if (ctx.needs_grad(1)) {
        const Tensor x_hat = autodiff::detail::rad_estimate(rad, op_index, ctx.saved(0), ctx.saved(1), w.dim(1));
        ctx.add(1, matmul(reshape(g, {-1, w.dim(0)}), x_hat, true, false));
      }
      ctx.add(2, g);
    });
  }
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
