// Bayesian logistic regression on the embedded digits data (odd vs even digits):
//   w ~ Normal(0, 1) x 65 (64 pixels scaled to [0, 1] and an intercept),  y ~ Bernoulli(logits = X w).
// The log joint and its gradient from tracing are compared with the closed forms
//   log p = sum(y z - softplus(z)) - |w|^2 / 2 - 65 log(2 pi) / 2,   grad = X^T (y - sigmoid(z)) - w.
#include <chrono>
#include <cstdio>
#include <numbers>

#include "check.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/data/digits.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

using namespace variate;

int main() {
  const data::Dataset digits = data::digits();
  const std::int64_t n = digits.features.dim(0);
  const Tensor x = concat({digits.features / 16.0, Tensor::ones(Shape{n, 1})}, 1);
  const Tensor y = cast(ne(digits.labels, 2.0 * floor(digits.labels / 2.0)), DType::f64);

  auto model = [&] {
    auto w = Normal(0.0, 1.0, "w", {65});
    tracing::Condition data({{"y", y}});
    Bernoulli(Logits{matmul(x, w)}, "y");
  };
  auto log_joint = tracing::make_log_joint(model);
  const Tensor w = 0.05 * (cast(Tensor::arange(65), DType::f64) - 32.0) / 32.0;
  auto [value, grads] = value_and_grad([&](const Tensor& w) { return log_joint({{"w", w}}); }, w);

  const Tensor z = matmul(x, w);
  const double expected =
      sum(y * z - softplus(z)).item() - 0.5 * sum(square(w)).item() - 32.5 * std::log(2 * std::numbers::pi);
  const Tensor expected_grad = matmul(x, y - sigmoid(z), true, false) - w;
  std::printf("Logistic regression on digits (%lld rows, 65 weights):\n", static_cast<long long>(n));
  bool ok = examples::check("log joint", value.item(), expected);
  ok &= examples::check("max |gradient - closed form|", max(abs(grads[0] - expected_grad)).item(), 0.0, 1e-9);

  const int reps = 200;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) value_and_grad([&](const Tensor& w) { return log_joint({{"w", w}}); }, w);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / reps;
  std::printf("  log joint + gradient through tracing: %.1f us per evaluation\n", us);
  return ok ? 0 : 1;
}
