// The composite layer ops of nn/functional.hpp: values against naive loops and hand computations,
// gradients against finite differences.
#include "variate/nn/functional.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"

namespace variate::nn {
namespace {

using testing::expect_ad;
using testing::random_tensor;
using S = std::span<const Tensor>;

// Direct evaluation of the convolution sum, element by element.
Tensor naive_conv2d(const Tensor& x, const Tensor& w, const Tensor& b, std::int64_t stride, std::int64_t padding) {
  const std::int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const std::int64_t o = w.dim(0), kh = w.dim(2), kw = w.dim(3);
  const std::int64_t oh = (h + 2 * padding - kh) / stride + 1, ow = (wd + 2 * padding - kw) / stride + 1;
  std::vector<double> out(std::size_t(n * o * oh * ow));
  for (std::int64_t in = 0; in < n; ++in)
    for (std::int64_t io = 0; io < o; ++io)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t z = 0; z < ow; ++z) {
          double s = b.at(io);
          for (std::int64_t ic = 0; ic < c; ++ic)
            for (std::int64_t i = 0; i < kh; ++i)
              for (std::int64_t j = 0; j < kw; ++j) {
                const std::int64_t r = y * stride + i - padding, q = z * stride + j - padding;
                if (r < 0 || r >= h || q < 0 || q >= wd) continue;
                s += x.at(((in * c + ic) * h + r) * wd + q) * w.at(((io * c + ic) * kh + i) * kw + j);
              }
          out[std::size_t(((in * o + io) * oh + y) * ow + z)] = s;
        }
  return Tensor::from(out, Shape{n, o, oh, ow});
}

TEST(Conv2d, MatchesNaiveLoop) {
  const Tensor x = random_tensor(Shape{2, 3, 7, 6}, 1), w = random_tensor(Shape{4, 3, 3, 2}, 2);
  const Tensor b = random_tensor(Shape{4}, 3);
  for (std::int64_t stride : {1, 2, 3})
    for (std::int64_t padding : {0, 1, 2}) {
      const Tensor got = conv2d(x, w, b, stride, padding), want = naive_conv2d(x, w, b, stride, padding);
      ASSERT_EQ(got.shape(), want.shape()) << "stride " << stride << " padding " << padding;
      for (std::int64_t i = 0; i < got.numel(); ++i) ASSERT_NEAR(got.at(i), want.at(i), 1e-12);
    }
}

TEST(Conv2d, GradientsMatchFiniteDifferences) {
  const Tensor x = random_tensor(Shape{2, 2, 5, 4}, 4), w = random_tensor(Shape{3, 2, 3, 3}, 5);
  const Tensor b = random_tensor(Shape{3}, 6);
  expect_ad([](S v) { return conv2d(v[0], v[1], v[2], 2, 1); }, {x, w, b});
  expect_ad([](S v) { return conv2d(v[0], v[1], Tensor(), 1, 0); }, {x, w});
}

TEST(Conv2d, ShapeErrors) {
  const Tensor x = random_tensor(Shape{1, 2, 4, 4}, 7);
  EXPECT_ERROR(conv2d(x, random_tensor(Shape{3, 1, 2, 2}, 8), Tensor()), "conv2d: the weight must be (O, 2, kh, kw)");
  EXPECT_ERROR(conv2d(x, random_tensor(Shape{3, 2, 5, 5}, 8), Tensor()), "larger than the padded input 4x4");
  EXPECT_ERROR(conv2d(random_tensor(Shape{2, 4, 4}, 9), random_tensor(Shape{3, 2, 2, 2}, 8), Tensor()),
               "conv2d: the input must be (N, C, H, W), got shape [2, 4, 4]");
}

TEST(LayerNorm, ValuesAndGradients) {
  const Tensor x = Tensor::from(std::vector<double>{1, 2, 3, 4, -1, 0, 1, 6}, Shape{2, 4});
  const Tensor w = Tensor::vec({1, 2, 1, 0.5}), b = Tensor::vec({0, 0, 1, 0});
  const Tensor y = layer_norm(x, w, b, 0.0);
  // Row 0: mean 2.5, biased variance 1.25.
  const double sd = std::sqrt(1.25);
  EXPECT_NEAR(y.at(0), -1.5 / sd, 1e-14);
  EXPECT_NEAR(y.at(1), 2 * -0.5 / sd, 1e-14);
  EXPECT_NEAR(y.at(2), 0.5 / sd + 1, 1e-14);
  EXPECT_NEAR(y.at(3), 0.5 * 1.5 / sd, 1e-14);
  expect_ad([](S v) { return layer_norm(v[0], v[1], v[2]); },
            {random_tensor(Shape{3, 5}, 10), random_tensor(Shape{5}, 11), random_tensor(Shape{5}, 12)});
  EXPECT_ERROR(layer_norm(x, Tensor::ones(Shape{3}), Tensor::zeros(Shape{3})),
               "layer_norm: weight and bias must have shape [4]");
}

TEST(Dropout, MaskIsAFunctionOfTheKey) {
  const Tensor x = Tensor::ones(Shape{200, 50});
  const random::Key key(42);
  const Tensor a = dropout(x, 0.3, key), b = dropout(x, 0.3, key), c = dropout(x, 0.3, random::Key(43));
  std::int64_t kept = 0, differ = 0;
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_EQ(a.at(i), b.at(i));
    ASSERT_TRUE(a.at(i) == 0.0 || std::abs(a.at(i) - 1 / 0.7) < 1e-12) << a.at(i);
    kept += a.at(i) != 0.0;
    differ += a.at(i) != c.at(i);
  }
  // 10000 elements kept with probability 0.7: sd of the count is sqrt(10000 * 0.21) = 46; 5 sd.
  EXPECT_NEAR(double(kept), 7000.0, 230.0);
  EXPECT_GT(differ, 1000);
  EXPECT_EQ(dropout(x, 0.0, key).at(0), 1.0);
  EXPECT_ERROR(dropout(x, 1.0, key), "dropout: the drop probability must be in [0, 1), got 1");
  expect_ad([key](S v) { return dropout(v[0], 0.5, key); }, {random_tensor(Shape{4, 3}, 13)});
}

TEST(Attention, ValuesAndGradients) {
  // One query, two keys: weights softmax(q.k / sqrt 2).
  const Tensor q = Tensor::from(std::vector<double>{1, 0}, Shape{1, 2});
  const Tensor k = Tensor::from(std::vector<double>{1, 0, 0, 1}, Shape{2, 2});
  const Tensor v = Tensor::from(std::vector<double>{1, 2, 3, 4}, Shape{2, 2});
  const double p = 1 / (1 + std::exp(-1 / std::sqrt(2.0)));
  const Tensor out = scaled_dot_product_attention(q, k, v);
  EXPECT_NEAR(out.at(0), p * 1 + (1 - p) * 3, 1e-14);
  EXPECT_NEAR(out.at(1), p * 2 + (1 - p) * 4, 1e-14);
  const Tensor qs = random_tensor(Shape{2, 4, 3}, 14), ks = random_tensor(Shape{2, 4, 3}, 15);
  const Tensor vs = random_tensor(Shape{2, 4, 2}, 16);
  expect_ad([](S a) { return scaled_dot_product_attention(a[0], a[1], a[2], causal_mask(4)); }, {qs, ks, vs});
  expect_ad([](S a) { return scaled_dot_product_attention(a[0], a[1], a[2]); }, {qs, ks, vs});
  // With the causal mask the first query sees only the first key: its output is v[0].
  const Tensor masked = scaled_dot_product_attention(qs, ks, vs, causal_mask(4));
  EXPECT_NEAR(masked.at(0), vs.at(0), 1e-15);
  EXPECT_NEAR(masked.at(1), vs.at(1), 1e-15);
}

TEST(Activations, EveryKindAndItsGradient) {
  const Tensor x = random_tensor(Shape{6}, 17, 2.0);
  for (ActivationKind kind :
       {ActivationKind::identity, ActivationKind::relu, ActivationKind::tanh, ActivationKind::softplus,
        ActivationKind::elu, ActivationKind::gelu, ActivationKind::sigmoid}) {
    SCOPED_TRACE(name(kind));
    expect_ad([kind](S v) { return activate(kind, v[0]); }, {x});
  }
  EXPECT_NEAR(activate(ActivationKind::sigmoid, Tensor::scalar(0.0)).item(), 0.5, 1e-15);
  EXPECT_NEAR(activate(ActivationKind::softplus, Tensor::scalar(0.0)).item(), std::log(2.0), 1e-15);
}

}  // namespace
}  // namespace variate::nn
