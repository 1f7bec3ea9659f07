#include "variate/nn/linear.hpp"

#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/nn/init.hpp"

namespace variate::nn {

namespace {

void check_input(const Module& layer, const Tensor& x, std::int64_t in_features) {
  VARIATE_CHECK(x.defined() && x.rank() >= 1 && x.dim(-1) == in_features, layer.describe(),
                "the input's last dim must be ", in_features, ", got shape ",
                x.defined() ? x.shape().str() : std::string("undefined"));
}

const Tensor& checked_mask(const Tensor& mask) {
  VARIATE_CHECK(mask.defined() && mask.rank() == 2, "MaskedLinear",
                "the mask must be a matrix (out_features, in_features), got shape ",
                mask.defined() ? mask.shape().str() : std::string("undefined"));
  return mask;
}

}  // namespace

Linear::Linear(std::int64_t in_features, std::int64_t out_features, random::Key key, DType dtype, bool bias) {
  VARIATE_CHECK(in_features >= 1 && out_features >= 1, "Linear", "in_features and out_features must be >= 1, got ",
                in_features, " and ", out_features);
  weight = fan_in_uniform(random::fold_in(key, "weight"), Shape{out_features, in_features}, in_features, dtype);
  if (bias) this->bias = fan_in_uniform(random::fold_in(key, "bias"), Shape{out_features}, in_features, dtype);
}

Tensor Linear::forward(const Tensor& x) const {
  check_input(*this, x, in_features());
  return linear(x, weight, bias);
}

void Linear::visit_parameters(const ParameterVisitor& visit) {
  visit("weight", weight);
  if (bias.defined()) visit("bias", bias);
}

std::string Linear::describe() const {
  return "Linear(in_features=" + std::to_string(in_features()) + ", out_features=" + std::to_string(out_features()) +
         ")";
}

MaskedLinear::MaskedLinear(const Tensor& mask, random::Key key, DType dtype)
    : linear(checked_mask(mask).dim(1), mask.dim(0), key, dtype), mask(prim::cast(mask, dtype)) {}

Tensor MaskedLinear::forward(const Tensor& x) const {
  check_input(*this, x, linear.in_features());
  return variate::linear(x, linear.weight * mask, linear.bias);
}

void MaskedLinear::visit_parameters(const ParameterVisitor& visit) { linear.visit_parameters(visit); }

std::string MaskedLinear::describe() const {
  return "MaskedLinear(in_features=" + std::to_string(linear.in_features()) +
         ", out_features=" + std::to_string(linear.out_features()) + ")";
}

}  // namespace variate::nn
