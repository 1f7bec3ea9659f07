#pragma once
// Multi-head self-attention (Vaswani et al. 2017, "Attention is all you need", section 3.2).
#include <string>

#include "variate/nn/linear.hpp"

namespace variate::nn {

/// Self-attention over x (B, T, embed_dim) or (T, embed_dim): queries, keys and values are one
/// projection "in_proj" (3 embed_dim outputs) split into num_heads heads of embed_dim / num_heads;
/// each head attends with scaled dot products (nn/functional.hpp), the heads are concatenated and
/// projected by "out_proj". With `causal`, position t attends only to positions <= t, as an
/// autoregressive model needs. Both projections are initialised as nn::Linear.
class MultiHeadSelfAttention : public Layer {
 public:
  MultiHeadSelfAttention(std::int64_t embed_dim, std::int64_t num_heads, random::Key key, bool causal = false,
                         DType dtype = DType::f64);
  Tensor forward(const Tensor& x) const override;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  std::int64_t embed_dim() const { return out_proj.in_features(); }

  Linear in_proj, out_proj;
  std::int64_t num_heads;
  bool causal;
};

}  // namespace variate::nn
