// The fused GLM against the same model written with composite ops.
#include "variate/distributions/bernoulli_logit_glm.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "support/ad_check.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/random/samplers.hpp"

namespace variate {
namespace {

struct Data {
  Tensor x, y;
};

Data make_data(std::int64_t n, std::int64_t d) {
  const random::Key key(5);
  Data data;
  data.x = random::normal(random::fold_in(key, 1), Shape{n, d});
  data.y = random::bernoulli(random::fold_in(key, 2), Tensor::scalar(0.4), Shape{n});
  return data;
}

Tensor composite(const Tensor& x, const Tensor& y, const Tensor& w, const Tensor& alpha) {
  const Tensor z = matmul(x, w) + alpha;
  return sum(y * z - softplus(z));
}

TEST(BernoulliLogitGLM, ValueAndGradientMatchTheCompositeModel) {
  // 1300 rows: several blocks and a partial one.
  const Data data = make_data(1300, 7);
  const Tensor w = testing::random_tensor(Shape{7}, 3, 0.5), alpha = Tensor::scalar(-0.3);
  auto fused = value_and_grad(
      [&](const Tensor& w, const Tensor& a) { return dist::BernoulliLogitGLM(data.x, w, a).log_prob(data.y); }, w,
      alpha);
  auto plain =
      value_and_grad([&](const Tensor& w, const Tensor& a) { return composite(data.x, data.y, w, a); }, w, alpha);
  EXPECT_NEAR(fused.value.item(), plain.value.item(), 1e-9 * std::abs(plain.value.item()));
  for (int j = 0; j < 7; ++j) EXPECT_NEAR(fused.grads[0].at(j), plain.grads[0].at(j), 1e-9);
  EXPECT_NEAR(fused.grads[1].item(), plain.grads[1].item(), 1e-9);
  testing::expect_ad(
      [&](std::span<const Tensor> v) { return dist::BernoulliLogitGLM(data.x, v[0], v[1]).log_prob(data.y); },
      {w, alpha});
}

TEST(BernoulliLogitGLM, ManyStatesShareOnePass) {
  const Data data = make_data(700, 5);
  const Tensor w = testing::random_tensor(Shape{3, 5}, 4), alpha = Tensor::vec({0.1, -0.2, 0.0});
  const dist::BernoulliLogitGLM glm(data.x, w, alpha);
  EXPECT_EQ(glm.batch_shape(), (Shape{3}));
  EXPECT_EQ(glm.event_shape(), (Shape{700}));
  const Tensor lp = glm.log_prob(data.y);
  ASSERT_EQ(lp.shape(), (Shape{3}));
  for (int c = 0; c < 3; ++c) {
    const Tensor wc = prim::squeeze(prim::slice(w, 0, c, c + 1), 0);
    EXPECT_NEAR(lp.at(c), composite(data.x, data.y, wc, alpha.at(c)).item(), 1e-9 * std::abs(lp.at(c)));
  }
  testing::expect_ad(
      [&](std::span<const Tensor> v) { return dist::BernoulliLogitGLM(data.x, v[0], v[1]).log_prob(data.y); },
      {w, alpha});
}

// Up to four states take the fused path over x's panels: whole panels and a partial last one, whole
// groups of panels and a partial last one, a D that is no multiple of the accumulator count, in both
// precisions, every state's value and gradient against its own composite.
TEST(BernoulliLogitGLM, FusedStatesMatchTheCompositeModelInBothPrecisions) {
  const Data data = make_data(1037, 19);
  for (const DType dtype : {DType::f64, DType::f32}) {
    // Relative: sums of ~1000 terms in different orders, each rounding at most 1.1e-16 or 6e-8.
    const double tol = dtype == DType::f64 ? 1e-9 : 2e-4;
    const Tensor x = prim::cast(data.x, dtype);
    for (const std::int64_t states : {1, 2, 3, 4}) {
      const Tensor w = prim::cast(testing::random_tensor(Shape{states, 19}, 9, 0.3), dtype);
      const Tensor alpha = prim::cast(testing::random_tensor(Shape{states}, 10, 0.5), dtype);
      const auto fused = value_and_grad(
          [&](const Tensor& v) { return sum(dist::BernoulliLogitGLM(x, v, alpha).log_prob(data.y)); }, w);
      const Tensor lp = dist::BernoulliLogitGLM(x, w, alpha).log_prob(data.y);
      for (std::int64_t c = 0; c < states; ++c) {
        const auto one =
            value_and_grad([&](const Tensor& v) { return composite(x, prim::cast(data.y, dtype), v, alpha.at(c)); },
                           prim::squeeze(prim::slice(w, 0, c, c + 1), 0));
        EXPECT_NEAR(lp.at(c), one.value.item(), tol * std::abs(one.value.item())) << states << " states, state " << c;
        for (std::int64_t j = 0; j < 19; ++j)
          EXPECT_NEAR(fused.grads[0].at(c * 19 + j), one.grads[0].at(j), tol * (1 + std::abs(one.grads[0].at(j))))
              << "state " << c << ", w " << j;
      }
    }
  }
}

// One row per call, so that no sum hides a term's error: logits where exp(-|z|) underflows, where
// 1 + exp(-|z|) rounds to 1 (the log-likelihood is then -exp(-|z|), and the gradient of a label 1
// is exp(-z) x, both of which must keep their digits) and ordinary ones, for one state and for four
// (the fused paths) and for six (row terms in a pass of their own), against long double. The
// tolerance allows a few roundings (exp, log, a division, two sums) of 1.1e-16 each.
TEST(BernoulliLogitGLM, ExtremeLogitsKeepTheirPrecision) {
  const double tol = 1e-15;
  for (const double z : {-1000.0, -40.0, -5.0, 0.0, 0.7, 40.0, 700.0})
    for (const double y : {0.0, 1.0})
      for (const std::int64_t states : {1, 4, 6}) {
        const long double zl = z, e = std::exp(-std::fabs(zl));
        // y z - max(z, 0) is exact, so the reference keeps ln(1 + e)'s digits.
        const double lp_expected = double((y * zl - std::max(zl, 0.0L)) - std::log1p(e));
        const long double sigmoid = z >= 0 ? 1 / (1 + e) : e / (1 + e);
        const long double complement = z >= 0 ? e / (1 + e) : 1 / (1 + e);
        const double grad_expected = double((y == 1 ? complement : -sigmoid) * zl);
        const Tensor x = Tensor::full(Shape{1, 1}, z);
        const Tensor w = Tensor::ones(Shape{states, 1}), alpha = Tensor::zeros(Shape{states});
        const auto result = value_and_grad(
            [&](const Tensor& v) { return sum(dist::BernoulliLogitGLM(x, v, alpha).log_prob(Tensor::vec({y}))); }, w);
        const Tensor lp = dist::BernoulliLogitGLM(x, w, alpha).log_prob(Tensor::vec({y}));
        for (std::int64_t c = 0; c < states; ++c) {
          EXPECT_NEAR(lp.at(c), lp_expected, tol * std::abs(lp_expected)) << "z " << z << ", y " << y;
          EXPECT_NEAR(result.grads[0].at(c), grad_expected, tol * std::abs(grad_expected)) << "z " << z << ", y " << y;
        }
      }
}

TEST(BernoulliLogitGLM, SinglePrecisionAndThreadCountIndependence) {
  const Data data = make_data(5000, 9);
  const Tensor w = testing::random_tensor(Shape{9}, 6, 0.3);
  const double f64 = dist::BernoulliLogitGLM(data.x, w, 0.0).log_prob(data.y).item();
  const Tensor x32 = prim::cast(data.x, DType::f32), w32 = prim::cast(w, DType::f32);
  const Tensor lp32 = dist::BernoulliLogitGLM(x32, w32, Tensor::scalar(0.0, DType::f32)).log_prob(data.y);
  EXPECT_EQ(lp32.dtype(), DType::f32);
  EXPECT_NEAR(lp32.item(), f64, 1e-5 * std::abs(f64));
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const double one = dist::BernoulliLogitGLM(data.x, w, 0.0).log_prob(data.y).item();
  omp_set_num_threads(threads);
  EXPECT_EQ(std::memcmp(&one, &f64, sizeof one), 0);
}

TEST(BernoulliLogitGLM, ManyStatesGiveTheSameBitsOnAnyThreadCount) {
  const Data data = make_data(5000, 9);
  const Tensor w = testing::random_tensor(Shape{4, 9}, 8, 0.3), alpha = Tensor::vec({0.1, -0.2, 0.0, 0.3});
  const auto gradient = [&] {
    return value_and_grad(
        [&](const Tensor& v) { return sum(dist::BernoulliLogitGLM(data.x, v, alpha).log_prob(data.y)); }, w);
  };
  const auto many = gradient();
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = gradient();
  omp_set_num_threads(threads);
  EXPECT_EQ(std::memcmp(one.value.raw(), many.value.raw(), one.value.nbytes()), 0);
  EXPECT_EQ(std::memcmp(one.grads[0].raw(), many.grads[0].raw(), one.grads[0].nbytes()), 0);
}

// The fused kernel keeps a copy of x in its own layout: a write into x after an evaluation, through
// any tensor sharing its storage, must reach the next one.
TEST(BernoulliLogitGLM, WritesIntoXReachTheNextEvaluation) {
  const Data data = make_data(300, 6);
  const Tensor x = data.x.clone();
  const Tensor w = testing::random_tensor(Shape{6}, 11, 0.5), alpha = Tensor::scalar(0.2);
  const auto log_lik = [&] { return dist::BernoulliLogitGLM(x, w, alpha).log_prob(data.y).item(); };
  EXPECT_NEAR(log_lik(), composite(x, data.y, w, alpha).item(), 1e-9 * std::abs(log_lik()));
  Tensor view = x.view(Shape{300 * 6});
  for (std::int64_t i = 0; i < 300 * 6; i += 7) view.data<double>()[i] += 1.5;
  const double changed = composite(x, data.y, w, alpha).item();
  EXPECT_NEAR(log_lik(), changed, 1e-9 * std::abs(changed));
  EXPECT_GT(std::abs(log_lik() - composite(data.x, data.y, w, alpha).item()), 1.0);
}

TEST(BernoulliLogitGLM, LabelsOutsideZeroOneGiveMinusInfinityAndShapesAreChecked) {
  const Data data = make_data(10, 2);
  Tensor y = data.y.clone();
  y.data<double>()[3] = 2.0;
  EXPECT_EQ(dist::BernoulliLogitGLM(data.x, Tensor::vec({0.1, 0.2}), 0.0).log_prob(y).item(), -INFINITY);
  EXPECT_THROW(dist::BernoulliLogitGLM(data.x, Tensor::vec({0.1, 0.2, 0.3}), 0.0).log_prob(data.y), Error);
  EXPECT_THROW(dist::BernoulliLogitGLM(data.x, Tensor::vec({0.1, 0.2}), 0.0).log_prob(Tensor::vec({1, 0})), Error);
  EXPECT_THROW(dist::BernoulliLogitGLM(data.x, Tensor::vec({0.1, NAN}), 0.0), Error);
  Tensor bad_x = data.x.clone();
  bad_x.data<double>()[5] = INFINITY;
  try {
    dist::BernoulliLogitGLM(bad_x, Tensor::vec({0.1, 0.2}), 0.0).log_prob(data.y);
    ADD_FAILURE() << "expected an error for non-finite x";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x must be finite"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace variate
