#pragma once
// Fully connected layers.
#include <string>

#include "variate/nn/module.hpp"
#include "variate/random/key.hpp"

namespace variate::nn {

/// y = x W^T + b for x (..., in_features): weight (out_features, in_features) and bias
/// (out_features), initialised as PyTorch's torch.nn.Linear (nn/init.hpp). Parameters "weight",
/// "bias".
class Linear : public Layer {
 public:
  Linear(std::int64_t in_features, std::int64_t out_features, random::Key key, DType dtype = DType::f64,
         bool bias = true);
  Tensor forward(const Tensor& x) const override;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  std::int64_t in_features() const { return weight.dim(1); }
  std::int64_t out_features() const { return weight.dim(0); }

  Tensor weight, bias;  // bias undefined when built without one
};

/// A Linear whose weight is multiplied by a fixed 0/1 mask (out_features, in_features), as in MADE
/// (nn/made.hpp): y = x (W * M)^T + b. The mask is configuration, not a parameter.
class MaskedLinear : public Layer {
 public:
  MaskedLinear(const Tensor& mask, random::Key key, DType dtype = DType::f64);
  Tensor forward(const Tensor& x) const override;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  Linear linear;
  Tensor mask;  // of the weight's dtype
};

}  // namespace variate::nn
