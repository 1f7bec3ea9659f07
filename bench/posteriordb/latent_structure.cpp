// posteriordb's posteriors whose difficulty is their latent structure: eight schools, non-centered
// (a hierarchical model with few groups, the funnel reparameterized away), a two-component
// Gaussian mixture with ordered means, and two Gaussian processes on 11 points (a GP regression
// whose noise variance is a parameter, and a latent GP under Poisson counts, non-centered through
// the Cholesky factor of its covariance).
#include "suite.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/poisson.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace posteriordb {

using namespace variate;
using models::Definition;
using models::ModelData;

namespace {

Tensor last_axis(const Tensor& x, std::int64_t i) { return squeeze(slice(x, -1, i, i + 1), -1); }
/// x with two trailing axes, to scale a matrix.
Tensor as_matrix_scale(const Tensor& x) { return expand_dims(expand_dims(x, -1), -1); }

/// Stan's gp_exp_quad_cov(x, alpha, rho): alpha^2 exp(-(x_i - x_j)^2 / (2 rho^2)), from the squared
/// distances, for scalar or chain-batched alpha and rho.
Tensor exp_quad_cov(const Tensor& squared_distance, const Tensor& alpha, const Tensor& rho) {
  // The scalars first, so that only three operations run over the matrix.
  return as_matrix_scale(square(alpha)) * exp(squared_distance * as_matrix_scale(-0.5 / square(rho)));
}

/// log(exp(a) + exp(b)) elementwise (Stan's log_sum_exp of two terms): elementwise kernels on the
/// terms' own shape are much cheaper than stacking them and reducing over a trailing axis of two.
Tensor log_add_exp(const Tensor& a, const Tensor& b) {
  const Tensor m = maximum(a, b);
  return m + log(exp(a - m) + exp(b - m));
}

Tensor squared_distances(const Tensor& x) { return square(expand_dims(x, -1) - expand_dims(x, 0)); }

Tensor identity(std::int64_t n, DType dtype) {
  const Tensor i = Tensor::arange(n);
  return cast(eq(expand_dims(i, -1), expand_dims(i, 0)), dtype);
}

}  // namespace

// theta_trans ~ N(0, 1), mu ~ N(0, 5), tau ~ cauchy(0, 5) on tau > 0, theta = mu + tau theta_trans,
// y ~ N(theta, sigma).
Definition eight_schools_noncentered(const ModelData& data) {
  const Tensor y = data.vector("y");
  const std::int64_t J = y.shape()[0];
  VARIATE_CHECK(J >= 1, "eight_schools_noncentered", data.source(), ": y is empty; expected at least one school");
  data.check_size("J", J, "the length of y");
  const Tensor sigma = data.positive_values("sigma", {J});
  const DType dtype = y.dtype();
  const Tensor zero = Tensor::scalar(0.0, dtype), one = Tensor::scalar(1.0, dtype), five = Tensor::scalar(5.0, dtype);
  return {.description = "eight schools, non-centered, Stan's parameter names",
          .program =
              [=] {
                auto theta_trans = Normal(zero, one, "theta_trans", {J});
                auto mu = Normal(zero, five, "mu");
                auto tau = HalfCauchy(zero, five, "tau");
                const Tensor theta = Deterministic(theta_trans * expand_dims(tau, -1) + expand_dims(mu, -1), "theta");
                tracing::Condition observed({{"y", y}});
                Normal(theta, sigma, "y");
              },
          .main_parameters = {"mu", "tau", "theta.1"}};
}

// The same model centered, the funnel: tau ~ cauchy(0, 5) on tau > 0, theta ~ N(mu, tau),
// y ~ N(theta, sigma), mu ~ N(0, 5).
Definition eight_schools_centered(const ModelData& data) {
  const Tensor y = data.vector("y");
  const std::int64_t J = y.shape()[0];
  VARIATE_CHECK(J >= 1, "eight_schools_centered", data.source(), ": y is empty; expected at least one school");
  data.check_size("J", J, "the length of y");
  const Tensor sigma = data.positive_values("sigma", {J});
  const DType dtype = y.dtype();
  const Tensor zero = Tensor::scalar(0.0, dtype), five = Tensor::scalar(5.0, dtype);
  return {.description = "eight schools, centered (a funnel), Stan's parameter names",
          .program =
              [=] {
                auto mu = Normal(zero, five, "mu");
                auto tau = HalfCauchy(zero, five, "tau");
                // J schools as one event of N(mu, tau) (TFP's Sample): one per chain's mu and tau,
                // the schools after the chains' axis, with no broadcast of mu and tau to J values.
                auto theta = RandomVariable(
                    std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(mu, tau), Shape{J}), "theta");
                tracing::Condition observed({{"y", y}});
                Normal(theta, sigma, "y");
              },
          .main_parameters = {"mu", "tau", "theta.1"}};
}

// mu ordered, mu ~ N(0, 2); sigma_k ~ N(0, 2) on sigma > 0; theta ~ beta(5, 5);
// y_n ~ theta N(mu_1, sigma_1) + (1 - theta) N(mu_2, sigma_2).
Definition low_dim_gauss_mix(const ModelData& data) {
  const Tensor y = data.vector("y");
  data.check_size("N", y.shape()[0], "the length of y");
  const DType dtype = y.dtype();
  const auto s = [dtype](double v) { return Tensor::scalar(v, dtype); };
  const auto ordered_means = std::make_shared<dist::Restricted>(
      std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(s(0), s(2)), Shape{2}), Constraint::ordered());
  return {
      .description = "two-component normal mixture, ordered means",
      .program =
          [=] {
            auto mu = RandomVariable(ordered_means, "mu");
            auto sigma = HalfNormal(s(2), "sigma", {2});
            auto theta = Beta(s(5), s(5), "theta");
            const auto component = [&](std::int64_t k, const Tensor& log_weight) {
              return expand_dims(log_weight, -1) +
                     dist::Normal(expand_dims(last_axis(mu, k), -1), expand_dims(last_axis(sigma, k), -1)).log_prob(y);
            };
            factor("y", sum(log_add_exp(component(0, log(theta)), component(1, log1p(-theta))), std::vector<int>{-1}));
          },
      .main_parameters = {"mu.1", "mu.2", "sigma.1", "sigma.2", "theta"}};
}

// rho ~ gamma(25, 4), alpha ~ N(0, 2) on alpha > 0, sigma ~ N(0, 1) on sigma > 0;
// y ~ MVN(0, gp_exp_quad_cov(x, alpha, rho) + sigma I) (sigma is added to the diagonal unsquared,
// as in the Stan program).
Definition gp_regr(const ModelData& data) {
  const Tensor y = data.vector("y");
  const std::int64_t N = y.shape()[0];
  data.check_size("N", N, "the length of y");
  const Tensor d2 = squared_distances(data.values("x", {N}));
  const DType dtype = y.dtype();
  const Tensor eye = identity(N, dtype), zeros = Tensor::zeros({N}, dtype);
  const auto s = [dtype](double v) { return Tensor::scalar(v, dtype); };
  return {.description = "GP regression, squared exponential kernel, " + std::to_string(N) + " points",
          .program =
              [=] {
                auto rho = Gamma(s(25), s(4), "rho");
                auto alpha = HalfNormal(s(2), "alpha");
                auto sigma = HalfNormal(s(1), "sigma");
                const Tensor covariance = exp_quad_cov(d2, alpha, rho) + as_matrix_scale(sigma) * eye;
                tracing::Condition observed({{"y", y}});
                MultivariateNormalTriL(zeros, cholesky(covariance), "y");
              },
          .main_parameters = {"rho", "alpha", "sigma"}};
}

// rho ~ gamma(25, 4), alpha ~ N(0, 2) on alpha > 0, f_tilde ~ N(0, 1), f = L f_tilde with L the
// Cholesky factor of gp_exp_quad_cov(x, alpha, rho) + 1e-10 I; k ~ poisson_log(f).
Definition gp_pois_regr(const ModelData& data) {
  const Tensor k = data.integers("k", {data.integer("N")}, 0);
  const std::int64_t N = k.shape()[0];
  const DType dtype = data.dtype();
  const Tensor d2 = squared_distances(data.values("x", {N}));
  const Tensor jitter = 1e-10 * identity(N, dtype), counts = cast(k, dtype);
  const auto s = [dtype](double v) { return Tensor::scalar(v, dtype); };
  return {.description = "latent GP under Poisson counts, non-centered, " + std::to_string(N) + " points",
          .program =
              [=] {
                auto rho = Gamma(s(25), s(4), "rho");
                auto alpha = HalfNormal(s(2), "alpha");
                auto f_tilde = Normal(s(0), s(1), "f_tilde", {N});
                const Tensor factor_l = cholesky(exp_quad_cov(d2, alpha, rho) + jitter);
                const Tensor f = Deterministic(einsum("...ij,...j->...i", factor_l, f_tilde), "f");
                tracing::Condition observed({{"k", counts}});
                RandomVariable(std::make_shared<dist::Poisson>(dist::Poisson::from_log_rate(f)), "k");  // poisson_log
              },
          .main_parameters = {"rho", "alpha", "f.1"}};
}

}  // namespace posteriordb
