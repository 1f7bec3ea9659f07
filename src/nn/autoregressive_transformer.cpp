#include "variate/nn/autoregressive_transformer.hpp"

#include "variate/autodiff/ops.hpp"

namespace variate::nn {

namespace {

constexpr const char* kName = "AutoregressiveTransformer";

const AutoregressiveTransformer::Options& checked(const AutoregressiveTransformer::Options& o) {
  VARIATE_CHECK(o.length >= 1 && o.embed_dim >= 1 && o.layers >= 1 && o.num_heads >= 1, kName,
                "length, embed_dim, layers and num_heads must be >= 1, got ", o.length, ", ", o.embed_dim, ", ",
                o.layers, " and ", o.num_heads);
  VARIATE_CHECK(o.embed_dim % o.num_heads == 0, kName, "embed_dim ", o.embed_dim, " must be a multiple of num_heads ",
                o.num_heads);
  VARIATE_CHECK(
      o.block_length >= 0 && (o.block_length == 0 || o.block_length >= o.length || o.length % o.block_length == 0),
      kName, "block_length ", o.block_length, " must be 0 (no blocks) or divide the length ", o.length);
  VARIATE_CHECK(o.dtype == DType::f64 || o.dtype == DType::f32, kName, "dtype must be f64 or f32, got ", o.dtype);
  return o;
}

// off + x (on - off) for values x (...) -> (..., E).
Tensor embed_values(const Tensor& tokens, const Tensor& x) {
  const Tensor off = index(tokens, {0});
  return off + expand_dims(x, -1) * (index(tokens, {1}) - off);
}

}  // namespace

AutoregressiveTransformer::AutoregressiveTransformer(const Options& o, random::Key key)
    : options(checked(o)),
      tokens(3, o.embed_dim, random::fold_in(key, "tokens"), o.dtype),
      positions(o.length, o.embed_dim, random::fold_in(key, "positions"), o.dtype),
      norm(o.embed_dim, 1e-5, o.dtype),
      head(o.embed_dim, 1, random::fold_in(key, "head"), o.dtype) {
  const TransformerBlock::Options block{
      .num_heads = o.num_heads, .causal = true, .block_length = o.block_length, .dtype = o.dtype};
  for (std::int64_t i = 0; i < o.layers; ++i)
    blocks.emplace_back(o.embed_dim, random::fold_in(random::fold_in(key, "blocks"), std::uint64_t(i)), block);
}

Tensor AutoregressiveTransformer::logits(const Tensor& x) const {
  const std::int64_t t = length(), e = options.embed_dim;
  VARIATE_CHECK(
      x.defined() && x.rank() == 2 && x.dim(1) == t && x.dtype() == dtype(), describe(), "the input must be (B, ", t,
      ") of dtype ", dtype(), ", got ",
      x.defined() ? x.shape().str() + " of dtype " + std::string(variate::name(x.dtype())) : "an undefined tensor");
  const std::int64_t b = x.dim(0);
  const Tensor start = broadcast_to(reshape(index(tokens.weight, {2}), {1, 1, e}), {b, 1, e});
  Tensor h = concat({start, embed_values(tokens.weight, slice(x, 1, 0, t - 1))}, 1) + positions.weight;
  for (const TransformerBlock& block : blocks) h = block(h);
  return reshape(head(norm(h)), {b, t});
}

AutoregressiveTransformer::Decoder::Decoder(const AutoregressiveTransformer& network, std::int64_t batch)
    : network_(network), batch_(batch), caches_(network.blocks.size()) {
  VARIATE_CHECK(batch >= 1, network.describe(), "the decoder's batch must be >= 1, got ", batch);
}

Tensor AutoregressiveTransformer::Decoder::next(const Tensor& previous) {
  const AutoregressiveTransformer& n = network_;
  const std::int64_t e = n.options.embed_dim;
  VARIATE_CHECK(position_ < n.length(), n.describe(), "all ", n.length(), " positions are decoded");
  VARIATE_CHECK(
      position_ == 0 ? !previous.defined()
                     : previous.defined() && previous.shape() == Shape{batch_} && previous.dtype() == n.dtype(),
      n.describe(), "the decoder's input at position ", position_, " must be ",
      position_ == 0 ? "undefined (the start)" : "the previous values, shape [" + std::to_string(batch_) + "]",
      ", got ", previous.defined() ? previous.shape().str() : std::string("an undefined tensor"));
  Tensor h = position_ == 0 ? broadcast_to(reshape(index(n.tokens.weight, {2}), {1, e}), {batch_, e})
                            : embed_values(n.tokens.weight, previous);
  h = h + index(n.positions.weight, {position_});
  for (std::size_t i = 0; i < n.blocks.size(); ++i) h = n.blocks[i].decode(h, caches_[i]);
  ++position_;
  return reshape(n.head(n.norm(h)), {batch_});
}

void AutoregressiveTransformer::visit_parameters(const ParameterVisitor& visit) {
  visit_child("tokens", tokens, visit);
  visit_child("positions", positions, visit);
  for (std::size_t i = 0; i < blocks.size(); ++i) visit_child("blocks." + std::to_string(i), blocks[i], visit);
  visit_child("norm", norm, visit);
  visit_child("head", head, visit);
}

std::string AutoregressiveTransformer::describe() const {
  return "AutoregressiveTransformer(length=" + std::to_string(length()) +
         ", embed_dim=" + std::to_string(options.embed_dim) + ", layers=" + std::to_string(options.layers) +
         ", num_heads=" + std::to_string(options.num_heads) + ", block_length=" + std::to_string(options.block_length) +
         ")";
}

}  // namespace variate::nn
