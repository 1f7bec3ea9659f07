#pragma once
// A decoder-only Transformer over sequences of T values, in the spirit of the Image Transformer
// (Parmar et al. 2018, on an image's pixels in raster order): the output at position t is a
// function of the values before t only, so it can parameterize the conditionals of an
// autoregressive distribution (distributions/autoregressive_bernoulli.hpp).
#include <string>
#include <vector>

#include "variate/nn/layers.hpp"
#include "variate/nn/transformer.hpp"

namespace variate::nn {

/// The inputs are shifted right behind a learned start vector: position 0 reads "start", position
/// t > 0 the value x[t-1] embedded as off + x[t-1] (on - off) (a 0/1 value reads a row, and the map
/// is differentiable in x), plus a learned position embedding. Then `layers` causal
/// TransformerBlocks, a LayerNorm and a Linear head give one logit per position.
/// Parameters "tokens.weight" (rows off, on, start), "positions.weight", "blocks.<i>.*",
/// "norm.*", "head.*".
class AutoregressiveTransformer : public Module {
 public:
  /// The transformer's sequence length, width, depth, heads, local attention and dtype.
  struct Options {
    std::int64_t length = 0;  // T
    std::int64_t embed_dim = 64;
    std::int64_t layers = 4;
    std::int64_t num_heads = 4;
    /// > 0: local attention in blocks of this many positions (T a multiple of it); 0: over all earlier positions.
    std::int64_t block_length = 0;
    DType dtype = DType::f64;
  };
  AutoregressiveTransformer(const Options& options, random::Key key);

  /// x (B, T) -> logits (B, T); logits[:, t] depends on x[:, :t] alone.
  Tensor logits(const Tensor& x) const;
  std::int64_t length() const { return options.length; }
  DType dtype() const { return options.dtype; }
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  /// The logits one position at a time, each step costing that position alone (cached keys and
  /// values): what ancestral sampling needs. The logits equal logits()'s, to rounding.
  class Decoder {
   public:
    /// `network` must outlive the decoder.
    Decoder(const AutoregressiveTransformer& network, std::int64_t batch);
    /// The logits (B) at the next position, given the values (B) at the position before it
    /// (undefined at position 0).
    Tensor next(const Tensor& previous);
    std::int64_t position() const { return position_; }

   private:
    const AutoregressiveTransformer& network_;
    std::int64_t batch_;
    std::int64_t position_ = 0;
    std::vector<KeyValueCache> caches_;
  };

  Options options;
  Embedding tokens, positions;
  std::vector<TransformerBlock> blocks;
  LayerNorm norm;
  Linear head;
};

}  // namespace variate::nn
