// Eight schools (Rubin 1981; Gelman et al., Bayesian Data Analysis, 5.5), non-centered:
//   mu ~ Normal(0, 5), tau ~ HalfCauchy(0, 5), theta_tilde ~ Normal(0, 1) x 8,
//   y ~ Normal(mu + tau * theta_tilde, sigma).
// The log joint and its gradient from tracing are compared with the density written out by hand.
#include <cstdio>
#include <numbers>

#include "check.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

using namespace variate;

const Tensor kEffects = Tensor::vec({28, 8, -3, 7, -1, 1, 18, 12});
const Tensor kStdErrors = Tensor::vec({15, 10, 16, 11, 9, 11, 10, 18});

void eight_schools() {
  auto mu = Normal(0.0, 5.0, "mu");
  auto tau = HalfCauchy(0.0, 5.0, "tau");
  auto theta_tilde = Normal(0.0, 1.0, "theta_tilde", {8});
  tracing::Condition data({{"y", kEffects}});
  Normal(mu + tau * theta_tilde, kStdErrors, "y");
}

double normal_lpdf(double x, double mu, double sigma) {
  const double z = (x - mu) / sigma;
  return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * std::numbers::pi);
}

int main() {
  const double mu = 4.4, tau = 3.6;
  const Tensor theta_tilde = Tensor::vec({0.3, -0.1, -0.4, 0.0, -0.6, -0.3, 0.5, 0.1});
  auto log_joint = tracing::make_log_joint(eight_schools);
  auto f = [&](const Tensor& mu, const Tensor& tau, const Tensor& tt) {
    return log_joint({{"mu", mu}, {"tau", tau}, {"theta_tilde", tt}});
  };
  auto [value, grads] = value_and_grad(f, Tensor::scalar(mu), Tensor::scalar(tau), theta_tilde);

  // By hand: HalfCauchy(0, 5) density 2 / (pi * 5 * (1 + (tau/5)^2)).
  double expected = normal_lpdf(mu, 0, 5) + std::log(2 / (std::numbers::pi * 5 * (1 + (tau / 5) * (tau / 5))));
  double d_mu = -mu / 25, d_tau = -2 * tau / (25 + tau * tau);
  for (int j = 0; j < 8; ++j) {
    const double t = theta_tilde.at(j), y = kEffects.at(j), s = kStdErrors.at(j), theta = mu + tau * t;
    expected += normal_lpdf(t, 0, 1) + normal_lpdf(y, theta, s);
    d_mu += (y - theta) / (s * s);
    d_tau += (y - theta) / (s * s) * t;
  }
  std::printf("Eight schools (non-centered), log joint at mu = %g, tau = %g:\n", mu, tau);
  bool ok = examples::check("log joint", value.item(), expected);
  ok &= examples::check("d/d mu", grads[0].item(), d_mu);
  ok &= examples::check("d/d tau", grads[1].item(), d_tau);
  const double t0 = theta_tilde.at(0), theta0 = mu + tau * t0;
  ok &= examples::check("d/d theta_tilde[0]", grads[2].at(0), -t0 + (28 - theta0) / 225 * tau);
  return ok ? 0 : 1;
}
