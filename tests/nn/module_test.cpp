// Module trees: parameter names, counts, initialisation from a key, gradients through Parameters,
// layer outputs and the errors that name the layer.
#include "variate/nn/module.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/nn/attention.hpp"
#include "variate/nn/layers.hpp"
#include "variate/nn/linear.hpp"
#include "variate/nn/sequential.hpp"

namespace variate::nn {
namespace {

using testing::random_tensor;

Sequential mlp(random::Key key, DType dtype = DType::f64) {
  Sequential net;
  net.push(Linear(784, 200, random::split_at(key, 0), dtype));
  net.push(Activation(ActivationKind::tanh));
  net.push(Linear(200, 200, random::split_at(key, 1), dtype));
  net.push(Activation(ActivationKind::tanh));
  net.push(Linear(200, 50, random::split_at(key, 2), dtype));
  return net;
}

TEST(Module, NamesAndCounts) {
  Sequential net = mlp(random::Key(1));
  const std::vector<NamedTensor> params = named_parameters(net);
  const char* expected[] = {"0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"};
  ASSERT_EQ(params.size(), 6u);
  for (std::size_t i = 0; i < params.size(); ++i) EXPECT_EQ(params[i].name, expected[i]);
  EXPECT_EQ(params[0].value.shape(), (Shape{200, 784}));
  const std::int64_t count = 784 * 200 + 200 + 200 * 200 + 200 + 200 * 50 + 50;
  EXPECT_EQ(count_parameters(net), count);
  EXPECT_EQ(Parameters(net).count(), count);

  MultiHeadSelfAttention attention(8, 2, random::Key(2));
  const std::vector<NamedTensor> attention_params = named_parameters(attention);
  ASSERT_EQ(attention_params.size(), 4u);
  EXPECT_EQ(attention_params[0].name, "in_proj.weight");
  EXPECT_EQ(attention_params[3].name, "out_proj.bias");
}

TEST(Module, InitialisedFromTheKeyAsPyTorch) {
  const Linear a(50, 3, random::Key(7)), b(50, 3, random::Key(7)), c(50, 3, random::Key(8));
  const double bound = 1 / std::sqrt(50.0);
  double largest = 0, sum = 0;
  bool differs = false;
  for (std::int64_t i = 0; i < a.weight.numel(); ++i) {
    EXPECT_EQ(a.weight.at(i), b.weight.at(i));
    differs = differs || a.weight.at(i) != c.weight.at(i);
    largest = std::max(largest, std::abs(a.weight.at(i)));
    sum += a.weight.at(i);
  }
  EXPECT_TRUE(differs);
  EXPECT_LT(largest, bound);
  EXPECT_GT(largest, 0.8 * bound);  // 150 uniform draws: the largest is this close to the bound
  EXPECT_LT(std::abs(sum / 150), 4 * bound / std::sqrt(3.0 * 150));  // 4 standard errors
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_LT(std::abs(a.bias.at(i)), bound);
  EXPECT_EQ(Linear(4, 2, random::Key(1), DType::f32).weight.dtype(), DType::f32);
}

TEST(Module, ValueAndGradThroughParameters) {
  Sequential net = mlp(random::Key(3));
  Parameters params(net);
  const Tensor x = random_tensor(Shape{5, 784}, 4), y = random_tensor(Shape{5, 50}, 5);
  auto loss = [&] { return sum(square(net(x) - y)); };
  std::vector<Tensor> grads(params.size());
  const Tensor value = value_and_grad(params, loss, grads);
  EXPECT_NEAR(value.item(), loss().item(), 1e-12);
  // The same gradients from the functional transform with the parameters passed explicitly.
  const auto& l0 = dynamic_cast<const Linear&>(net[0]);
  const auto& l2 = dynamic_cast<const Linear&>(net[2]);
  const auto& l4 = dynamic_cast<const Linear&>(net[4]);
  auto explicit_loss = [&](const Tensor& w0, const Tensor& b0, const Tensor& w4) {
    return sum(square(linear(tanh(linear(tanh(linear(x, w0, b0)), l2.weight, l2.bias)), w4, l4.bias) - y));
  };
  const auto reference = value_and_grad(explicit_loss, l0.weight, l0.bias, l4.weight);
  EXPECT_NEAR(reference.value.item(), value.item(), 1e-10);
  for (auto [i, j] : {std::pair{0, 0}, {1, 1}, {4, 2}})
    for (std::int64_t k = 0; k < grads[std::size_t(i)].numel(); k += 97)
      ASSERT_NEAR(grads[std::size_t(i)].at(k), reference.grads[std::size_t(j)].at(k), 1e-10);
  // Afterwards the parameters are constants again.
  for (std::size_t i = 0; i < params.size(); ++i) EXPECT_LT(params.value(i).tape_ref().slot, 0);
}

// A loss that throws leaves the parameters constants, and the next evaluation works.
TEST(Module, ValueAndGradAfterAThrowingLoss) {
  Linear layer(3, 2, random::Key(4));
  Parameters params(layer);
  std::vector<Tensor> grads(params.size());
  EXPECT_ERROR(value_and_grad(
                   params,
                   [&] {
                     return layer(Tensor::ones(Shape{1, 4}));
                   },
                   grads),
               "Linear(in_features=3, out_features=2)");
  EXPECT_ERROR(value_and_grad(
                   params,
                   [&] {
                     return layer(Tensor::ones(Shape{2, 3}));
                   },
                   grads),
               "nn::value_and_grad: the loss must be a single-element tensor, got [2, 2]");
  for (std::size_t i = 0; i < params.size(); ++i) EXPECT_LT(params.value(i).tape_ref().slot, 0);
  const Tensor value = value_and_grad(
      params,
      [&] {
        return sum(layer(Tensor::ones(Shape{1, 3})));
      },
      grads);
  EXPECT_NEAR(value.item(), sum(layer(Tensor::ones(Shape{1, 3}))).item(), 1e-15);
  for (std::int64_t k = 0; k < 6; ++k) EXPECT_EQ(grads[0].at(k), 1.0);  // d sum(x W^T) / dW = 1 for x = 1
  EXPECT_ERROR(value_and_grad(
                   params,
                   [&] {
                     return sum(layer(Tensor::ones(Shape{1, 3})));
                   },
                   std::span(grads).first(1)),
               "nn::value_and_grad: 2 parameters but room for 1 gradients");
}

TEST(Module, ErrorsNameTheLayer) {
  Sequential net = mlp(random::Key(1));
  EXPECT_ERROR(net(random_tensor(Shape{2, 784}, 1).view(Shape{2, 28, 28})),
               "Sequential layer 0: Linear(in_features=784, out_features=200): the input's last dim must be 784, "
               "got shape [2, 28, 28]");
  Sequential wrong;
  wrong.push(Linear(4, 3, random::Key(1)));
  wrong.push(Linear(5, 2, random::Key(2)));
  EXPECT_ERROR(wrong(random_tensor(Shape{1, 4}, 2)),
               "Sequential layer 1: Linear(in_features=5, out_features=2): the input's last dim must be 5, got shape "
               "[1, 3]");
  EXPECT_ERROR(Conv2D(3, 4, 3, random::Key(1))(random_tensor(Shape{1, 2, 5, 5}, 3)),
               "Conv2D(in_channels=3, out_channels=4, kernel_size=3, stride=1, padding=0): the input must be (N, 3, H, "
               "W)");
  EXPECT_ERROR(LayerNorm(4)(random_tensor(Shape{2, 3}, 4)), "LayerNorm(dim=4): the input's last dim must be 4");
  EXPECT_ERROR(Embedding(10, 3, random::Key(1))(Tensor::vec({1.0})), "Embedding(num_embeddings=10, embedding_dim=3)");
  EXPECT_ERROR(MultiHeadSelfAttention(6, 4, random::Key(1)), "embed_dim must be a positive multiple of num_heads");
  EXPECT_ERROR(Linear(0, 3, random::Key(1)), "Linear: in_features and out_features must be >= 1");
}

TEST(Layers, Conv2DShapesAndValues) {
  Conv2D conv(2, 3, 3, random::Key(5), {.stride = 2, .padding = 1});
  const Tensor x = random_tensor(Shape{4, 2, 9, 8}, 6);
  const Tensor y = conv(x);
  EXPECT_EQ(y.shape(), (Shape{4, 3, 5, 4}));
  // Output (0, 1, 0, 0): the top-left window, padded by a zero row and column.
  double s = conv.bias.at(1);
  for (int c = 0; c < 2; ++c)
    for (int i = 1; i < 3; ++i)
      for (int j = 1; j < 3; ++j)
        s += x.at((c * 9 + i - 1) * 8 + j - 1) * conv.weight.at(((1 * 2 + c) * 3 + i) * 3 + j);
  EXPECT_NEAR(y.at(1 * 5 * 4), s, 1e-12);
}

TEST(Layers, EmbeddingRowsAndGradient) {
  Embedding emb(5, 3, random::Key(6));
  const Tensor idx = Tensor::from(std::vector<std::int64_t>{4, 0, 4}, Shape{3});
  const Tensor y = emb(idx);
  ASSERT_EQ(y.shape(), (Shape{3, 3}));
  for (int j = 0; j < 3; ++j) EXPECT_EQ(y.at(j), emb.weight.at(4 * 3 + j));
  Parameters params(emb);
  std::vector<Tensor> grads(1);
  value_and_grad(
      params, [&] { return sum(emb(idx)); }, grads);
  // Row 4 is looked up twice, row 0 once, the others never.
  const double expected[] = {1, 0, 0, 0, 2};
  for (int r = 0; r < 5; ++r) EXPECT_EQ(grads[0].at(r * 3), expected[r]);
}

TEST(Layers, LayerNormAndAttentionShapes) {
  LayerNorm norm(6);
  const Tensor x = random_tensor(Shape{2, 4, 6}, 7);
  const Tensor y = norm(x);
  EXPECT_EQ(y.shape(), x.shape());
  double mean = 0;
  for (int j = 0; j < 6; ++j) mean += y.at(j);
  EXPECT_NEAR(mean, 0, 1e-12);
  MultiHeadSelfAttention attention(6, 3, random::Key(8), /*causal=*/true);
  EXPECT_EQ(attention(x).shape(), x.shape());
  EXPECT_EQ(attention(random_tensor(Shape{4, 6}, 9)).shape(), (Shape{4, 6}));
}

// Causal attention: output position t depends on inputs at positions <= t only, and its gradient
// matches finite differences in the input and every parameter.
TEST(Layers, CausalAttention) {
  MultiHeadSelfAttention attention(4, 2, random::Key(9), /*causal=*/true);
  const Tensor x = random_tensor(Shape{5, 4}, 10);
  const Tensor jac = jacobian([&](const Tensor& v) { return attention(v); }, x);  // (5, 4, 5, 4)
  for (int t = 0; t < 5; ++t)
    for (int s = 0; s < 5; ++s) {
      double largest = 0;
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) largest = std::max(largest, std::abs(jac.at(((t * 4 + i) * 5 + s) * 4 + j)));
      if (s > t)
        EXPECT_EQ(largest, 0.0) << "output " << t << " depends on input " << s;
      else
        EXPECT_GT(largest, 0.0) << "output " << t << " ignores input " << s;
    }
  testing::expect_ad(
      [&](std::span<const Tensor> v) {
        MultiHeadSelfAttention a = attention;
        a.in_proj.weight = v[1];
        a.out_proj.bias = v[2];
        return a(v[0]);
      },
      {x, attention.in_proj.weight, attention.out_proj.bias});
}

}  // namespace
}  // namespace variate::nn
