#include "support/conformance.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::testing {

Tensor t(std::initializer_list<double> values) { return Tensor::vec(values); }

Tensor t2(std::initializer_list<double> values, std::int64_t rows, std::int64_t cols) {
  return Tensor::vec(values).view(Shape{rows, cols});
}

namespace {

// Reference log densities element by element, with parameters broadcast to log_prob's shape.
Tensor scalar_reference(const DistributionCase& c, const Shape& shape) {
  std::vector<Tensor> params;
  for (const Tensor& p : c.params) params.push_back(prim::broadcast_to(p, shape));
  const Tensor x = prim::broadcast_to(prim::cast(c.value, DType::f64), shape);
  std::vector<double> out(static_cast<std::size_t>(shape.numel()));
  for (std::int64_t i = 0; i < shape.numel(); ++i) {
    std::vector<double> args;
    for (const Tensor& p : params) args.push_back(p.at(i));
    out[std::size_t(i)] = c.reference(args, x.at(i));
  }
  return Tensor::from(out, shape);
}

void check_log_prob_values(const DistributionCase& c, const Distribution& d) {
  const Tensor lp = d.log_prob(c.value);
  Shape expected = broadcast_shapes("test", d.batch_shape(), [&] {
    Shape s = c.value.shape();
    for (int i = 0; i < d.event_shape().rank(); ++i) s.erase(s.rank() - 1);
    return s;
  }());
  ASSERT_EQ(lp.shape(), expected) << "log_prob shape";
  const Tensor ref = c.reference ? scalar_reference(c, lp.shape()) : c.reference_values;
  ASSERT_TRUE(ref.defined()) << "the row needs a reference";
  ASSERT_EQ(ref.shape(), lp.shape());
  for (std::int64_t i = 0; i < lp.numel(); ++i) {
    const double want = ref.at(i), got = lp.at(i);
    if (std::isinf(want)) {
      EXPECT_EQ(got, want) << "element " << i << " (" << c.provenance << ")";
    } else {
      EXPECT_NEAR(got, want, c.reference_tolerance * (1 + std::abs(want)))
          << "element " << i << " (" << c.provenance << ")";
    }
  }
}

void check_gradients(const DistributionCase& c) {
  const std::size_t np = c.params.size();
  std::vector<Tensor> inputs;
  std::vector<int> which = c.differentiable_params;
  if (which.empty())
    for (std::size_t i = 0; i < np; ++i) which.push_back(int(i));
  for (int i : which) inputs.push_back(c.params[std::size_t(i)]);
  if (c.differentiable_value) inputs.push_back(prim::cast(c.value, DType::f64));
  if (inputs.empty()) return;
  expect_ad(
      [&](std::span<const Tensor> v) {
        std::vector<Tensor> params = c.params;
        for (std::size_t k = 0; k < which.size(); ++k) params[std::size_t(which[k])] = v[k];
        const Tensor x = c.differentiable_value ? v[which.size()] : c.value;
        return c.make(params)->log_prob(x);
      },
      inputs, {1e-6, c.gradient_tolerance});
}

// Sample mean and variance against the closed forms, within 5 Monte Carlo standard errors per
// element (false-failure probability about 6e-7 per comparison).
void check_moments(const DistributionCase& c, const Distribution& d) {
  constexpr std::int64_t n = 20000;
  const Tensor draws = prim::cast(d.sample(random::Key(4242), Shape{n}), DType::f64);
  ASSERT_EQ(draws.shape(), d.sample_full_shape(Shape{n}));
  const int first[] = {0};
  const Tensor m = prim::sum(draws, first) / double(n);
  const Tensor centered = prim::sub(draws, m);
  const Tensor s2 = prim::sum(prim::unary(UnaryOp::square, centered), first) / double(n - 1);
  const Tensor m4 = prim::sum(prim::binary(BinaryOp::pow, centered, 4.0), first) / double(n);
  // The standard error uses the larger of the sample and the closed-form variance, so that a sample
  // of one repeated value (a rare event) does not get a zero tolerance.
  const Tensor closed_var = c.check_variance ? prim::broadcast_to(prim::cast(d.variance(), DType::f64), m.shape()) : s2;
  if (c.check_mean) {
    const Tensor mean = prim::broadcast_to(prim::cast(d.mean(), DType::f64), m.shape());
    for (std::int64_t i = 0; i < m.numel(); ++i) {
      const double se = std::sqrt(std::max(s2.at(i), closed_var.at(i)) / n);
      EXPECT_NEAR(m.at(i), mean.at(i), 5 * se + 1e-12) << "sample mean, element " << i;
    }
  }
  if (c.check_variance) {
    const Tensor var = prim::broadcast_to(prim::cast(d.variance(), DType::f64), m.shape());
    for (std::int64_t i = 0; i < m.numel(); ++i) {
      const double se = std::sqrt(std::max(0.0, m4.at(i) - s2.at(i) * s2.at(i)) / n);
      EXPECT_NEAR(s2.at(i), var.at(i), 5 * se + 1e-12) << "sample variance, element " << i;
    }
  }
  // Every draw lies in the support and has a finite log density.
  const Tensor inside = dist::in_support(d.support(), draws);
  EXPECT_EQ(prim::sum(inside).item(), double(inside.numel())) << "draws outside the support";
  const Tensor lp = d.log_prob(draws);
  const Tensor finite = prim::binary(BinaryOp::lt, prim::unary(UnaryOp::abs, lp), INFINITY);
  EXPECT_EQ(prim::sum(finite).item(), double(finite.numel())) << "non-finite log density at a draw";
}

}  // namespace

void check_conformance(const DistributionCase& c) {
  SCOPED_TRACE(c.name);
  const DistributionPtr d = c.make(c.params);
  ASSERT_EQ(d->sample(random::Key(1), Shape{3}).shape(), d->sample_full_shape(Shape{3}));
  ASSERT_EQ(d->sample(random::Key(1)).shape(), d->sample_full_shape(Shape{}));
  // The same key gives the same draws.
  EXPECT_EQ(
      prim::sum(prim::binary(BinaryOp::ne, d->sample(random::Key(7), Shape{4}), d->sample(random::Key(7), Shape{4})))
          .item(),
      0.0);
  check_log_prob_values(c, *d);
  check_gradients(c);
  check_moments(c, *d);
  if (c.outside.defined()) {
    const Tensor lp = d->log_prob(c.outside);
    for (std::int64_t i = 0; i < lp.numel(); ++i)
      EXPECT_EQ(lp.at(i), -INFINITY) << "outside the support, element " << i;
  }
}

}  // namespace variate::testing
