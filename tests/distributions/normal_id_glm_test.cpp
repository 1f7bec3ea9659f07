// The fused Normal GLM against the same model written with composite ops.
#include "variate/distributions/normal_id_glm.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/random/samplers.hpp"

namespace variate {
namespace {

struct Data {
  Tensor x, y;
};

Data make_data(std::int64_t n, std::int64_t d) {
  const random::Key key(7);
  Data data;
  data.x = random::normal(random::fold_in(key, 1), Shape{n, d});
  data.y = 1.0 + 2.0 * random::normal(random::fold_in(key, 2), Shape{n});
  return data;
}

// sum_i log N(y_i | x_i . w + alpha, sigma), for one state.
Tensor composite(const Tensor& x, const Tensor& y, const Tensor& w, const Tensor& alpha, const Tensor& sigma) {
  return sum(dist::Normal(matmul(x, w) + alpha, sigma).log_prob(y));
}

TEST(NormalIdGLM, ValueAndGradientMatchTheCompositeModel) {
  // 1300 rows of 7: several blocks of rows and a partial one.
  const Data data = make_data(1300, 7);
  const Tensor w = testing::random_tensor(Shape{7}, 3, 0.5), alpha = Tensor::scalar(-0.3), sigma = Tensor::scalar(1.7);
  auto fused = value_and_grad([&](const Tensor& w, const Tensor& a,
                                  const Tensor& s) { return dist::NormalIdGLM(data.x, w, a, s).log_prob(data.y); },
                              w, alpha, sigma);
  auto plain = value_and_grad(
      [&](const Tensor& w, const Tensor& a, const Tensor& s) { return composite(data.x, data.y, w, a, s); }, w, alpha,
      sigma);
  EXPECT_NEAR(fused.value.item(), plain.value.item(), 1e-12 * std::abs(plain.value.item()));
  for (int j = 0; j < 7; ++j) EXPECT_NEAR(fused.grads[0].at(j), plain.grads[0].at(j), 1e-9);
  EXPECT_NEAR(fused.grads[1].item(), plain.grads[1].item(), 1e-9);
  EXPECT_NEAR(fused.grads[2].item(), plain.grads[2].item(), 1e-9);
  testing::expect_ad(
      [&](std::span<const Tensor> v) { return dist::NormalIdGLM(data.x, v[0], v[1], v[2]).log_prob(data.y); },
      {w, alpha, sigma});
}

// Several states (chains) in one pass, in both precisions, each state's value and gradient against
// its own composite: rows that fill no whole block, and a D that is no multiple of a vector.
TEST(NormalIdGLM, ManyStatesMatchTheCompositeModelInBothPrecisions) {
  const Data data = make_data(1037, 19);
  for (const DType dtype : {DType::f64, DType::f32}) {
    // Relative: sums of ~1000 terms in different orders, each rounding at most 1.1e-16 or 6e-8.
    const double tol = dtype == DType::f64 ? 1e-10 : 1e-4;
    const Tensor x = prim::cast(data.x, dtype), y = prim::cast(data.y, dtype);
    for (const std::int64_t states : {1, 2, 5}) {
      const Tensor w = prim::cast(testing::random_tensor(Shape{states, 19}, 9, 0.3), dtype);
      const Tensor alpha = prim::cast(testing::random_tensor(Shape{states}, 10, 0.5), dtype);
      const Tensor sigma = prim::cast(1.0 + testing::uniform_tensor(Shape{states}, 11, 0, 2), dtype);
      const auto fused = value_and_grad([&](const Tensor& w, const Tensor& a,
                                            const Tensor& s) { return sum(dist::NormalIdGLM(x, w, a, s).log_prob(y)); },
                                        w, alpha, sigma);
      const Tensor lp = dist::NormalIdGLM(x, w, alpha, sigma).log_prob(y);
      ASSERT_EQ(lp.shape(), (Shape{states}));
      EXPECT_EQ(lp.dtype(), dtype);
      for (std::int64_t c = 0; c < states; ++c) {
        SCOPED_TRACE(std::string(name(dtype)) + " state " + std::to_string(c) + " of " + std::to_string(states));
        const auto state = [c](const Tensor& t) { return prim::squeeze(prim::slice(t, 0, c, c + 1), 0); };
        const auto plain = value_and_grad(
            [&](const Tensor& w, const Tensor& a, const Tensor& s) {
              return composite(prim::cast(x, DType::f64), prim::cast(y, DType::f64), w, a, s);
            },
            prim::cast(state(w), DType::f64), prim::cast(state(alpha), DType::f64),
            prim::cast(state(sigma), DType::f64));
        const double value = plain.value.item();
        EXPECT_NEAR(lp.at(c), value, tol * std::abs(value));
        for (std::int64_t j = 0; j < 19; ++j)
          EXPECT_NEAR(fused.grads[0].at(c * 19 + j), plain.grads[0].at(j), tol * 1037) << "w " << j;
        EXPECT_NEAR(fused.grads[1].at(c), plain.grads[1].item(), tol * 1037);
        EXPECT_NEAR(fused.grads[2].at(c), plain.grads[2].item(), tol * 1037);
      }
    }
  }
}

TEST(NormalIdGLM, ResultsAreTheSameBitsOnAnyThreadCount) {
  const Data data = make_data(20000, 5);
  const Tensor w = testing::random_tensor(Shape{3, 5}, 8, 0.3), alpha = Tensor::vec({0.1, -0.2, 0.0}),
               sigma = Tensor::vec({1.0, 2.0, 0.5});
  const auto gradient = [&] {
    return value_and_grad(
        [&](const Tensor& v) { return sum(dist::NormalIdGLM(data.x, v, alpha, sigma).log_prob(data.y)); }, w);
  };
  const auto many = gradient();
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = gradient();
  omp_set_num_threads(3);
  const auto three = gradient();
  omp_set_num_threads(threads);
  for (const auto* other : {&one, &three}) {
    EXPECT_EQ(std::memcmp(other->value.raw(), many.value.raw(), many.value.nbytes()), 0);
    EXPECT_EQ(std::memcmp(other->grads[0].raw(), many.grads[0].raw(), many.grads[0].nbytes()), 0);
  }
}

TEST(NormalIdGLM, DrawsHaveTheModelsMeanAndVariance) {
  const Tensor x = Tensor::from(std::vector<double>{1.0, 0.5, -0.3, 2.0, 0.7, -1.1}, {3, 2});
  const Tensor w = Tensor::from(std::vector<double>{0.4, -0.6, 1.0, 0.2}, {2, 2});
  const dist::NormalIdGLM glm(x, w, Tensor::vec({0.2, -1.0}), Tensor::vec({0.5, 2.0}));
  constexpr std::int64_t kDraws = 20000;
  const Tensor draws = glm.sample(random::Key(3), {kDraws});
  ASSERT_EQ(draws.shape(), (Shape{kDraws, 2, 3}));
  const Tensor draws_mean = mean(draws, std::vector<int>{0}), variance = glm.variance();
  const Tensor expected = glm.mean();
  ASSERT_EQ(expected.shape(), (Shape{2, 3}));
  ASSERT_EQ(variance.shape(), (Shape{2, 3}));
  for (std::int64_t i = 0; i < 6; ++i) {
    // Four standard errors of a mean of kDraws draws.
    EXPECT_NEAR(draws_mean.at(i), expected.at(i), 4 * std::sqrt(variance.at(i) / double(kDraws))) << "element " << i;
  }
  EXPECT_DOUBLE_EQ(variance.at(0), 0.25);
  EXPECT_DOUBLE_EQ(variance.at(5), 4.0);
}

TEST(NormalIdGLM, BadArgumentsAndDataAreErrorsThatNameThem) {
  const Data data = make_data(10, 2);
  const Tensor w = Tensor::vec({0.1, 0.2}), alpha = Tensor::scalar(0.0), sigma = Tensor::scalar(1.0);
  EXPECT_ERROR(dist::NormalIdGLM(data.x, Tensor::vec({0.1, 0.2, 0.3}), alpha, sigma), "w must have shape (2)");
  EXPECT_ERROR(dist::NormalIdGLM(data.x, w, Tensor::vec({0.0, 1.0}), sigma), "alpha must have shape () or (1)");
  EXPECT_ERROR(dist::NormalIdGLM(data.x, Tensor::from(std::vector<double>{0.1, 0.2, 0.3, 0.4}, {2, 2}), alpha, sigma),
               "alpha must have shape () or (2)");
  EXPECT_ERROR(dist::NormalIdGLM(data.x, w, alpha, Tensor::scalar(0.0)), "sigma");
  EXPECT_ERROR(dist::NormalIdGLM(data.x, w, alpha, Tensor::scalar(-1.0)), "sigma");
  EXPECT_ERROR(dist::NormalIdGLM(data.x, Tensor::vec({0.1, NAN}), alpha, sigma), "w");
  EXPECT_ERROR(dist::NormalIdGLM(Tensor::vec({1.0, 2.0}), w, alpha, sigma), "x must be a matrix");
  EXPECT_ERROR(dist::NormalIdGLM(data.x, w, alpha, sigma).log_prob(Tensor::vec({1, 0})), "y must have shape (10)");
  Tensor bad_y = data.y.clone();
  bad_y.data<double>()[4] = NAN;
  EXPECT_ERROR(dist::NormalIdGLM(data.x, w, alpha, sigma).log_prob(bad_y), "y must be finite");
  Tensor bad_x = data.x.clone();
  bad_x.data<double>()[5] = INFINITY;
  EXPECT_ERROR(dist::NormalIdGLM(bad_x, w, alpha, sigma).log_prob(data.y), "x must be finite");
  // x and y are data: a gradient for either is refused, not returned as zero.
  EXPECT_ERROR(
      value_and_grad([&](const Tensor& x) { return dist::NormalIdGLM(x, w, alpha, sigma).log_prob(data.y); }, data.x),
      "x is data here");
  EXPECT_ERROR(
      value_and_grad([&](const Tensor& y) { return dist::NormalIdGLM(data.x, w, alpha, sigma).log_prob(y); }, data.y),
      "y is data here");
}

}  // namespace
}  // namespace variate
