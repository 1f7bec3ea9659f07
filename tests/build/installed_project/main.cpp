// Uses variate through its umbrella header only: the log joint of a conjugate normal model and its
// gradient, checked against the closed form. Exits non-zero on a mismatch.
#include <cmath>
#include <cstdio>
#include <numbers>

#include "variate/variate.hpp"

int main() {
  const variate::Tensor y = variate::Tensor::vec({0.5, 1.5});
  auto model = [&] {
    auto mu = variate::Normal(0.0, 1.0, "mu");
    variate::tracing::Condition data({{"y", y}});
    variate::Normal(mu, 1.0, "y", {2});
  };
  const auto log_joint = variate::tracing::make_log_joint(model);
  const double mu = 0.25;
  const auto [value, grads] = variate::value_and_grad(
      [&](const variate::Tensor& m) {
        return log_joint({{"mu", m}});
      },
      variate::Tensor::scalar(mu));
  const double lp = value.item(), grad = grads[0].item();
  const double expected_lp =
      -1.5 * std::log(2 * std::numbers::pi) - 0.5 * (mu * mu + (0.5 - mu) * (0.5 - mu) + (1.5 - mu) * (1.5 - mu));
  const double expected_grad = -mu + (0.5 - mu) + (1.5 - mu);
  if (std::abs(lp - expected_lp) > 1e-12 || std::abs(grad - expected_grad) > 1e-12) {
    std::fprintf(stderr, "log joint %.17g (expected %.17g), gradient %.17g (expected %.17g)\n", lp, expected_lp, grad,
                 expected_grad);
    return 1;
  }
  std::printf("log joint and gradient as expected\n");
  return 0;
}
