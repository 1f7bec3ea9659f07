#include "support/ad_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "variate/autodiff/transforms.hpp"

namespace variate::testing {
namespace {

// sum(f(xs) * c) as one f64 number (c fixed per output shape).
double projected(const TensorFn& f, std::span<const Tensor> xs, const Tensor& c) {
  const Tensor y = f(xs);
  return prim::sum(prim::mul(prim::cast(y, DType::f64), c)).item();
}

}  // namespace

Tensor random_tensor(const Shape& shape, unsigned seed, double scale, double shift) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  std::vector<double> v(static_cast<std::size_t>(shape.numel()));
  for (auto& e : v) e = shift + scale * normal(gen);
  return Tensor::from(v, shape);
}

Tensor uniform_tensor(const Shape& shape, unsigned seed, double lo, double hi) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(shape.numel()));
  for (auto& e : v) e = u(gen);
  return Tensor::from(v, shape);
}

void expect_ad(const TensorFn& f, const std::vector<Tensor>& inputs, AdTolerance tol) {
  for (const auto& x : inputs) ASSERT_EQ(x.dtype(), DType::f64) << "expect_ad needs f64 inputs";
  Tensor plain;
  bool plain_threw = false;
  try {
    plain = f(inputs);
  } catch (const Error&) {
    plain_threw = true;
  }
  const Tensor c = plain_threw ? Tensor() : random_tensor(plain.shape(), 12345);
  auto projected_fn = [&](std::span<const Tensor> xs) {
    const Tensor y = f(xs);
    return sum(cast(y, DType::f64) * c);
  };
  std::vector<Tensor> grads(inputs.size()), scratch;
  Tensor value;
  bool ad_threw = false;
  try {
    value = value_and_grad(projected_fn, inputs, grads, scratch);
  } catch (const Error&) {
    ad_threw = true;
  }
  ASSERT_EQ(plain_threw, ad_threw) << "plain evaluation and evaluation under value_and_grad disagree on throwing";
  if (plain_threw) return;

  // 2. value: the projection of the plain result.
  const double plain_value = prim::sum(prim::mul(prim::cast(plain, DType::f64), c)).item();
  EXPECT_NEAR(value.item(), plain_value, 1e-12 * (1 + std::abs(plain_value)));

  // 3. gradient against central differences, element by element.
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    ASSERT_EQ(grads[k].shape(), inputs[k].shape()) << "gradient shape of input " << k;
    std::vector<Tensor> xs(inputs.begin(), inputs.end());
    for (std::int64_t i = 0; i < inputs[k].numel(); ++i) {
      const double x0 = inputs[k].at(i);
      auto at = [&](double v) {
        Tensor moved = inputs[k].clone();
        moved.data<double>()[i] = v;
        xs[k] = moved;
        return projected(f, xs, c);
      };
      // NaN when a step leaves the function's domain and the function throws there.
      auto guarded = [&](auto&& difference) {
        try {
          return difference();
        } catch (const Error&) {
          return std::nan("");
        }
      };
      // The fourth-order central difference (error h^4 f'''''/30) allows a step large enough that
      // rounding in f, divided by h, stays far below the tolerances (Stan's finite_diff uses a
      // sixth-order stencil with step 1e-3 for the same reason). Where its outer points leave the
      // domain (it throws, or is not finite there: a simplex's sum tolerance, say), the
      // second-order one with a 10x smaller step.
      auto central = [&](double scale) {
        const double h = 1e-5 * scale;
        const double fourth =
            guarded([&] { return (8 * (at(x0 + h) - at(x0 - h)) - (at(x0 + 2 * h) - at(x0 - 2 * h))) / (12 * h); });
        if (std::isfinite(fourth)) return fourth;
        return guarded([&] { return (at(x0 + h / 10) - at(x0 - h / 10)) / (h / 5); });
      };
      const double ad = grads[k].at(i);
      // Steps scale with max(1, |x|); for tiny inputs such as a scale of 1e-8 that step would leave
      // the domain, so steps relative to |x| are tried as well and the closer estimate is kept.
      double fd = central(std::max(1.0, std::abs(x0)));
      if (std::abs(x0) < 1 && x0 != 0) {
        const double fd_relative = central(std::abs(x0));
        if (!(std::abs(fd - ad) <= std::abs(fd_relative - ad))) fd = fd_relative;
      }
      xs[k] = inputs[k];
      EXPECT_NEAR(ad, fd, tol.abs + tol.rel * std::abs(fd))
          << "input " << k << ", element " << i << " (value " << x0 << ")";
    }
  }
}

}  // namespace variate::testing
