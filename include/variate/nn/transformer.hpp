#pragma once
// A Transformer decoder block with the layer norms before each sublayer (the pre-norm block of
// GPT-2, Radford et al. 2019; Xiong et al. 2020 show it trains without a learning-rate warm-up).
#include <string>

#include "variate/nn/attention.hpp"
#include "variate/nn/layers.hpp"

namespace variate::nn {

/// h = x + attention(norm1(x)), out = h + fc2(act(fc1(norm2(h)))) over x (B, T, embed_dim), act
/// ReLU by default, as in Vaswani et al. and the Image Transformer (GELU costs an erfc per unit).
/// Parameters "norm1.*", "attention.in_proj.*", "attention.out_proj.*", "norm2.*", "fc1.*", "fc2.*".
class TransformerBlock : public Layer {
 public:
  /// The block's heads, MLP width, causality, local attention, activation and dtype.
  struct Options {
    std::int64_t num_heads = 4;
    /// Units of the MLP's hidden layer; 0: 4 embed_dim, as in Vaswani et al. 2017.
    std::int64_t hidden = 0;
    bool causal = true;
    /// > 0: local causal attention in blocks of this many positions (MultiHeadSelfAttention).
    std::int64_t block_length = 0;
    ActivationKind activation = ActivationKind::relu;
    DType dtype = DType::f64;
  };
  TransformerBlock(std::int64_t embed_dim, random::Key key, Options options);
  Tensor forward(const Tensor& x) const override;
  /// The block at one more position (MultiHeadSelfAttention::decode): x (B, embed_dim) -> (B, embed_dim).
  Tensor decode(const Tensor& x, KeyValueCache& cache) const;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  LayerNorm norm1;
  MultiHeadSelfAttention attention;
  LayerNorm norm2;
  Linear fc1, fc2;
  ActivationKind activation;
};

}  // namespace variate::nn
