// The fused categorical-logit GLM against the same model written with Categorical(logits = x w + b).
#include "variate/distributions/categorical_logit_glm.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/random/samplers.hpp"

namespace variate {
namespace {

struct Data {
  Tensor x, y;
};

// x standard normal, each element kept with probability `density` and zero otherwise; labels drawn
// from the model at a random w (so every category occurs).
Data make_data(std::int64_t n, std::int64_t d, std::int64_t k, unsigned seed = 5, double density = 1.0) {
  Data data;
  data.x = testing::random_tensor(Shape{n, d}, seed);
  if (density < 1.0) {
    std::vector<double> x = data.x.to_vector<double>();
    const std::vector<double> u = testing::uniform_tensor(Shape{n, d}, seed + 3, 0.0, 1.0).to_vector<double>();
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = u[i] < density ? x[i] : 0.0;
    data.x = Tensor::from(x, Shape{n, d});
  }
  const Tensor w = testing::random_tensor(Shape{d, k}, seed + 1, 0.5);
  data.y = dist::CategoricalLogitGLM(data.x, w, Tensor::zeros(Shape{k})).sample(random::Key(seed + 2));
  return data;
}

Tensor composite(const Tensor& x, const Tensor& y, const Tensor& w, const Tensor& b) {
  return sum(dist::Categorical::from_logits(matmul(x, w) + b).log_prob(y));
}

Tensor fused(const Tensor& x, const Tensor& y, const Tensor& w, const Tensor& b) {
  return dist::CategoricalLogitGLM(x, w, b).log_prob(y);
}

// Largest |a - b| over the elements, relative to the largest |b| (at least 1).
double relative_error(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double diff = 0, scale = 1;
  for (std::int64_t i = 0; i < b.numel(); ++i) {
    diff = std::max(diff, std::abs(a.at(i) - b.at(i)));
    scale = std::max(scale, std::abs(b.at(i)));
  }
  return diff / scale;
}

void expect_matches_composite(std::int64_t n, std::int64_t d, std::int64_t k, double density = 1.0) {
  SCOPED_TRACE("N = " + std::to_string(n) + ", D = " + std::to_string(d) + ", K = " + std::to_string(k) + ", density " +
               std::to_string(density));
  const Data data = make_data(n, d, k, 5, density);
  const Tensor w = testing::random_tensor(Shape{d, k}, 3, 0.4), b = testing::random_tensor(Shape{k}, 4, 0.7);
  auto f = value_and_grad([&](const Tensor& w, const Tensor& b) { return fused(data.x, data.y, w, b); }, w, b);
  auto c = value_and_grad([&](const Tensor& w, const Tensor& b) { return composite(data.x, data.y, w, b); }, w, b);
  EXPECT_EQ(f.value.shape(), Shape{});
  EXPECT_NEAR(f.value.item(), c.value.item(), 1e-12 * std::abs(c.value.item()));
  EXPECT_LT(relative_error(f.grads[0], c.grads[0]), 1e-12);
  EXPECT_LT(relative_error(f.grads[1], c.grads[1]), 1e-12);
}

TEST(CategoricalLogitGLM, ValueAndGradientMatchTheCompositeModel) {
  // Row counts below, at and not a multiple of the block size (a block is 4800 rows for small D and
  // about 768 KB of x otherwise), single rows, and K = 2 .. 12.
  expect_matches_composite(1, 3, 2);
  expect_matches_composite(95, 7, 3);
  expect_matches_composite(1000, 300, 10);  // 288-row blocks: four, the last partial
  expect_matches_composite(7001, 200, 4);   // fifteen blocks
  for (std::int64_t k = 2; k <= 12; ++k) expect_matches_composite(4800 + 37 * k, 6, k);
}

// A design matrix with mostly zeros (MNIST's pixels: 81%) takes the products over its nonzeros
// (cpu/sparse_rows.hpp): the same values and gradients, for logit counts that fill whole vectors or
// leave a remainder, fit one register tile or need several.
TEST(CategoricalLogitGLM, MostlyZeroDesignsMatchTheCompositeModel) {
  expect_matches_composite(95, 7, 3, 0.2);
  expect_matches_composite(1000, 300, 10, 0.2);
  expect_matches_composite(7001, 200, 4, 0.05);
  for (std::int64_t k : {2, 5, 8, 12}) expect_matches_composite(3000 + 37 * k, 50, k, 0.3);
  for (const auto& [c, k] : {std::pair<std::int64_t, std::int64_t>{4, 10}, {3, 3}, {9, 12}}) {
    SCOPED_TRACE("C = " + std::to_string(c) + ", K = " + std::to_string(k));
    const Data data = make_data(2000, 120, k, 21, 0.2);
    const Tensor w = testing::random_tensor(Shape{c, 120, k}, 22, 0.3), b = testing::random_tensor(Shape{c, k}, 23);
    for (const DType t : {DType::f64, DType::f32}) {
      SCOPED_TRACE(t == DType::f64 ? "f64" : "f32");
      const Tensor x = prim::cast(data.x, t);
      auto f = value_and_grad([&](const Tensor& w, const Tensor& b) { return sum(fused(x, data.y, w, b)); },
                              prim::cast(w, t), prim::cast(b, t));
      // As SinglePrecisionAndThreadCountIndependence in single precision.
      const double value_tol = t == DType::f64 ? 1e-12 : 1e-5, grad_tol = t == DType::f64 ? 1e-12 : 1e-4;
      const Tensor lp = dist::CategoricalLogitGLM(x, prim::cast(w, t), prim::cast(b, t)).log_prob(data.y);
      for (std::int64_t j = 0; j < c; ++j) {
        const auto chain = [&](const Tensor& v) { return prim::squeeze(prim::slice(v, 0, j, j + 1), 0); };
        auto ref = value_and_grad([&](const Tensor& w, const Tensor& b) { return composite(data.x, data.y, w, b); },
                                  chain(w), chain(b));
        EXPECT_NEAR(lp.at(j), ref.value.item(), value_tol * std::abs(ref.value.item()));
        EXPECT_LT(relative_error(prim::cast(chain(f.grads[0]), DType::f64), ref.grads[0]), grad_tol);
        EXPECT_LT(relative_error(prim::cast(chain(f.grads[1]), DType::f64), ref.grads[1]), grad_tol);
      }
    }
  }
}

// The distributions refuse a non-finite weight, but the kernel below them may see one. Its row of w
// meets only zeros of x here, so only the dense products (0 inf = NaN) see it: the products over
// the nonzeros alone must not be used, and the result is NaN, not a value.
TEST(CategoricalLogitGLM, MostlyZeroDesignsWithAnInfiniteWeightGiveNaN) {
  const Data data = make_data(500, 20, 3, 24, 0.1);
  std::vector<double> xv = data.x.to_vector<double>();
  for (std::int64_t i = 0; i < 500; ++i) xv[std::size_t(i * 20 + 2)] = 0.0;  // column 2 of x
  const Tensor x = Tensor::from(xv, Shape{500, 20});
  std::vector<double> wv = testing::random_tensor(Shape{20, 3}, 25).to_vector<double>();
  const Tensor b = Tensor::zeros(Shape{3});
  EXPECT_TRUE(std::isfinite(prim::categorical_logit_glm(x, Tensor::from(wv, Shape{20, 3}), b, data.y).log_lik.item()));
  wv[2 * 3 + 1] = std::numeric_limits<double>::infinity();  // row 2 of w
  EXPECT_TRUE(std::isnan(prim::categorical_logit_glm(x, Tensor::from(wv, Shape{20, 3}), b, data.y).log_lik.item()));
  wv[2 * 3 + 1] = 0.5;
  const Tensor infinite_b = Tensor::from(std::vector<double>{0, std::numeric_limits<double>::infinity(), 0}, Shape{3});
  EXPECT_TRUE(std::isnan(prim::categorical_logit_glm(x, Tensor::from(wv, Shape{20, 3}), infinite_b, data.y)
                             .grad_w.to_vector<double>()[2 * 3]));
}

TEST(CategoricalLogitGLM, SuperBlocksWithoutRowsAddNothing) {
  // 66 blocks of 96 rows in 64 super-blocks of two: the last 31 super-blocks hold no rows, and their
  // partial gradients must count as zero. The evaluation just before, with rows in every super-block,
  // leaves its sums in the scratch memory the allocator hands out next.
  const Data data = make_data(96 * 128, 1000, 3);
  const Tensor w = testing::random_tensor(Shape{1000, 3}, 18, 0.1), b = testing::random_tensor(Shape{3}, 19);
  const std::int64_t n = 96 * 65 + 5;
  const Tensor x = prim::slice(data.x, 0, 0, n), y = prim::slice(data.y, 0, 0, n);
  auto ref = value_and_grad([&](const Tensor& w, const Tensor& b) { return composite(x, y, w, b); }, w, b);
  fused(data.x, data.y, w, b);
  auto f = value_and_grad([&](const Tensor& w, const Tensor& b) { return fused(x, y, w, b); }, w, b);
  EXPECT_NEAR(f.value.item(), ref.value.item(), 1e-12 * std::abs(ref.value.item()));
  EXPECT_LT(relative_error(f.grads[0], ref.grads[0]), 1e-12);
}

TEST(CategoricalLogitGLM, FiniteDifferences) {
  const Data data = make_data(60, 4, 3);
  testing::expect_ad([&](std::span<const Tensor> v) { return fused(data.x, data.y, v[0], v[1]); },
                     {testing::random_tensor(Shape{4, 3}, 7, 0.5), testing::random_tensor(Shape{3}, 8)});
  testing::expect_ad([&](std::span<const Tensor> v) { return fused(data.x, data.y, v[0], v[1]); },
                     {testing::random_tensor(Shape{2, 4, 3}, 9, 0.5), testing::random_tensor(Shape{2, 3}, 10)});
}

// Each chain of a batched evaluation equals its unbatched value and gradient, both when the C K
// logits fit the skinny product kernels (C K <= 32) and when they do not (C K = 40).
TEST(CategoricalLogitGLM, ChainsEqualTheirUnbatchedEvaluation) {
  for (const auto& [c, k] : {std::pair<std::int64_t, std::int64_t>{3, 5}, {4, 10}}) {
    SCOPED_TRACE("C = " + std::to_string(c) + ", K = " + std::to_string(k));
    const std::int64_t n = 1500, d = 300;
    const Data data = make_data(n, d, k);
    const Tensor w = testing::random_tensor(Shape{c, d, k}, 11, 0.3), b = testing::random_tensor(Shape{c, k}, 12);
    const dist::CategoricalLogitGLM glm(data.x, w, b);
    EXPECT_EQ(glm.batch_shape(), (Shape{c}));
    EXPECT_EQ(glm.event_shape(), (Shape{n}));
    // d/dw sum_c lp_c gives every chain's gradient at once.
    auto batched =
        value_and_grad([&](const Tensor& w, const Tensor& b) { return sum(fused(data.x, data.y, w, b)); }, w, b);
    const Tensor lp = glm.log_prob(data.y);
    ASSERT_EQ(lp.shape(), (Shape{c}));
    for (std::int64_t j = 0; j < c; ++j) {
      const Tensor wj = prim::squeeze(prim::slice(w, 0, j, j + 1), 0),
                   bj = prim::squeeze(prim::slice(b, 0, j, j + 1), 0);
      auto one = value_and_grad([&](const Tensor& w, const Tensor& b) { return fused(data.x, data.y, w, b); }, wj, bj);
      auto ref =
          value_and_grad([&](const Tensor& w, const Tensor& b) { return composite(data.x, data.y, w, b); }, wj, bj);
      EXPECT_NEAR(lp.at(j), one.value.item(), 1e-12 * std::abs(one.value.item()));
      EXPECT_NEAR(lp.at(j), ref.value.item(), 1e-12 * std::abs(ref.value.item()));
      EXPECT_LT(relative_error(prim::squeeze(prim::slice(batched.grads[0], 0, j, j + 1), 0), one.grads[0]), 1e-12);
      EXPECT_LT(relative_error(prim::squeeze(prim::slice(batched.grads[1], 0, j, j + 1), 0), one.grads[1]), 1e-12);
      EXPECT_LT(relative_error(one.grads[0], ref.grads[0]), 1e-12);
    }
  }
}

TEST(CategoricalLogitGLM, SinglePrecisionAndThreadCountIndependence) {
  for (const double density : {1.0, 0.2}) {
    SCOPED_TRACE("density " + std::to_string(density));
    const Data data = make_data(5000, 300, 10, 5, density);
    const Tensor w = testing::random_tensor(Shape{300, 10}, 13, 0.1), b = testing::random_tensor(Shape{10}, 14);
    auto f64 = value_and_grad([&](const Tensor& w, const Tensor& b) { return fused(data.x, data.y, w, b); }, w, b);
    const Tensor x32 = prim::cast(data.x, DType::f32);
    auto f32 = value_and_grad([&](const Tensor& w, const Tensor& b) { return fused(x32, data.y, w, b); },
                              prim::cast(w, DType::f32), prim::cast(b, DType::f32));
    EXPECT_EQ(f32.value.dtype(), DType::f32);
    EXPECT_EQ(f32.grads[0].dtype(), DType::f32);
    EXPECT_NEAR(f32.value.item(), f64.value.item(), 1e-5 * std::abs(f64.value.item()));
    EXPECT_LT(relative_error(f32.grads[0], f64.grads[0]), 1e-4);
    EXPECT_LT(relative_error(f32.grads[1], f64.grads[1]), 1e-4);
    const int threads = omp_get_max_threads();
    for (int t : {1, 2, 3}) {
      omp_set_num_threads(t);
      auto again = value_and_grad([&](const Tensor& w, const Tensor& b) { return fused(data.x, data.y, w, b); }, w, b);
      const double v = again.value.item(), v0 = f64.value.item();
      EXPECT_EQ(std::memcmp(&v, &v0, sizeof v), 0) << t << " threads";
      EXPECT_EQ(std::memcmp(again.grads[0].raw(), f64.grads[0].raw(), f64.grads[0].nbytes()), 0) << t << " threads";
    }
    omp_set_num_threads(threads);
  }
}

TEST(CategoricalLogitGLM, LabelsOfAnyRealDtypeAndOutsideTheSupport) {
  const Data data = make_data(40, 3, 4);
  const Tensor w = testing::random_tensor(Shape{3, 4}, 15), b = Tensor::zeros(Shape{4});
  const dist::CategoricalLogitGLM glm(data.x, w, b);
  EXPECT_EQ(glm.dtype(), DType::i64);
  EXPECT_EQ(data.y.dtype(), DType::i64);
  const double lp = glm.log_prob(data.y).item();
  EXPECT_TRUE(std::isfinite(lp));
  EXPECT_EQ(glm.log_prob(prim::cast(data.y, DType::f64)).item(), lp);
  EXPECT_EQ(glm.log_prob(prim::cast(data.y, DType::f32)).item(), lp);
  // As for Categorical, the log density of a label outside {0, .., K-1} is -inf (not an error, so
  // that support masks and mixtures work), and a NaN label gives NaN.
  for (double bad : {4.0, -1.0, 1.5}) {
    Tensor y = prim::cast(data.y, DType::f64).clone();
    y.data<double>()[7] = bad;
    EXPECT_EQ(glm.log_prob(y).item(), -INFINITY) << bad;
    EXPECT_EQ(composite(data.x, y, w, b).item(), -INFINITY) << bad;
  }
  Tensor nan_y = prim::cast(data.y, DType::f64).clone();
  nan_y.data<double>()[7] = NAN;
  EXPECT_TRUE(std::isnan(glm.log_prob(nan_y).item()));
  EXPECT_TRUE(std::isnan(composite(data.x, nan_y, w, b).item()));
  nan_y.data<double>()[3] = 9;  // NaN wins over -inf, as in Categorical's support mask
  EXPECT_TRUE(std::isnan(glm.log_prob(nan_y).item()));
  EXPECT_TRUE(std::isnan(composite(data.x, nan_y, w, b).item()));
  const Constraint support = glm.support();
  EXPECT_EQ(support.kind, Constraint::Kind::integer_interval);
  EXPECT_EQ(support.low.item(), 0.0);
  EXPECT_EQ(support.high.item(), 3.0);
}

TEST(CategoricalLogitGLM, ArgumentChecksNameTheFunctionAndTheArgument) {
  const Data data = make_data(10, 3, 4);
  const Tensor w = testing::random_tensor(Shape{3, 4}, 16), b = Tensor::zeros(Shape{4});
  auto expect_error = [](const auto& f, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "expected an error mentioning '" << what << "'";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("CategoricalLogitGLM"), std::string::npos) << message;
      EXPECT_NE(message.find(what), std::string::npos) << message;
    }
  };
  expect_error([&] { dist::CategoricalLogitGLM(prim::reshape(data.x, Shape{30}), w, b); }, "x must be a matrix");
  expect_error([&] { dist::CategoricalLogitGLM(data.x, Tensor::zeros(Shape{3}), Tensor::zeros(Shape{})); },
               "w must have shape (D, K)");
  expect_error([&] { dist::CategoricalLogitGLM(data.x, Tensor::zeros(Shape{5, 4}), b); }, "w must have D = 3");
  expect_error([&] { dist::CategoricalLogitGLM(data.x, w, Tensor::zeros(Shape{3})); }, "b must have shape");
  expect_error([&] { dist::CategoricalLogitGLM(data.x, Tensor::zeros(Shape{2, 3, 4}), b); }, "b must have shape");
  Tensor nan_w = w.clone();
  nan_w.data<double>()[2] = NAN;
  expect_error([&] { dist::CategoricalLogitGLM(data.x, nan_w, b); }, "w must be finite");
  expect_error([&] { dist::CategoricalLogitGLM(data.x, w, Tensor::vec({0, INFINITY, 0, 0})); }, "b must be finite");
  expect_error([&] { dist::CategoricalLogitGLM(data.x, w, b).log_prob(Tensor::vec({1, 0})); }, "y must have shape");
  Tensor nan_x = data.x.clone();
  nan_x.data<double>()[5] = NAN;
  expect_error([&] { dist::CategoricalLogitGLM(nan_x, w, b).log_prob(data.y); }, "x must be finite");
  expect_error(
      [&] {
        value_and_grad([&](const Tensor& x) { return dist::CategoricalLogitGLM(x, w, b).log_prob(data.y); }, data.x);
      },
      "x is data");
}

TEST(CategoricalLogitGLM, SamplesOneLabelPerRowFromItsLogits) {
  const Data data = make_data(300, 3, 5);
  // Category 2 dominates every row of chain 0 and category 4 every row of chain 1.
  const Tensor w = prim::binary(BinaryOp::mul, testing::random_tensor(Shape{2, 3, 5}, 17), 0.01);
  const Tensor b = Tensor::from(std::vector<double>{0, 0, 60, 0, 0, 0, 0, 0, 0, 60}, Shape{2, 5});
  const dist::CategoricalLogitGLM glm(data.x, w, b);
  const Tensor draws = glm.sample(random::Key(3), Shape{4});
  ASSERT_EQ(draws.shape(), (Shape{4, 2, 300}));
  EXPECT_EQ(draws.dtype(), DType::i64);
  for (std::int64_t i = 0; i < draws.numel(); ++i) EXPECT_EQ(draws.at(i), (i / 300) % 2 == 0 ? 2.0 : 4.0);
  // Draws from moderate logits cover every category, and each one has a finite log density.
  const Tensor y = make_data(3000, 3, 5).y;
  for (int k = 0; k < 5; ++k) EXPECT_GT(prim::sum(prim::binary(BinaryOp::eq, y, double(k))).item(), 100) << k;
}

}  // namespace
}  // namespace variate
