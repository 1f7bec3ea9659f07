#pragma once
// Layer computations as functions of tensors, composed of differentiable ops (autodiff/ops.hpp,
// autodiff/nn_ops.hpp), so their gradients come from those ops' rules. The layer classes call these
// after checking shapes against their own configuration.
#include <cstdint>

#include "variate/random/key.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::nn {

enum class ActivationKind : std::uint8_t { identity, relu, tanh, softplus, elu, gelu, sigmoid };
const char* name(ActivationKind kind);
Tensor activate(ActivationKind kind, const Tensor& x);

/// 2-d convolution (cross-correlation, as PyTorch's conv2d) of x (N, C, H, W) with weight
/// (O, C, kh, kw) and bias (O) or none: out (N, O, (H + 2 padding - kh) / stride + 1, ...).
/// Computed as im2col (strided slices of the zero-padded input) and one batched matrix product.
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, std::int64_t stride = 1,
              std::int64_t padding = 0);

/// (x - mean) / sqrt(var + eps) * weight + bias over the last axis (Ba, Kiros & Hinton 2016), the
/// variance biased (divided by n) as in PyTorch; weight and bias have x's last dim.
Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps = 1e-5);

/// Inverted dropout: each element kept with probability 1 - p and scaled by 1 / (1 - p), so the
/// expectation is x. The mask is a function of `key` alone (uniform draws >= p), so the same key
/// drops the same elements; 0 <= p < 1.
Tensor dropout(const Tensor& x, double p, random::Key key);

/// (T, T) bool: true where query t may attend to key s, i.e. s <= t.
Tensor causal_mask(std::int64_t length);
/// softmax(q k^T / sqrt(d) where mask else -inf) v over the last two dims, q (..., T, d), k and
/// v (..., S, d); `mask` (T, S) bool or undefined for none. Every query must see some key.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask = Tensor());
/// Causal attention within blocks, the Image Transformer's local 1D attention (Parmar et al. 2018,
/// section 3.2): the T positions of q, k and v (..., T, d) are cut into blocks of `block` (T a
/// multiple of it); a query attends to the keys of its own block up to itself and to every key of
/// the block before. Position t thus sees t's block and the previous one, so a stack of n layers
/// sees about n blocks back, at a cost linear in T. block == T is causal attention over everything.
Tensor local_causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, std::int64_t block);
/// (blocks, block, 2 block) bool: local_causal_attention's mask of query i of a block over the
/// keys of the previous block (the first `block` columns) and of its own.
Tensor local_causal_mask(std::int64_t blocks, std::int64_t block);

}  // namespace variate::nn
