// CmdStan's bernoulli example: N coin flips with a uniform prior on the chance of heads. A built-in
// model, and a model plugin as it stands (`variate build`).
#include "variate/autodiff/ops.hpp"
#include "variate/models/model.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::models {

Definition beta_bernoulli(const ModelData& data) {
  const std::int64_t N = data.vector("y").shape()[0];
  data.check_size("N", N, "the length of y");
  const Tensor y = cast(data.integers("y", {N}, 0, 1), data.dtype());
  const Tensor one = Tensor::scalar(1.0, data.dtype());
  Definition model;
  model.description = "Beta-Bernoulli: theta ~ Beta(1, 1), y ~ Bernoulli(theta)";
  model.program = [=] {
    auto theta = Beta(one, one, "theta");
    tracing::Condition observed({{"y", y}});
    Bernoulli(Probs{expand_dims(theta, -1)}, "y");  // theta () or (C) against y (N)
  };
  model.main_parameters = {"theta"};
  return model;
}

}  // namespace variate::models

VARIATE_MODEL(variate::models::beta_bernoulli)
