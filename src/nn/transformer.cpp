#include "variate/nn/transformer.hpp"

#include "variate/autodiff/ops.hpp"

namespace variate::nn {

namespace {

std::int64_t hidden_units(std::int64_t embed_dim, const TransformerBlock::Options& o) {
  VARIATE_CHECK(o.hidden >= 0, "TransformerBlock", "hidden must be >= 0 (0: 4 embed_dim), got ", o.hidden);
  return o.hidden > 0 ? o.hidden : 4 * embed_dim;
}

}  // namespace

TransformerBlock::TransformerBlock(std::int64_t embed_dim, random::Key key, Options o)
    : norm1(embed_dim, 1e-5, o.dtype),
      attention(embed_dim, o.num_heads, random::fold_in(key, "attention"), o.causal, o.dtype, o.block_length),
      norm2(embed_dim, 1e-5, o.dtype),
      fc1(embed_dim, hidden_units(embed_dim, o), random::fold_in(key, "fc1"), o.dtype),
      fc2(hidden_units(embed_dim, o), embed_dim, random::fold_in(key, "fc2"), o.dtype),
      activation(o.activation) {}

Tensor TransformerBlock::forward(const Tensor& x) const {
  const Tensor h = x + attention(norm1(x));
  return h + fc2(activate(activation, fc1(norm2(h))));
}

Tensor TransformerBlock::decode(const Tensor& x, KeyValueCache& cache) const {
  const Tensor h = x + attention.decode(norm1(x), cache);
  return h + fc2(activate(activation, fc1(norm2(h))));
}

void TransformerBlock::visit_parameters(const ParameterVisitor& visit) {
  visit_child("norm1", norm1, visit);
  visit_child("attention", attention, visit);
  visit_child("norm2", norm2, visit);
  visit_child("fc1", fc1, visit);
  visit_child("fc2", fc2, visit);
}

std::string TransformerBlock::describe() const {
  return "TransformerBlock(" + attention.describe() + ", hidden=" + std::to_string(fc1.out_features()) +
         ", activation=" + name(activation) + ")";
}

}  // namespace variate::nn
