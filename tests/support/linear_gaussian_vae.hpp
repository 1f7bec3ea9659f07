#pragma once
// A linear-Gaussian VAE (probabilistic PCA, Tipping & Bishop 1999) over a minibatch, whose evidence
// and posterior are known in closed form, for checking bounds per data point:
//   z_b ~ N(0, I_d),  x_b | z_b ~ N(W z_b + c, sigma^2 I_D)   =>   x_b ~ N(c, W W^T + sigma^2 I_D),
//   z_b | x_b ~ N(mu_b, S),  S = P^{-1},  P = I_d + W^T W / sigma^2,  mu_b = S W^T (x_b - c) / sigma^2.
#include <cstdint>
#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/distributions/multivariate_normal.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::testing {

struct LinearGaussianVae {
  static constexpr std::int64_t kLatent = 2, kObserved = 4;
  Tensor w = Tensor::from(std::vector<double>{1.0, 0.2, -0.5, 0.8, 0.3, -1.1, 0.7, 0.4}, Shape{kObserved, kLatent});
  Tensor c = Tensor::vec({0.5, -0.2, 0.1, 0.3});
  double sigma = 0.5;
  Tensor x;  // (batch, D), drawn from the model

  LinearGaussianVae(random::Key key, std::int64_t batch) {
    const Tensor z = random::normal(random::fold_in(key, "z"), Shape{batch, kLatent});
    x = matmul(z, w, false, true) + c + sigma * random::normal(random::fold_in(key, "x"), Shape{batch, kObserved});
  }

  /// The model program, x conditioned on the minibatch: each data point's sites in row b.
  void model() const {
    auto z = Normal(Tensor::zeros(Shape{x.dim(0), kLatent}), 1.0, "z");
    tracing::Condition data({{"x", x}});
    Normal(matmul(z, w, false, true) + c, sigma, "x");
  }

  /// log p(x_b) for each data point, (batch).
  Tensor log_evidence() const {
    const Tensor covariance = matmul(w, w, false, true) + sigma * sigma * identity(kObserved);
    return dist::MultivariateNormal::from_covariance(c, covariance).log_prob(x);
  }
  /// P = S^{-1}, (d, d).
  Tensor posterior_precision() const { return identity(kLatent) + matmul(w, w, true, false) / (sigma * sigma); }
  /// S, (d, d).
  Tensor posterior_covariance() const {
    const Tensor inverse_factor = triangular_solve(cholesky(posterior_precision()), identity(kLatent));
    return matmul(inverse_factor, inverse_factor, true, false);
  }
  /// mu_b, (batch, d).
  Tensor posterior_loc() const { return matmul(matmul(x - c, w), posterior_covariance()) / (sigma * sigma); }

  /// KL(N(loc_b, diag(scale_b^2)) || p(z_b | x_b)) for each data point, (batch):
  /// (tr(P diag(s^2)) + (mu - m)^T P (mu - m) - d - log det P - sum log s^2) / 2.
  Tensor kl_to_posterior(const Tensor& loc, const Tensor& scale) const {
    const Tensor p = posterior_precision();
    const Tensor diff = posterior_loc() - loc;
    const Tensor trace = sum(diagonal(p) * square(scale), std::vector<int>{-1});
    const Tensor quadratic = sum(matmul(diff, p) * diff, std::vector<int>{-1});
    const Tensor log_det = sum(log(square(scale)), std::vector<int>{-1});
    return 0.5 * (trace + quadratic - double(kLatent) - logdet_spd(p) - log_det);
  }

  static Tensor identity(std::int64_t n) {
    std::vector<double> v(std::size_t(n * n), 0.0);
    for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i * n + i)] = 1.0;
    return Tensor::from(v, Shape{n, n});
  }
};

}  // namespace variate::testing
