// The neural-network ops of autodiff/nn_ops.hpp: values by hand, gradients against finite
// differences through the generic checker, dtypes kept.
#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/transforms.hpp"

namespace variate {
namespace {

using testing::expect_ad;
using testing::random_tensor;

struct AdCase {
  const char* name;
  testing::TensorFn f;
  std::vector<Tensor> inputs;
};

std::vector<AdCase> cases() {
  const Tensor x = random_tensor(Shape{3, 4}, 1, 2.0);
  const Tensor w = random_tensor(Shape{5, 4}, 2), b = random_tensor(Shape{5}, 3);
  const Tensor x3 = random_tensor(Shape{2, 3, 4}, 4);
  using S = std::span<const Tensor>;
  return {
      {"relu", [](S v) { return relu(v[0]); }, {x}},
      {"elu", [](S v) { return elu(v[0]); }, {x}},
      {"elu_alpha", [](S v) { return elu(v[0], 0.3); }, {x}},
      {"gelu", [](S v) { return gelu(v[0]); }, {x}},
      {"gelu_tails", [](S v) { return gelu(v[0] * 4.0); }, {x}},
      {"linear", [](S v) { return linear(v[0], v[1], v[2]); }, {x, w, b}},
      {"linear_no_bias", [](S v) { return linear(v[0], v[1]); }, {x, w}},
      {"linear_batched", [](S v) { return linear(v[0], v[1], v[2]); }, {x3, w, b}},
      {"linear_vector", [](S v) { return linear(v[0], v[1], v[2]); }, {random_tensor(Shape{4}, 5), w, b}},
      {"throws_linear_in_features", [](S v) { return linear(v[0], v[1]); }, {x, random_tensor(Shape{5, 3}, 6)}},
  };
}

class NnOpsAd : public ::testing::TestWithParam<AdCase> {};

TEST_P(NnOpsAd, ValueGradientAndThrowing) {
  const AdCase& c = GetParam();
  expect_ad(c.f, c.inputs);
}

INSTANTIATE_TEST_SUITE_P(AllOps, NnOpsAd, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<AdCase>& info) { return std::string(info.param.name); });

TEST(NnOps, ValuesByHand) {
  const Tensor x = Tensor::vec({-2.0, -0.5, 0.0, 1.5});
  const Tensor r = relu(x), e = elu(x), g = gelu(x);
  const double expected_relu[] = {0, 0, 0, 1.5};
  const double expected_elu[] = {std::expm1(-2.0), std::expm1(-0.5), 0, 1.5};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.at(i), expected_relu[i]);
    EXPECT_NEAR(e.at(i), expected_elu[i], 1e-15);
    const double xi = x.at(i);
    EXPECT_NEAR(g.at(i), xi * 0.5 * std::erfc(-xi / std::sqrt(2.0)), 1e-15);
  }
  EXPECT_NEAR(gelu(Tensor::scalar(1.0)).item(), 0.8413447460685429, 1e-15);  // Phi(1)
  // relu's derivative at 0 is 0, as in PyTorch.
  EXPECT_EQ(grad([](const Tensor& v) { return sum(relu(v)); }, Tensor::vec({0.0, 2.0})).at(0), 0.0);
}

// relu keeps its mask as bits, 53 to a word: every unit's gradient must come back, for sizes on
// both sides of the word boundaries, for any shape, and when every unit of a word is on.
TEST(NnOps, ReluGradientIsItsMaskAcrossWords) {
  for (std::int64_t n : {1, 52, 53, 54, 106, 159, 200}) {
    const Tensor x = random_tensor(Shape{n}, unsigned(n));
    const Tensor g = random_tensor(Shape{n}, unsigned(n) + 1000);
    const Tensor dx = grad([&](const Tensor& v) { return sum(relu(v) * g); }, x);
    for (std::int64_t i = 0; i < n; ++i)
      EXPECT_EQ(dx.at(i), x.at(i) > 0 ? g.at(i) : 0.0) << "n " << n << ", unit " << i;
  }
  const Tensor on =
      prim::add(prim::mul(random_tensor(Shape{3, 7, 6}, 5), random_tensor(Shape{3, 7, 6}, 5)), Tensor::scalar(0.25));
  const Tensor dx = grad([](const Tensor& v) { return sum(relu(v)); }, on);
  ASSERT_EQ(dx.shape(), on.shape());
  for (std::int64_t i = 0; i < on.numel(); ++i) EXPECT_EQ(dx.at(i), 1.0) << i;
}

TEST(NnOps, LinearByHand) {
  const Tensor x = Tensor::from(std::vector<double>{1, 2, 3, 4}, Shape{2, 2});
  const Tensor w = Tensor::from(std::vector<double>{1, 0, 1, 1, 0, -1}, Shape{3, 2});
  const Tensor y = linear(x, w, Tensor::vec({0.5, 0, 1}));
  const double expected[] = {1.5, 3, -1, 3.5, 7, -3};
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y.at(i), expected[i]);
  EXPECT_ERROR(linear(x, w, Tensor::vec({1.0, 2.0})), "linear: the bias must have shape [3], got [2]");
}

TEST(NnOps, KeepF32) {
  const Tensor x = prim::cast(Tensor::vec({-1.0, 0.5, 2.0}), DType::f32);
  const Tensor w = prim::cast(Tensor::from(std::vector<double>{1, 2, 3}, Shape{1, 3}), DType::f32);
  for (const Tensor& y : {relu(x), elu(x), gelu(x), linear(x, w)}) EXPECT_EQ(y.dtype(), DType::f32);
  auto [value, grads] = value_and_grad([](const Tensor& v) { return sum(gelu(relu(v)) + elu(v)); }, x);
  EXPECT_EQ(value.dtype(), DType::f32);
  EXPECT_EQ(grads[0].dtype(), DType::f32);
}

}  // namespace
}  // namespace variate
