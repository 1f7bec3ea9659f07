// Second derivatives of log densities in their parameters and values: the families with fused
// first-order rules record their formulas under hessian/hvp, checked against central differences of
// the (fused) first-order gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "support/ad_check.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
#include "variate/distributions/beta.hpp"
#include "variate/distributions/gamma.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/normal_id_glm.hpp"
#include "variate/distributions/student_t.hpp"

namespace variate {
namespace {

using Fn = std::function<Tensor(const Tensor&)>;

// Step h = 1e-5: the central difference's truncation h^2/6 |g'''| and rounding eps |g| / h stay
// below 1e-8 for these O(1) densities, so 1e-6 relative leaves a wide margin.
void expect_hessian_matches_differences(const Fn& f, const Tensor& x) {
  constexpr double step = 1e-5;
  const std::int64_t n = x.numel();
  const Tensor h = hessian(f, x);
  ASSERT_EQ(h.shape(), (Shape{n, n}));
  for (std::int64_t j = 0; j < n; ++j) {
    Tensor up = x.clone(), down = x.clone();
    up.data<double>()[j] += step;
    down.data<double>()[j] -= step;
    const Tensor gu = grad(f, up), gd = grad(f, down);
    for (std::int64_t i = 0; i < n; ++i) {
      const double reference = (gu.data<double>()[i] - gd.data<double>()[i]) / (2 * step);
      EXPECT_NEAR(h.data<double>()[i * n + j], reference, 1e-6 * (1 + std::abs(reference)))
          << "entry (" << i << ", " << j << ")";
      EXPECT_NEAR(h.data<double>()[i * n + j], h.data<double>()[j * n + i], 1e-10 * (1 + std::abs(reference)));
    }
  }
}

Tensor at(const Tensor& theta, std::int64_t i) { return index(theta, {i}); }

TEST(LogProbHessian, Normal) {
  const Tensor data = Tensor::vec({0.3, -1.2, 2.5, 0.7});
  // theta = (value shift, loc, scale): every argument of the fused rule.
  expect_hessian_matches_differences(
      [&](const Tensor& t) { return sum(dist::Normal(at(t, 1), at(t, 2)).log_prob(data + at(t, 0))); },
      Tensor::vec({0.1, 0.4, 1.3}));
}

TEST(LogProbHessian, Gamma) {
  const Tensor data = Tensor::vec({0.5, 1.5, 3.0});
  expect_hessian_matches_differences(
      [&](const Tensor& t) { return sum(dist::Gamma(at(t, 1), at(t, 2)).log_prob(data * at(t, 0))); },
      Tensor::vec({1.1, 2.2, 0.8}));
}

TEST(LogProbHessian, Beta) {
  const Tensor data = Tensor::vec({0.2, 0.55, 0.9});
  expect_hessian_matches_differences(
      [&](const Tensor& t) { return sum(dist::Beta(at(t, 1), at(t, 2)).log_prob(data * at(t, 0))); },
      Tensor::vec({0.95, 1.7, 2.4}));
}

TEST(LogProbHessian, StudentT) {
  const Tensor data = Tensor::vec({0.3, -1.2, 2.5});
  expect_hessian_matches_differences(
      [&](const Tensor& t) { return sum(dist::StudentT(at(t, 0), at(t, 1), at(t, 2)).log_prob(data)); },
      Tensor::vec({3.5, 0.2, 1.4}));
}

TEST(LogProbHessian, BernoulliLogitGlmInItsWeightsAndIntercept) {
  const Tensor x = testing::random_tensor(Shape{7, 2}, 11);
  const Tensor y = Tensor::vec({1, 0, 0, 1, 1, 0, 1});
  expect_hessian_matches_differences(
      [&](const Tensor& t) { return dist::BernoulliLogitGLM(x, slice(t, 0, 0, 2), at(t, 2)).log_prob(y); },
      Tensor::vec({0.3, -0.8, 0.2}));
}

TEST(LogProbHessian, NormalIdGlmInItsWeightsInterceptAndScale) {
  const Tensor x = testing::random_tensor(Shape{7, 2}, 12);
  const Tensor y = testing::random_tensor(Shape{7}, 13);
  expect_hessian_matches_differences(
      [&](const Tensor& t) { return dist::NormalIdGLM(x, slice(t, 0, 0, 2), at(t, 2), at(t, 3)).log_prob(y); },
      Tensor::vec({0.3, -0.8, 0.2, 1.4}));
}

}  // namespace
}  // namespace variate
