#include "gradient_job.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <iomanip>

#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/data/digits.hpp"
#include "variate/random/samplers.hpp"

namespace variate::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Split {
  Tensor x_train, y_train, x_test, y_test;
};

// Pixels scaled to [0, 1] plus an intercept column; label 1 for odd digits; a random 80/20 split.
Split prepare(const data::Dataset& digits, DType dtype, random::Key key) {
  const std::int64_t n = digits.features.dim(0);
  const Tensor x = concat({digits.features / 16.0, Tensor::ones(Shape{n, 1})}, 1);
  const Tensor odd = ne(digits.labels, 2.0 * floor(digits.labels / 2.0));
  const Tensor order = argsort(random::uniform(key, Shape{n}));
  const std::int64_t n_train = n * 4 / 5;
  const Tensor train = slice(order, 0, 0, n_train), test = slice(order, 0, n_train, n);
  return {cast(take(x, train), dtype), cast(take(odd, train), dtype), cast(take(x, test), dtype),
          cast(take(odd, test), dtype)};
}

double accuracy(const Tensor& x, const Tensor& y, const Tensor& w) {
  const Tensor predicted = cast(gt(matmul(x, w), Tensor::scalar(0.0)), y.dtype());
  return mean(cast(eq(predicted, y), DType::f64)).item();
}

}  // namespace

int run_gradient_job(const GradientJobOptions& options, std::ostream& out) {
  const data::Dataset digits = data::digits();
  const Split s = prepare(digits, options.precision, random::Key(options.seed));
  const std::int64_t d = s.x_train.dim(1);
  out << "variate gradient: Bayesian logistic regression (odd vs even digits), posterior mode by Adam\n"
      << "data: embedded digits, " << s.x_train.dim(0) << " train / " << s.x_test.dim(0) << " test rows, " << d
      << " features (64 pixels + intercept); precision " << name(options.precision) << "; " << omp_get_max_threads()
      << " threads\n";

  const double inv_var = 1.0 / (options.prior_scale * options.prior_scale);
  auto log_posterior = [&](const Tensor& w) {
    const Tensor z = matmul(s.x_train, w);
    return sum(s.y_train * z - softplus(z)) - 0.5 * inv_var * sum(square(w));
  };

  // Adam (Kingma & Ba 2015) on the negative log posterior.
  Tensor w = Tensor::zeros(Shape{d}, options.precision);
  Tensor m = Tensor::zeros(Shape{d}, options.precision), v = Tensor::zeros(Shape{d}, options.precision);
  const double lr = 0.05, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  double value = 0, grad_seconds = 0;
  for (int t = 1; t <= options.steps; ++t) {
    const auto start = Clock::now();
    auto [lp, grads] = value_and_grad(log_posterior, w);
    grad_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    value = lp.item();
    const Tensor g = -grads[0];
    m = b1 * m + (1 - b1) * g;
    v = b2 * v + (1 - b2) * square(g);
    const Tensor m_hat = m / (1 - std::pow(b1, t)), v_hat = v / (1 - std::pow(b2, t));
    w = w - lr * m_hat / (sqrt(v_hat) + eps);
    if (t == 1 || t % 50 == 0 || t == options.steps) {
      out << "  step " << std::setw(4) << t << "  log posterior " << std::fixed << std::setprecision(3) << value
          << "  train accuracy " << std::setprecision(4) << accuracy(s.x_train, s.y_train, w) << '\n';
    }
  }
  const Tensor final_grad = value_and_grad(log_posterior, w).grads[0];
  const double grad_norm = std::sqrt(sum(square(cast(final_grad, DType::f64))).item());
  out << std::setprecision(4) << "result: test accuracy " << accuracy(s.x_test, s.y_test, w) << ", train accuracy "
      << accuracy(s.x_train, s.y_train, w) << ", |gradient| at the end " << std::scientific << std::setprecision(2)
      << grad_norm << '\n'
      << std::fixed << std::setprecision(1) << "timing: " << options.steps << " gradients in " << grad_seconds * 1e3
      << " ms, " << grad_seconds / options.steps * 1e6 << " us per gradient\n";
  return 0;
}

}  // namespace variate::cli
