// Eight schools (Rubin 1981), non-centered: the effect of coaching in J schools, each measured
// with a known standard error. A built-in model, and a model plugin as it stands (`variate build`).
#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/models/model.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::models {

Definition eight_schools(const ModelData& data) {
  const Tensor y = data.vector("y");
  const std::int64_t J = y.shape()[0];
  VARIATE_CHECK(J >= 1, "eight_schools", data.source(), ": variable 'y' is empty; expected at least one school");
  data.check_size("J", J, "the length of y");
  const Tensor sigma = data.positive_values("sigma", {J});
  const DType dtype = data.dtype();
  const Tensor zero = Tensor::scalar(0.0, dtype), one = Tensor::scalar(1.0, dtype), five = Tensor::scalar(5.0, dtype);
  Definition model;
  model.description =
      "eight schools, non-centered: mu ~ Normal(0, 5), tau ~ HalfCauchy(0, 5), theta_tilde ~ Normal(0, 1) [" +
      std::to_string(J) + "], y ~ Normal(mu + tau theta_tilde, sigma); theta = mu + tau theta_tilde generated";
  model.program = [=] {
    auto mu = Normal(zero, five, "mu");
    auto tau = HalfCauchy(zero, five, "tau");
    auto theta_tilde = Normal(zero, one, "theta_tilde", {J});
    // mu and tau are scalars, or (C) with a chain dimension: give them a trailing axis to broadcast.
    const Tensor theta = expand_dims(mu, -1) + expand_dims(tau, -1) * theta_tilde;
    Deterministic(theta, "theta");  // a generated quantity: written after the parameters
    tracing::Condition observed({{"y", y}});
    Normal(theta, sigma, "y");
  };
  model.main_parameters = {"mu", "tau"};
  for (std::int64_t j = 0; j < std::min<std::int64_t>(J, 10); ++j)
    model.main_parameters.push_back("theta_tilde." + std::to_string(j + 1));
  return model;
}

}  // namespace variate::models

VARIATE_MODEL(variate::models::eight_schools)
