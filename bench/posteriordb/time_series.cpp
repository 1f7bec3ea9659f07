// posteriordb's time series without ODEs: an AR(K) model (arK), ARMA(1, 1) (arma11), GARCH(1, 1)
// with its stationarity bound (garch11) and a two-state hidden Markov model with Gaussian
// emissions, marginalized by the forward algorithm (hmm_example). The recursions run over time
// steps on tensors that may carry a leading chain dimension.
#include "suite.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace posteriordb {

using namespace variate;
using models::Definition;
using models::ModelData;

namespace {

Tensor series(const ModelData& data, const std::string& size_name, std::int64_t minimum_length) {
  const Tensor y = data.vector("y");
  const std::int64_t T = y.shape()[0];
  data.check_size(size_name, T, "the length of y");
  VARIATE_CHECK(T >= minimum_length, "posteriordb", data.source(), ": y has ", T, " values; the model needs at least ",
                minimum_length);
  return y;
}

/// log N(x | loc, scale), elementwise.
Tensor normal_lpdf(const Tensor& x, const Tensor& loc, const Tensor& scale) {
  return dist::Normal(loc, scale).log_prob(x);
}

/// x[..., i]: element i of the last axis.
Tensor last_axis(const Tensor& x, std::int64_t i) { return squeeze(slice(x, -1, i, i + 1), -1); }

}  // namespace

// alpha, beta_k ~ N(0, 10), sigma ~ cauchy(0, 2.5) on sigma > 0, y_t ~ N(alpha + sum_k beta_k y_{t-k}, sigma)
// for t > K.
Definition arK(const ModelData& data) {
  const std::int64_t K = data.integer("K");
  VARIATE_CHECK(K >= 1, "arK", data.source(), ": K = ", K, "; expected at least one lag");
  const Tensor y = series(data, "T", K + 1);
  const std::int64_t T = y.shape()[0];
  std::vector<Tensor> lag_columns;  // column k - 1 holds y_{t-k} for t = K+1 ... T
  for (std::int64_t k = 1; k <= K; ++k) lag_columns.push_back(slice(y, 0, K - k, T - k));
  const Tensor lags = stack(std::span<const Tensor>(lag_columns), -1);
  const Tensor observed_y = slice(y, 0, K, T);
  const DType dtype = y.dtype();
  const Tensor zero = Tensor::scalar(0.0, dtype), ten = Tensor::scalar(10.0, dtype), scale = Tensor::scalar(2.5, dtype);
  return {.description = "AR(" + std::to_string(K) + "): normal(0, 10) coefficients, sigma ~ cauchy(0, 2.5)",
          .program =
              [=] {
                auto alpha = Normal(zero, ten, "alpha");
                auto beta = Normal(zero, ten, "beta", {K});
                auto sigma = HalfCauchy(zero, scale, "sigma");
                const Tensor mean = expand_dims(alpha, -1) + einsum("...k,tk->...t", beta, lags);
                tracing::Condition observed({{"y", observed_y}});
                Normal(mean, expand_dims(sigma, -1), "y");
              },
          .main_parameters = {"alpha", "beta.1", "sigma"}};
}

// mu ~ N(0, 10), phi, theta ~ N(0, 2), sigma ~ cauchy(0, 2.5) on sigma > 0; the one-step errors
// err_1 = y_1 - (mu + phi mu), err_t = y_t - (mu + phi y_{t-1} + theta err_{t-1}) ~ N(0, sigma).
Definition arma11(const ModelData& data) {
  const Tensor y = series(data, "T", 2);
  const std::int64_t T = y.shape()[0];
  const DType dtype = y.dtype();
  const auto s = [dtype](double v) { return Tensor::scalar(v, dtype); };
  const Tensor first = slice(y, 0, 0, 1), later = slice(y, 0, 1, T), previous = slice(y, 0, 0, T - 1);
  return {.description = "ARMA(1, 1): mu ~ normal(0, 10), phi, theta ~ normal(0, 2), sigma ~ cauchy(0, 2.5)",
          .program =
              [=] {
                auto mu = Normal(s(0), s(10), "mu");
                auto phi = Normal(s(0), s(2), "phi");
                auto theta = Normal(s(0), s(2), "theta");
                auto sigma = HalfCauchy(s(0), s(2.5), "sigma");
                // err_t = -theta err_(t-1) + (y_t - mu - phi y_(t-1)): one linear recurrence.
                const Tensor m = expand_dims(mu, -1), p = expand_dims(phi, -1);
                const Tensor innovations = concat({first - (m + p * m), later - (m + p * previous)}, -1);
                const Tensor errors = linear_recurrence(-expand_dims(theta, -1), innovations);
                factor("err", sum(normal_lpdf(errors, s(0), expand_dims(sigma, -1)), std::vector<int>{-1}));
              },
          .main_parameters = {"mu", "phi", "theta", "sigma"}};
}

// Flat priors on mu, alpha0 > 0, alpha1 in (0, 1) and beta1 in (0, 1 - alpha1) (Stan's bounds
// without statements: flat, not uniform, on the bound that depends on alpha1);
// sigma_1 given, sigma_t^2 = alpha0 + alpha1 (y_{t-1} - mu)^2 + beta1 sigma_{t-1}^2, y_t ~ N(mu, sigma_t).
Definition garch11(const ModelData& data) {
  const Tensor y = series(data, "T", 2);
  const std::int64_t T = y.shape()[0];
  const Tensor sigma1 = data.positive_values("sigma1", {});
  const Tensor previous = slice(y, 0, 0, T - 1);  // y_(t-1) for t = 1 ... T-1
  const DType dtype = y.dtype();
  return {.description = "GARCH(1, 1): flat priors, beta1 < 1 - alpha1",
          .program =
              [=] {
                auto mu = ImproperUniform(Constraint::real(), "mu", {}, dtype);
                auto alpha0 = ImproperUniform(Constraint::positive(), "alpha0", {}, dtype);
                auto alpha1 = ImproperUniform(Constraint::unit_interval(), "alpha1", {}, dtype);
                auto beta1 =
                    ImproperUniform(Constraint::interval(Tensor::scalar(0.0, dtype), 1.0 - alpha1), "beta1", {}, dtype);
                // The variances v_t = sigma_t^2 = beta1 v_(t-1) + (alpha0 + alpha1 (y_(t-1) - mu)^2) from
                // v_0 = sigma1^2: one linear recurrence over the series, with a leading chain dimension
                // when the parameters have one.
                const Tensor m = expand_dims(mu, -1);
                const Tensor shocks = expand_dims(alpha0, -1) + expand_dims(alpha1, -1) * square(previous - m);
                const Tensor start = broadcast_to(square(sigma1), m.shape());  // v_0, as mu: (..., 1)
                const Tensor variance = linear_recurrence(expand_dims(beta1, -1), concat({start, shocks}, -1));
                tracing::Condition observed({{"y", y}});
                Normal(m, sqrt(variance), "y");
              },
          .main_parameters = {"mu", "alpha0", "alpha1", "beta1"}};
}

// K hidden states, flat simplexes theta1, theta2 (the first two rows of the transition matrix;
// the program reads only those, so K = 2) and flat positive ordered means mu with
// mu_1 ~ N(3, 1), mu_2 ~ N(10, 1); y_t ~ N(mu_{z_t}, 1), the states summed out by the forward
// algorithm, which starts from the first emission alone (no initial distribution), as the Stan
// program does.
Definition hmm_example(const ModelData& data) {
  const Tensor y = data.vector("y");
  const std::int64_t N = y.shape()[0], K = data.integer("K");
  data.check_size("N", N, "the length of y");
  VARIATE_CHECK(K == 2, "hmm_example", data.source(), ": K = ", K,
                "; the program defines two rows of the transition matrix, so K must be 2");
  VARIATE_CHECK(N >= 1, "hmm_example", data.source(), ": y is empty");
  const DType dtype = y.dtype();
  const auto s = [dtype](double v) { return Tensor::scalar(v, dtype); };
  return {.description = "two-state HMM, Gaussian emissions with unit scale, forward algorithm",
          .program =
              [=] {
                auto theta1 = ImproperUniform(Constraint::simplex(), "theta1", {K}, dtype);
                auto theta2 = ImproperUniform(Constraint::simplex(), "theta2", {K}, dtype);
                auto mu = ImproperUniform(Constraint::positive_ordered(), "mu", {K}, dtype);
                factor("mu_prior",
                       normal_lpdf(last_axis(mu, 0), s(3), s(1)) + normal_lpdf(last_axis(mu, 1), s(10), s(1)));
                // log_transition(..., j, k) = log theta_j[k]; emission(..., t, k) = log N(y_t | mu_k, 1).
                const Tensor log_transition = log(stack({theta1, theta2}, -2));
                const Tensor emission = normal_lpdf(expand_dims(y, -1), expand_dims(mu, -2), s(1));
                Tensor forward = squeeze(slice(emission, -2, 0, 1), -2);
                for (std::int64_t t = 1; t < N; ++t)
                  forward = logsumexp(expand_dims(forward, -1) + log_transition, std::vector<int>{-2}) +
                            squeeze(slice(emission, -2, t, t + 1), -2);
                factor("y", logsumexp(forward, std::vector<int>{-1}));
              },
          .main_parameters = {"mu.1", "mu.2", "theta1.1", "theta2.2"}};
}

}  // namespace posteriordb
