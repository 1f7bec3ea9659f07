#pragma once
// Convolution, embedding, normalization, activation and dropout layers.
#include <string>

#include "variate/nn/functional.hpp"
#include "variate/nn/module.hpp"
#include "variate/random/key.hpp"

namespace variate::nn {

/// 2-d convolution over x (N, in_channels, H, W) (nn/functional.hpp conv2d): weight (out_channels,
/// in_channels, kernel_size, kernel_size) and bias (out_channels), initialised as PyTorch's
/// torch.nn.Conv2d (nn/init.hpp). Parameters "weight", "bias".
class Conv2D : public Layer {
 public:
  /// The convolution's stride, padding, bias and dtype.
  struct Options {
    std::int64_t stride = 1;
    std::int64_t padding = 0;
    bool bias = true;
    DType dtype = DType::f64;
  };
  Conv2D(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size, random::Key key,
         Options options);
  Conv2D(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size, random::Key key)
      : Conv2D(in_channels, out_channels, kernel_size, key, Options{}) {}
  Tensor forward(const Tensor& x) const override;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  Tensor weight, bias;
  std::int64_t stride, padding;
};

/// A lookup table: integer indices of any shape -> their rows of weight (num_embeddings,
/// embedding_dim), appended as a last dim. Initialised N(0, 1) as torch.nn.Embedding. Parameter
/// "weight".
class Embedding : public Layer {
 public:
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim, random::Key key, DType dtype = DType::f64);
  Tensor forward(const Tensor& indices) const override;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  Tensor weight;
};

/// Layer normalization over the last dim (nn/functional.hpp layer_norm), weight ones and bias
/// zeros at the start. Parameters "weight", "bias".
class LayerNorm : public Layer {
 public:
  explicit LayerNorm(std::int64_t dim, double eps = 1e-5, DType dtype = DType::f64);
  Tensor forward(const Tensor& x) const override;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  Tensor weight, bias;
  double eps;
};

/// An element-wise nonlinearity as a layer, for Sequential. No parameters.
class Activation : public Layer {
 public:
  explicit Activation(ActivationKind kind) : kind(kind) {}
  Tensor forward(const Tensor& x) const override { return activate(kind, x); }
  void visit_parameters(const ParameterVisitor&) override {}
  std::string describe() const override;

  ActivationKind kind;
};

/// Inverted dropout with drop probability p (nn/functional.hpp dropout). It needs a key per call,
/// so it is not a Layer: a training step passes a fresh key (fold_in(key, step)), evaluation skips it.
class Dropout : public Module {
 public:
  explicit Dropout(double p);
  Tensor forward(const Tensor& x, random::Key key) const { return dropout(x, p, key); }
  Tensor operator()(const Tensor& x, random::Key key) const { return forward(x, key); }
  void visit_parameters(const ParameterVisitor&) override {}
  std::string describe() const override;

  double p;
};

}  // namespace variate::nn
