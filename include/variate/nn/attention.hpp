#pragma once
// Multi-head self-attention (Vaswani et al. 2017, "Attention is all you need", section 3.2).
#include <string>

#include "variate/nn/linear.hpp"

namespace variate::nn {

/// The keys and values (B, num_heads, W, head_dim) of the positions decoded so far that later
/// positions may still attend to: the last W of the `length` positions. Starts empty.
struct KeyValueCache {
  Tensor keys, values;
  std::int64_t length = 0;
};

/// Self-attention over x (B, T, embed_dim) or (T, embed_dim): queries, keys and values are one
/// projection "in_proj" (3 embed_dim outputs) split into num_heads heads of embed_dim / num_heads;
/// each head attends with scaled dot products (nn/functional.hpp), the heads are concatenated and
/// projected by "out_proj". With `causal`, position t attends only to positions <= t, as an
/// autoregressive model needs; with a `block_length` L > 0 as well, only to its own block of L
/// positions and the one before (nn/functional.hpp local_causal_attention; T a multiple of L when
/// T > L). Both projections are initialised as nn::Linear.
class MultiHeadSelfAttention : public Layer {
 public:
  MultiHeadSelfAttention(std::int64_t embed_dim, std::int64_t num_heads, random::Key key, bool causal = false,
                         DType dtype = DType::f64, std::int64_t block_length = 0);
  Tensor forward(const Tensor& x) const override;
  /// Causal attention for one more position, as autoregressive sampling needs: x (B, embed_dim) is
  /// the input at position cache.length, whose key and value join the cache; returns the output at
  /// that position (B, embed_dim), forward's output there (to rounding), at the cost of that
  /// position alone.
  Tensor decode(const Tensor& x, KeyValueCache& cache) const;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  std::int64_t embed_dim() const { return out_proj.in_features(); }

  Linear in_proj, out_proj;
  std::int64_t num_heads;
  bool causal;
  std::int64_t block_length;
};

}  // namespace variate::nn
