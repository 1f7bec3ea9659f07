#pragma once
// Differentiable ops of neural-network layers that are not compositions of ops.hpp worth keeping:
// each records one tape node whose rule lives in src/autodiff/rules_nn.cpp. Composite layer ops
// (conv2d, layer_norm, dropout, attention) are in nn/functional.hpp.
#include "variate/tensor/tensor.hpp"

namespace variate {

/// max(x, 0); the derivative at 0 is taken as 0, as in PyTorch.
Tensor relu(const Tensor& x);
/// x for x > 0, alpha (exp(x) - 1) otherwise (Clevert, Unterthiner & Hochreiter 2016).
Tensor elu(const Tensor& x, double alpha = 1.0);
/// x Phi(x) with Phi the standard normal cdf: the exact GELU (Hendrycks & Gimpel 2016), not the
/// tanh approximation.
Tensor gelu(const Tensor& x);
/// x W^T + b for x (..., in), weight W (out, in) and bias b (out), or no bias when `bias` is
/// undefined: one matrix product and one tape node.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());

}  // namespace variate
