#include "variate/nn/recurrent.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"

namespace variate::nn {
namespace {

using testing::random_tensor;

TEST(ReluRnn, StartsAsTheIrnn) {
  const ReluRnn rnn(3, 4, random::Key(1), DType::f32);
  EXPECT_EQ(rnn.input_weight.shape(), (Shape{4, 3}));
  EXPECT_EQ(rnn.recurrent_weight.dtype(), DType::f32);
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rnn.bias.at(i), 0.0);
    for (std::int64_t j = 0; j < 4; ++j) EXPECT_EQ(rnn.recurrent_weight.at(i * 4 + j), i == j ? 1.0 : 0.0);
  }
  EXPECT_EQ(count_parameters(rnn), 4 * 3 + 4 * 4 + 4);
}

// h_t = relu(x_t W_ih^T + b + h_{t-1} W_hh^T) from h_0 = 0, element by element.
std::vector<double> by_hand(const ReluRnn& rnn, const Tensor& x) {
  const std::int64_t batch = x.dim(0), steps = x.dim(1), in = x.dim(2), hidden = rnn.hidden();
  std::vector<double> h(std::size_t(batch * hidden), 0.0);
  for (std::int64_t t = 0; t < steps; ++t) {
    std::vector<double> next(h.size());
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t o = 0; o < hidden; ++o) {
        double a = rnn.bias.at(o);
        for (std::int64_t i = 0; i < in; ++i) a += x.at((b * steps + t) * in + i) * rnn.input_weight.at(o * in + i);
        for (std::int64_t j = 0; j < hidden; ++j)
          a += h[std::size_t(b * hidden + j)] * rnn.recurrent_weight.at(o * hidden + j);
        next[std::size_t(b * hidden + o)] = std::max(a, 0.0);
      }
    h = next;
  }
  return h;
}

TEST(ReluRnn, FollowsTheRecurrence) {
  ReluRnn rnn(3, 5, random::Key(2));
  rnn.recurrent_weight = random_tensor(Shape{5, 5}, 3, 0.5);
  rnn.bias = random_tensor(Shape{5}, 4, 0.1);
  const Tensor x = random_tensor(Shape{2, 4, 3}, 5);
  const std::vector<double> want = by_hand(rnn, x), got = rnn(x).to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

TEST(ReluRnn, GradientsMatchFiniteDifferences) {
  testing::expect_ad(
      [](std::span<const Tensor> p) {
        ReluRnn rnn(3, 4, random::Key(6));
        rnn.input_weight = p[1];
        rnn.recurrent_weight = p[2];
        rnn.bias = p[3];
        return rnn(p[0]);
      },
      {random_tensor(Shape{2, 3, 3}, 7), random_tensor(Shape{4, 3}, 8, 0.7), random_tensor(Shape{4, 4}, 9, 0.5),
       random_tensor(Shape{4}, 10, 0.3, 0.5)});
}

TEST(ReluRnn, RejectsAnInputThatIsNotBatchStepsFeatures) {
  const ReluRnn rnn(3, 4, random::Key(1));
  EXPECT_ERROR(rnn(Tensor::zeros(Shape{2, 3})), "the input must be (batch, steps >= 1, 3), got shape [2, 3]");
  EXPECT_ERROR(rnn(Tensor::zeros(Shape{2, 5, 4})), "got shape [2, 5, 4]");
  EXPECT_ERROR(ReluRnn(0, 4, random::Key(1)), "in_features and hidden must be >= 1, got 0 and 4");
}

}  // namespace
}  // namespace variate::nn
