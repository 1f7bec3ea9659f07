#include "variate/nn/functional.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/random/samplers.hpp"

namespace variate::nn {

const char* name(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::identity: return "identity";
    case ActivationKind::relu: return "relu";
    case ActivationKind::tanh: return "tanh";
    case ActivationKind::softplus: return "softplus";
    case ActivationKind::elu: return "elu";
    case ActivationKind::gelu: return "gelu";
    case ActivationKind::sigmoid: return "sigmoid";
  }
  return "?";
}

Tensor activate(ActivationKind kind, const Tensor& x) {
  switch (kind) {
    case ActivationKind::identity: return x;
    case ActivationKind::relu: return relu(x);
    case ActivationKind::tanh: return tanh(x);
    case ActivationKind::softplus: return softplus(x);
    case ActivationKind::elu: return elu(x);
    case ActivationKind::gelu: return gelu(x);
    case ActivationKind::sigmoid: return sigmoid(x);
  }
  return x;
}

namespace {

// x with `padding` zeros added on both sides of `axis`.
Tensor zero_pad(const Tensor& x, int axis, std::int64_t padding) {
  if (padding == 0) return x;
  Shape side = x.shape();
  side[axis] = padding;
  const Tensor zeros = Tensor::zeros(side, x.dtype(), x.device());
  return concat({zeros, x, zeros}, axis);
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, std::int64_t stride, std::int64_t padding) {
  VARIATE_CHECK(x.rank() == 4, "conv2d", "the input must be (N, C, H, W), got shape ", x.shape());
  VARIATE_CHECK(weight.rank() == 4 && weight.dim(1) == x.dim(1), "conv2d", "the weight must be (O, ", x.dim(1),
                ", kh, kw) for an input with ", x.dim(1), " channels, got shape ", weight.shape());
  VARIATE_CHECK(!bias.defined() || (bias.rank() == 1 && bias.dim(0) == weight.dim(0)), "conv2d",
                "the bias must have shape [", weight.dim(0), "], got ", bias.shape());
  VARIATE_CHECK(stride >= 1 && padding >= 0, "conv2d", "stride must be >= 1 and padding >= 0, got stride ", stride,
                " and padding ", padding);
  const std::int64_t n = x.dim(0), c = x.dim(1), kh = weight.dim(2), kw = weight.dim(3), o = weight.dim(0);
  const std::int64_t padded_h = x.dim(2) + 2 * padding, padded_w = x.dim(3) + 2 * padding;
  VARIATE_CHECK(kh <= padded_h && kw <= padded_w, "conv2d", "the kernel ", kh, "x", kw,
                " is larger than the padded input ", padded_h, "x", padded_w);
  const std::int64_t out_h = (padded_h - kh) / stride + 1, out_w = (padded_w - kw) / stride + 1;
  const Tensor padded = zero_pad(zero_pad(x, 2, padding), 3, padding);
  // Column (c, i, j) of the patch matrix holds, for every output position, the input element that
  // kernel tap (i, j) of channel c multiplies there.
  std::vector<Tensor> taps;
  taps.reserve(std::size_t(kh * kw));
  for (std::int64_t i = 0; i < kh; ++i) {
    const Tensor rows = slice(padded, 2, i, i + stride * (out_h - 1) + 1, stride);
    for (std::int64_t j = 0; j < kw; ++j) taps.push_back(slice(rows, 3, j, j + stride * (out_w - 1) + 1, stride));
  }
  const Tensor patches = reshape(stack(taps, 2), {n, c * kh * kw, out_h * out_w});
  Tensor out = matmul(reshape(weight, {o, c * kh * kw}), patches);  // (N, O, out_h * out_w)
  if (bias.defined()) out = out + reshape(bias, {o, 1});
  return reshape(out, {n, o, out_h, out_w});
}

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
  VARIATE_CHECK(x.rank() >= 1, "layer_norm", "the input must have at least one dim, got a scalar");
  VARIATE_CHECK(weight.shape() == Shape{x.dim(-1)} && bias.shape() == Shape{x.dim(-1)}, "layer_norm",
                "weight and bias must have shape [", x.dim(-1), "] (the input's last dim), got ", weight.shape(),
                " and ", bias.shape());
  const int last[] = {-1};
  const Tensor centered = x - mean(x, last, true);
  const Tensor variance = mean(square(centered), last, true);
  return centered / sqrt(variance + eps) * weight + bias;
}

Tensor dropout(const Tensor& x, double p, random::Key key) {
  VARIATE_CHECK(p >= 0 && p < 1, "dropout", "the drop probability must be in [0, 1), got ", p);
  if (p == 0) return x;
  const DType t = float_type(x.dtype());
  const Tensor kept = prim::binary(BinaryOp::ge, random::uniform(key, x.shape(), t), p);
  const Tensor scale = prim::mul(prim::cast(kept, t), Tensor::scalar(1 / (1 - p), t));
  return x * scale;
}

Tensor causal_mask(std::int64_t length) {
  const Tensor positions = Tensor::arange(length);
  return ge(reshape(positions, {length, 1}), reshape(positions, {1, length}));
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask) {
  VARIATE_CHECK(q.rank() >= 2 && k.rank() >= 2 && v.rank() >= 2 && q.dim(-1) == k.dim(-1) && k.dim(-2) == v.dim(-2),
                "scaled_dot_product_attention", "q (..., T, d), k (..., S, d) and v (..., S, dv) do not fit: shapes ",
                q.shape(), ", ", k.shape(), " and ", v.shape());
  Tensor scores = matmul(q, k, false, true) * (1 / std::sqrt(double(q.dim(-1))));
  if (mask.defined()) {
    VARIATE_CHECK(mask.shape() == (Shape{q.dim(-2), k.dim(-2)}), "scaled_dot_product_attention",
                  "the mask must have shape [", q.dim(-2), ", ", k.dim(-2), "], got ", mask.shape());
    const Tensor hidden = Tensor::scalar(-std::numeric_limits<double>::infinity(), scores.dtype());
    scores = where(mask, scores, hidden);
  }
  return matmul(softmax(scores, -1), v);
}

Tensor local_causal_mask(std::int64_t blocks, std::int64_t block) {
  // Column s < block is key s of the previous block (there is none before block 0); column
  // block + j is key j of the query's own block, visible up to the query's own position i.
  const Tensor i = reshape(Tensor::arange(block, DType::f64), {1, block, 1});
  const Tensor s = reshape(Tensor::arange(2 * block, DType::f64), {1, 1, 2 * block});
  const Tensor b = reshape(Tensor::arange(blocks, DType::f64), {blocks, 1, 1});
  const Tensor previous = logical_and(lt(s, Tensor::scalar(double(block))), gt(b, Tensor::scalar(0.0)));
  return logical_or(previous, logical_and(ge(s, Tensor::scalar(double(block))), le(s - double(block), i)));
}

namespace {

// x (..., T, d) -> (..., T / block, block, d).
Tensor in_blocks(const Tensor& x, std::int64_t block) {
  Shape shape = x.shape();
  const int r = shape.rank();
  shape[r - 2] = x.dim(-2) / block;
  shape.insert(r - 1, block);
  return reshape(x, shape);
}

// The blocks of x (..., n, block, d), each preceded by the one before it (zeros before the first):
// (..., n, 2 block, d).
Tensor with_previous_block(const Tensor& x) {
  const int axis = x.rank() - 3;
  Shape first = x.shape();
  first[axis] = 1;
  const Tensor previous = concat({Tensor::zeros(first, x.dtype()), slice(x, axis, 0, x.dim(axis) - 1)}, axis);
  return concat({previous, x}, axis + 1);
}

}  // namespace

Tensor local_causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, std::int64_t block) {
  VARIATE_CHECK(q.rank() >= 2 && q.shape() == k.shape() && q.shape() == v.shape(), "local_causal_attention",
                "q, k and v must have one shape (..., T, d), got ", q.shape(), ", ", k.shape(), " and ", v.shape());
  const std::int64_t t = q.dim(-2);
  VARIATE_CHECK(block >= 1 && t % block == 0, "local_causal_attention", "the block length must divide the ", t,
                " positions, got ", block);
  if (block == t) return scaled_dot_product_attention(q, k, v, causal_mask(t));
  const Tensor keys = with_previous_block(in_blocks(k, block)), values = with_previous_block(in_blocks(v, block));
  // Scaling the queries costs less than scaling the scores: 2 block keys per query against d.
  Tensor scores = matmul(in_blocks(q * (1 / std::sqrt(double(q.dim(-1)))), block), keys, false, true);
  const Tensor hidden = Tensor::scalar(-std::numeric_limits<double>::infinity(), scores.dtype());
  scores = where(local_causal_mask(t / block, block), scores, hidden);
  return reshape(matmul(softmax(scores, -1), values), q.shape());
}

}  // namespace variate::nn
