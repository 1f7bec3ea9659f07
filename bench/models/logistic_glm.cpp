// Bayesian logistic regression with the fused GLM likelihood, as bench/nuts_sampling.cpp samples it,
// as a model plugin reading its data (bench/python_gradient.py builds it with `variate build`):
//   alpha ~ Normal(0, 1), beta ~ Normal(0, 1) [D], y ~ Bernoulli(logits = alpha + X beta).
// Data: N, D, X (N x D), y (N values in {0, 1}).
#include "variate/autodiff/ops.hpp"
#include "variate/models/model.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::models {

Definition logistic_glm(const ModelData& data) {
  const std::int64_t n = data.integer("N"), d = data.integer("D");
  const Tensor x = data.values("X", {n, d});
  const Tensor y = cast(data.integers("y", {n}, 0, 1), data.dtype());
  const Tensor zero = Tensor::scalar(0.0, data.dtype()), one = Tensor::scalar(1.0, data.dtype());
  Definition model;
  model.description = "logistic regression (GLM): N = " + std::to_string(n) + ", D = " + std::to_string(d);
  model.program = [=] {
    auto alpha = Normal(zero, one, "alpha");
    auto beta = Normal(zero, one, "beta", {d});
    tracing::Condition observed({{"y", y}});
    BernoulliLogitGLM(x, beta, alpha, "y");
  };
  model.main_parameters = {"alpha"};
  return model;
}

}  // namespace variate::models

VARIATE_MODEL(variate::models::logistic_glm)
