#pragma once
// The synthetic logistic regression that bench/nuts_sampling.cpp measures against CmdStan and
// bench/chees_vs_nuts.cpp samples: standard normal predictors, labels drawn with weights
// N(0, 0.3^2), and the model alpha ~ N(0, 1), beta ~ N(0, 1) [D], y ~ Bernoulli(logits = alpha + X beta)
// with the fused GLM likelihood (bench/models/logistic_glm.cpp is the same model as a plugin).
#include <cstdint>

#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::bench {

struct LogisticData {
  Tensor x, y;  // (n, d) f64 and (n) f64 in {0, 1}
};

inline LogisticData logistic_data(std::int64_t n, std::int64_t d) {
  const random::Key key(20261129);
  const Tensor x = random::normal(random::fold_in(key, 1), Shape{n, d});
  const Tensor true_w = prim::binary(BinaryOp::mul, random::normal(random::fold_in(key, 2), Shape{d}), 0.3);
  const Tensor probs = prim::unary(UnaryOp::sigmoid, prim::matmul(x, true_w));
  return {
      x, prim::cast(prim::binary(BinaryOp::lt, random::uniform(random::fold_in(key, 3), Shape{n}), probs), DType::f64)};
}

/// The model on logistic_data(n, d), computed in `dtype`.
inline tracing::Program logistic_program(std::int64_t n, std::int64_t d, DType dtype) {
  const LogisticData data = logistic_data(n, d);
  const Tensor x = prim::cast(data.x, dtype), y = prim::cast(data.y, dtype);
  const Tensor zero = Tensor::scalar(0.0, dtype), one = Tensor::scalar(1.0, dtype);
  return [=] {
    auto alpha = Normal(zero, one, "alpha");
    auto beta = Normal(zero, one, "beta", {d});
    tracing::Condition observed({{"y", y}});
    BernoulliLogitGLM(x, beta, alpha, "y");
  };
}

}  // namespace variate::bench
