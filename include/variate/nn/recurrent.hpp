#pragma once
// Recurrent layers.
#include <string>

#include "variate/nn/module.hpp"
#include "variate/random/key.hpp"

namespace variate::nn {

/// An Elman network with ReLU units started as the IRNN (Le, Jaitly & Hinton, "A Simple Way to
/// Initialize Recurrent Networks of Rectified Linear Units", 2015): h_t = relu(x_t W_ih^T + b +
/// h_{t-1} W_hh^T) from h_0 = 0, with W_hh the identity and b zero at the start, W_ih as Linear's.
/// The input x is (batch, steps, in_features); the output is the last state h_T (batch, hidden).
/// Both maps go through `linear`, so under randomized autodiff (autodiff/rad.hpp) each step keeps a
/// sketch of x_t and of h_{t-1}. Parameters "input_weight", "recurrent_weight", "bias".
class ReluRnn : public Layer {
 public:
  ReluRnn(std::int64_t in_features, std::int64_t hidden, random::Key key, DType dtype = DType::f64);
  Tensor forward(const Tensor& x) const override;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  std::int64_t in_features() const { return input_weight.dim(1); }
  std::int64_t hidden() const { return input_weight.dim(0); }

  Tensor input_weight, recurrent_weight, bias;
};

}  // namespace variate::nn
