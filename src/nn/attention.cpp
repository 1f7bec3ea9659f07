#include "variate/nn/attention.hpp"

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
                                               bool causal, DType dtype)
    : in_proj(checked_embed_dim(embed_dim, num_heads), 3 * embed_dim, random::fold_in(key, "in_proj"), dtype),
      out_proj(embed_dim, embed_dim, random::fold_in(key, "out_proj"), dtype),
      num_heads(num_heads),
      causal(causal) {}

Tensor MultiHeadSelfAttention::forward(const Tensor& x) const {
  const std::int64_t e = embed_dim();
  VARIATE_CHECK(x.defined() && (x.rank() == 2 || x.rank() == 3) && x.dim(-1) == e, describe(),
                "the input must be (B, T, ", e, ") or (T, ", e, "), got shape ",
                x.defined() ? x.shape().str() : std::string("undefined"));
  if (x.rank() == 2) return squeeze(forward(expand_dims(x, 0)), 0);
  const std::int64_t b = x.dim(0), t = x.dim(1), d = e / num_heads;
  // (B, T, 3, H, d) -> (3, B, H, T, d): queries, keys and values of every head.
  const Tensor qkv = permute(reshape(in_proj(x), {b, t, 3, num_heads, d}), {2, 0, 3, 1, 4});
  const Tensor heads = scaled_dot_product_attention(index(qkv, {0}), index(qkv, {1}), index(qkv, {2}),
                                                    causal ? causal_mask(t) : Tensor());
  return out_proj(reshape(permute(heads, {0, 2, 1, 3}), {b, t, e}));
}

void MultiHeadSelfAttention::visit_parameters(const ParameterVisitor& visit) {
  visit_child("in_proj", in_proj, visit);
  visit_child("out_proj", out_proj, visit);
}

std::string MultiHeadSelfAttention::describe() const {
  return "MultiHeadSelfAttention(embed_dim=" + std::to_string(embed_dim()) +
         ", num_heads=" + std::to_string(num_heads) + (causal ? ", causal" : "") + ")";
}

}  // namespace variate::nn
