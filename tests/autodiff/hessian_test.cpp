// Second derivatives (hvp, hessian): exact values, central differences of the exact gradient,
// symmetry, f32, and an error naming the op wherever a rule cannot be differentiated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"

namespace variate {
namespace {

using Fn = std::function<Tensor(const Tensor&)>;
using testing::random_tensor;

// The Hessian as central differences of the (exact, first-order) gradient, column by column. The
// error of each entry is h^2/6 |g'''| from truncation plus about eps |g| / h from rounding; h =
// 1e-5 keeps both under 1e-8 for the O(1) functions below, so `tol` = 1e-6 leaves a wide margin.
Tensor finite_difference_hessian(const Fn& f, const Tensor& x) {
  constexpr double h = 1e-5;
  const std::int64_t n = x.numel();
  Tensor out = Tensor::zeros(Shape{n, n}, DType::f64);
  for (std::int64_t j = 0; j < n; ++j) {
    Tensor up = x.clone(), down = x.clone();
    up.data<double>()[j] += h;
    down.data<double>()[j] -= h;
    const Tensor gu = grad(f, up), gd = grad(f, down);
    for (std::int64_t i = 0; i < n; ++i)
      out.data<double>()[i * n + j] = (gu.data<double>()[i] - gd.data<double>()[i]) / (2 * h);
  }
  return out;
}

void expect_hessian_matches_differences(const Fn& f, const Tensor& x, double tol = 1e-6) {
  const std::int64_t n = x.numel();
  const Tensor h = hessian(f, x);
  Shape expected_shape = x.shape();
  for (auto d : x.shape()) expected_shape.push_back(d);
  ASSERT_EQ(h.shape(), expected_shape);
  const Tensor fd = finite_difference_hessian(f, x);
  const double* hp = h.data<double>();
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double reference = fd.data<double>()[i * n + j];
      EXPECT_NEAR(hp[i * n + j], reference, tol * (1 + std::abs(reference))) << "entry (" << i << ", " << j << ")";
      EXPECT_NEAR(hp[i * n + j], hp[j * n + i], 1e-10 * (1 + std::abs(reference)))
          << "not symmetric at (" << i << ", " << j << ")";
    }
  // H v for a fixed v agrees with the full Hessian.
  const Tensor v = random_tensor(x.shape(), 7);
  const Tensor hv = hvp(f, x, v);
  for (std::int64_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::int64_t j = 0; j < n; ++j) row += hp[i * n + j] * v.data<double>()[j];
    EXPECT_NEAR(hv.data<double>()[i], row, 1e-10 * (1 + std::abs(row))) << "hvp entry " << i;
  }
}

TEST(Hessian, CubeAtTwoHasSecondDerivativeTwelve) {
  const Tensor h = hessian([](const Tensor& x) { return x * x * x; }, Tensor::scalar(2.0));
  EXPECT_EQ(h.shape(), Shape{});
  EXPECT_DOUBLE_EQ(h.item(), 12.0);
  EXPECT_DOUBLE_EQ(hessian([](const Tensor& x) { return pow(x, 3.0); }, Tensor::scalar(2.0)).item(), 12.0);
}

// The example of issue 20: the Hessian of sum(x^3) is diag(6x), so H [1, 0] at [2, 1] is [12, 0].
TEST(Hessian, HvpOfTheIssueExample) {
  const Tensor hv =
      hvp([](const Tensor& x) { return sum(x * x * x); }, Tensor::vec({2.0, 1.0}), Tensor::vec({1.0, 0.0}));
  EXPECT_DOUBLE_EQ(hv.at(0), 12.0);
  EXPECT_DOUBLE_EQ(hv.at(1), 0.0);
}

TEST(Hessian, OfALinearFunctionIsZeroAndOfAConstantToo) {
  const Tensor a = Tensor::vec({1.0, -2.0});
  const Tensor h = hessian([&](const Tensor& x) { return sum(a * x); }, Tensor::vec({0.5, 3.0}));
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(h.data<double>()[i], 0.0);
  const Tensor hc = hessian([&](const Tensor&) { return sum(a); }, Tensor::vec({0.5, 3.0}));
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(hc.data<double>()[i], 0.0);
}

TEST(Hessian, QuadraticFormThroughMatmulIsExact) {
  const Tensor a = random_tensor(Shape{3, 3}, 1);
  const Tensor h = hessian([&](const Tensor& x) { return sum(x * matmul(a, x)); }, random_tensor(Shape{3}, 2));
  ASSERT_EQ(h.shape(), (Shape{3, 3}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(h.data<double>()[i * 3 + j], a.data<double>()[i * 3 + j] + a.data<double>()[j * 3 + i], 1e-14);
}

TEST(Hessian, LogisticRegressionLogDensity) {
  const Tensor xs = random_tensor(Shape{6, 3}, 3);
  const Tensor ys = Tensor::vec({1.0, 0.0, 0.0, 1.0, 1.0, 0.0});
  auto log_density = [&](const Tensor& w) {
    const Tensor logits = matmul(xs, w);
    return sum(ys * log_sigmoid(logits) + (1.0 - ys) * log_sigmoid(-logits)) - 0.5 * sum(square(w));
  };
  expect_hessian_matches_differences(log_density, random_tensor(Shape{3}, 4));
}

TEST(Hessian, NormalAndGammaLogDensitiesInTheirParameters) {
  const Tensor data = Tensor::vec({0.3, -1.2, 2.5, 0.7});
  // theta = (loc, log scale): sum of log N(data; loc, exp(log scale)), written with elementary ops.
  auto normal = [&](const Tensor& theta) {
    const Tensor loc = slice(theta, 0, 0, 1), log_scale = slice(theta, 0, 1, 2);
    const Tensor z = (data - loc) / exp(log_scale);
    return sum(-0.5 * square(z) - log_scale);
  };
  expect_hessian_matches_differences(normal, Tensor::vec({0.4, -0.3}));
  // theta = (log concentration, log rate) of a Gamma law at positive data.
  const Tensor positive = Tensor::vec({0.5, 1.5, 3.0});
  auto gamma = [&](const Tensor& theta) {
    const Tensor a = exp(index(theta, {0})), b = exp(index(theta, {1}));
    return sum(a * log(b) - lgamma(a) + (a - 1.0) * log(positive) - b * positive);
  };
  expect_hessian_matches_differences(gamma, Tensor::vec({0.2, -0.1}));
}

TEST(Hessian, SmoothChainsAndReductions) {
  const Tensor w = random_tensor(Shape{2, 3}, 5);
  auto chain = [&](const Tensor& x) {
    const Tensor h = tanh(matmul(w, softplus(x)));
    return logsumexp(concat({h, sigmoid(x) / (1.0 + square(x))}, 0)) + mean(expm1(x * 0.3)) + sum(sqrt(log1p(exp(x))));
  };
  expect_hessian_matches_differences(chain, random_tensor(Shape{3}, 6));
  // Broadcasting, reshape and permute on the way.
  auto shaped = [](const Tensor& x) {
    const Tensor m = reshape(x, {2, 2});
    return sum(tanh(m * transpose(m)) + broadcast_to(expand_dims(sum(m, std::array{0}), 0), Shape{2, 2}) * m);
  };
  expect_hessian_matches_differences(shaped, random_tensor(Shape{4}, 8));
}

TEST(Hessian, CircularAndBesselFunctions) {
  // log_bessel_i0 at 0.2 x and 30 x covers both branches of its kernel (series below 20, Hankel's
  // expansion above), and its second derivative is bessel_i1_over_i0's rule.
  auto f = [](const Tensor& x) {
    return sum(sin(3.0 * x) * cos(x) + log_bessel_i0(0.2 * x) + log_bessel_i0(30.0 * x) +
               bessel_i1_over_i0(2.0 * x) * x);
  };
  expect_hessian_matches_differences(f, Tensor::vec({0.4, -0.9, 1.3}));
}

TEST(Hessian, KeepsF32) {
  const Tensor h = hessian([](const Tensor& x) { return sum(x * x * x); }, Tensor::vec({2.0, 1.0}, DType::f32));
  ASSERT_EQ(h.dtype(), DType::f32);
  EXPECT_FLOAT_EQ(h.data<float>()[0], 12.0f);
  EXPECT_FLOAT_EQ(h.data<float>()[3], 6.0f);
  EXPECT_FLOAT_EQ(h.data<float>()[1], 0.0f);
}

// The recurrence's rule runs the transposed recurrence, itself differentiable, so a GARCH-like
// variance path has a Hessian in its coefficient and inputs alike.
TEST(Hessian, ThroughTheLinearRecurrence) {
  auto f = [](const Tensor& x) {  // x = (a, u_0, ..., u_4)
    const Tensor h = linear_recurrence(slice(x, 0, 0, 1), slice(x, 0, 1, 6));
    return sum(log(square(h) + 1.0) * Tensor::vec({1.0, -2.0, 0.5, 3.0, 1.5}));
  };
  expect_hessian_matches_differences(f, Tensor::vec({0.7, 0.3, -1.1, 0.8, 0.2, -0.5}));
}

// digamma's derivative (trigamma) has no differentiable op: asking to differentiate through it
// is an error naming it, never a zero.
TEST(Hessian, AnOpWithoutSecondOrderSupportIsAnErrorNamingIt) {
  const Fn f = [](const Tensor& x) { return sum(digamma(x)); };
  EXPECT_ERROR(hessian(f, Tensor::vec({1.5, 2.0})), "digamma");
  EXPECT_ERROR(hessian(f, Tensor::vec({1.5, 2.0})), "hessian/hvp unsupported through it");
  EXPECT_ERROR(hvp(f, Tensor::vec({1.5, 2.0}), Tensor::vec({1.0, 0.0})), "digamma");
  // cumsum's rule runs a kernel directly.
  EXPECT_ERROR(hessian([](const Tensor& x) { return sum(square(cumsum(x, 0))); }, Tensor::vec({1.0, 2.0})), "cumsum");
  // Its first derivative stays available, and the error leaves the thread's tapes usable.
  EXPECT_NO_THROW(grad(f, Tensor::vec({1.5, 2.0})));
  EXPECT_DOUBLE_EQ(hessian([](const Tensor& x) { return x * x; }, Tensor::scalar(1.0)).item(), 2.0);
}

TEST(Hessian, ChecksTheVectorsShape) {
  EXPECT_ERROR(hvp([](const Tensor& x) { return sum(x); }, Tensor::vec({1.0, 2.0}), Tensor::vec({1.0})),
               "hvp: the vector must have x's shape");
  EXPECT_ERROR(hessian([](const Tensor& x) { return x; }, Tensor::vec({1.0, 2.0})), "single-element");
}

}  // namespace
}  // namespace variate
