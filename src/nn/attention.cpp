#include "variate/nn/attention.hpp"

#include <algorithm>

#include "variate/autodiff/ops.hpp"
#include "variate/nn/functional.hpp"

namespace variate::nn {

namespace {

std::int64_t checked_embed_dim(std::int64_t embed_dim, std::int64_t num_heads) {
  VARIATE_CHECK(embed_dim >= 1 && num_heads >= 1 && embed_dim % num_heads == 0, "MultiHeadSelfAttention",
                "embed_dim must be a positive multiple of num_heads, got embed_dim ", embed_dim, " and num_heads ",
                num_heads);
  return embed_dim;
}

}  // namespace

MultiHeadSelfAttention::MultiHeadSelfAttention(std::int64_t embed_dim, std::int64_t num_heads, random::Key key,
                                               bool causal, DType dtype, std::int64_t block_length)
    : in_proj(checked_embed_dim(embed_dim, num_heads), 3 * embed_dim, random::fold_in(key, "in_proj"), dtype),
      out_proj(embed_dim, embed_dim, random::fold_in(key, "out_proj"), dtype),
      num_heads(num_heads),
      causal(causal),
      block_length(block_length) {
  VARIATE_CHECK(block_length >= 0 && (causal || block_length == 0), describe(),
                "block_length must be >= 0, and > 0 only for causal attention, got ", block_length);
}

Tensor MultiHeadSelfAttention::forward(const Tensor& x) const {
  const std::int64_t e = embed_dim();
  VARIATE_CHECK(x.defined() && (x.rank() == 2 || x.rank() == 3) && x.dim(-1) == e, describe(),
                "the input must be (B, T, ", e, ") or (T, ", e, "), got shape ",
                x.defined() ? x.shape().str() : std::string("undefined"));
  if (x.rank() == 2) return squeeze(forward(expand_dims(x, 0)), 0);
  const std::int64_t b = x.dim(0), t = x.dim(1), d = e / num_heads;
  // (B, T, 3, H, d) -> (3, B, H, T, d): queries, keys and values of every head.
  const Tensor qkv = permute(reshape(in_proj(x), {b, t, 3, num_heads, d}), {2, 0, 3, 1, 4});
  const Tensor q = index(qkv, {0}), k = index(qkv, {1}), v = index(qkv, {2});
  const Tensor heads = causal && block_length > 0 && block_length < t
                           ? local_causal_attention(q, k, v, block_length)
                           : scaled_dot_product_attention(q, k, v, causal ? causal_mask(t) : Tensor());
  return out_proj(reshape(permute(heads, {0, 2, 1, 3}), {b, t, e}));
}

Tensor MultiHeadSelfAttention::decode(const Tensor& x, KeyValueCache& cache) const {
  const std::int64_t e = embed_dim();
  VARIATE_CHECK(causal, describe(), "decode needs causal attention");
  VARIATE_CHECK(x.defined() && x.rank() == 2 && x.dim(1) == e, describe(), "decode's input must be (B, ", e,
                "), got shape ", x.defined() ? x.shape().str() : std::string("undefined"));
  const std::int64_t b = x.dim(0), d = e / num_heads, t = cache.length;
  // (B, 3, H, 1, d) -> (3, B, H, 1, d): this position's query, key and value in every head.
  const Tensor qkv = permute(reshape(in_proj(x), {b, 3, num_heads, 1, d}), {1, 0, 2, 3, 4});
  const Tensor key = index(qkv, {1}), value = index(qkv, {2});
  if (cache.length == 0) {
    cache.keys = key, cache.values = value;
  } else {
    // Keep the positions from the first one position t may see: all of them, or (local) the start
    // of the block before t's.
    const std::int64_t first = block_length > 0 ? std::max<std::int64_t>(0, (t / block_length - 1) * block_length) : 0;
    const std::int64_t held = cache.keys.dim(2), drop = first - (t - held);
    VARIATE_CHECK(cache.keys.dim(0) == b && drop >= 0, describe(), "the cache holds ", held, " of ", t,
                  " positions for a batch of ", cache.keys.dim(0), ", which does not fit this input of shape ",
                  x.shape());
    cache.keys = concat({slice(cache.keys, 2, drop, held), key}, 2);
    cache.values = concat({slice(cache.values, 2, drop, held), value}, 2);
  }
  cache.length = t + 1;
  const Tensor heads = scaled_dot_product_attention(index(qkv, {0}), cache.keys, cache.values);
  return out_proj(reshape(heads, {b, e}));
}

void MultiHeadSelfAttention::visit_parameters(const ParameterVisitor& visit) {
  visit_child("in_proj", in_proj, visit);
  visit_child("out_proj", out_proj, visit);
}

std::string MultiHeadSelfAttention::describe() const {
  return "MultiHeadSelfAttention(embed_dim=" + std::to_string(embed_dim()) +
         ", num_heads=" + std::to_string(num_heads) + (causal ? ", causal" : "") +
         (block_length > 0 ? ", block_length=" + std::to_string(block_length) : std::string()) + ")";
}

}  // namespace variate::nn
