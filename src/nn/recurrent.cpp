#include "variate/nn/recurrent.hpp"

#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/nn/init.hpp"

namespace variate::nn {

ReluRnn::ReluRnn(std::int64_t in_features, std::int64_t hidden, random::Key key, DType dtype) {
  VARIATE_CHECK(in_features >= 1 && hidden >= 1, "ReluRnn", "in_features and hidden must be >= 1, got ", in_features,
                " and ", hidden);
  input_weight = fan_in_uniform(random::fold_in(key, "input_weight"), Shape{hidden, in_features}, in_features, dtype);
  recurrent_weight = prim::one_hot(Tensor::arange(hidden), hidden, dtype);
  bias = Tensor::zeros(Shape{hidden}, dtype);
}

Tensor ReluRnn::forward(const Tensor& x) const {
  VARIATE_CHECK(x.defined() && x.rank() == 3 && x.dim(1) >= 1 && x.dim(2) == in_features(), describe(),
                "the input must be (batch, steps >= 1, ", in_features(), "), got shape ",
                x.defined() ? x.shape().str() : std::string("undefined"));
  const std::int64_t batch = x.dim(0), in = in_features();
  auto input_at = [&](std::int64_t t) { return reshape(slice(x, 1, t, t + 1), {batch, in}); };
  // h_0 = 0, so the first step has no recurrent term.
  Tensor h = relu(linear(input_at(0), input_weight, bias));
  for (std::int64_t t = 1; t < x.dim(1); ++t)
    h = relu(linear(input_at(t), input_weight, bias) + linear(h, recurrent_weight));
  return h;
}

void ReluRnn::visit_parameters(const ParameterVisitor& visit) {
  visit("input_weight", input_weight);
  visit("recurrent_weight", recurrent_weight);
  visit("bias", bias);
}

std::string ReluRnn::describe() const {
  return "ReluRnn(in_features=" + std::to_string(in_features()) + ", hidden=" + std::to_string(hidden()) + ")";
}

}  // namespace variate::nn
