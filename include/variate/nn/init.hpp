#pragma once
// Parameter initialisers: pure functions of a key, so a module built twice from one key is the same.
#include "variate/random/key.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::nn {

/// Uniform on (-bound, bound).
Tensor uniform_init(random::Key key, const Shape& shape, double bound, DType dtype);
/// PyTorch's default for Linear and Conv2d weights and biases: U(-1/sqrt(fan_in), 1/sqrt(fan_in)),
/// which its kaiming_uniform_(a = sqrt(5)) on the weight works out to (torch.nn.Linear and
/// torch.nn.Conv2d documentation, "Variables"). fan_in = in_features, or in_channels * kh * kw.
Tensor fan_in_uniform(random::Key key, const Shape& shape, std::int64_t fan_in, DType dtype);

}  // namespace variate::nn
