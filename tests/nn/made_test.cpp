// MADE: degrees, masks by hand, and the autoregressive property of whole networks (the Jacobian of
// the outputs in the inputs is strictly triangular in the degree ordering), with and without a
// context that every output may depend on.
#include "variate/nn/made.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"

namespace variate::nn {
namespace {

TEST(Made, DegreesAndMasksByHand) {
  EXPECT_EQ(made_input_degrees(3), (Degrees{1, 2, 3}));
  EXPECT_EQ(made_reversed_degrees(3), (Degrees{3, 2, 1}));
  EXPECT_EQ(made_hidden_degrees(3, 5), (Degrees{1, 2, 1, 2, 1}));
  EXPECT_EQ(made_hidden_degrees(1, 2), (Degrees{1, 1}));
  const Tensor hidden = made_mask({1, 2, 3}, {1, 2}, false);
  const double expected_hidden[] = {1, 0, 0, 1, 1, 0};  // unit of degree k sees inputs 1..k
  ASSERT_EQ(hidden.shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(hidden.at(i), expected_hidden[i]);
  const Tensor output = made_mask({1, 2}, {1, 2, 3}, true);
  const double expected_output[] = {0, 0, 1, 0, 1, 1};  // output d sees hidden units of degree < d
  for (int i = 0; i < 6; ++i) EXPECT_EQ(output.at(i), expected_output[i]);
}

// J[o, i] = d out_o / d x_i must vanish unless degree(i) < degree(o), and (with enough hidden
// units) be nonzero when it does, for every output parameter block.
void expect_autoregressive(const Made& made, std::int64_t outputs_per_input) {
  const Degrees& deg = made.input_degrees();
  const auto d = std::int64_t(deg.size());
  const Tensor x = testing::random_tensor(Shape{d}, 3);
  const Tensor jac = jacobian([&](const Tensor& v) { return made(v); }, x);
  ASSERT_EQ(jac.shape(), (Shape{outputs_per_input * d, d}));
  for (std::int64_t o = 0; o < outputs_per_input * d; ++o)
    for (std::int64_t i = 0; i < d; ++i) {
      const double entry = jac.at(o * d + i);
      if (deg[std::size_t(i)] >= deg[std::size_t(o % d)])
        EXPECT_EQ(entry, 0.0) << "output " << o << " depends on input " << i;
      else
        EXPECT_NE(entry, 0.0) << "output " << o << " ignores input " << i;
    }
}

TEST(Made, JacobianIsStrictlyTriangularInTheOrdering) {
  expect_autoregressive(Made(5, {16, 16}, random::Key(1)), 1);
  expect_autoregressive(
      Made({3, 1, 4, 2}, {12}, random::Key(2), {.outputs_per_input = 2, .activation = ActivationKind::tanh}), 2);
  expect_autoregressive(Made(3, {}, random::Key(3)), 1);  // no hidden layer: a masked linear map
}

TEST(Made, NamesGradientsAndErrors) {
  Made made(4, {8}, random::Key(4), {.outputs_per_input = 2, .activation = ActivationKind::elu});
  const std::vector<NamedTensor> params = named_parameters(made);
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0].name, "layers.0.weight");
  EXPECT_EQ(params[3].name, "layers.1.bias");
  EXPECT_EQ(made(testing::random_tensor(Shape{3, 4}, 5)).shape(), (Shape{3, 8}));
  testing::expect_ad(
      [&](std::span<const Tensor> v) {
        MaskedLinear layer(made_mask({1, 2, 3}, {1, 2, 1}, false), random::Key(6));
        layer.linear.weight = v[1];
        return layer(v[0]);
      },
      {testing::random_tensor(Shape{2, 3}, 7), testing::random_tensor(Shape{3, 3}, 8)});
  EXPECT_ERROR(made(testing::random_tensor(Shape{3}, 9)),
               "Made(inputs=4, widths=[8, 8]): the input's last dim must be 4");
  EXPECT_ERROR(Made({1, 1, 3}, {4}, random::Key(1), {}), "Made: the input degrees must be a permutation of 1..3");
}

// With a context: for any fixed context the Jacobian in x keeps the MADE's structure, every output
// (the first input's too) depends on every context entry, and a context broadcasts over extra
// batch axes of x.
TEST(Made, AContextKeepsTheOrderingAndReachesEveryOutput) {
  const Made made({2, 4, 1, 3}, {8, 8}, random::Key(10),
                  {.outputs_per_input = 2, .activation = ActivationKind::tanh, .context = 3});
  const Degrees& deg = made.input_degrees();
  for (unsigned seed : {11u, 12u}) {
    const Tensor h = testing::random_tensor(Shape{3}, seed);
    const Tensor x = testing::random_tensor(Shape{4}, seed + 10);
    const Tensor jac = jacobian([&](const Tensor& v) { return made.forward(v, h); }, x);
    ASSERT_EQ(jac.shape(), (Shape{8, 4}));
    for (std::int64_t o = 0; o < 8; ++o)
      for (std::int64_t i = 0; i < 4; ++i) {
        const double entry = jac.at(o * 4 + i);
        if (deg[std::size_t(i)] >= deg[std::size_t(o % 4)])
          EXPECT_EQ(entry, 0.0) << "output " << o << " depends on input " << i;
        else
          EXPECT_NE(entry, 0.0) << "output " << o << " ignores input " << i;
      }
    const Tensor context_jac = jacobian([&](const Tensor& c) { return made.forward(x, c); }, h);
    ASSERT_EQ(context_jac.shape(), (Shape{8, 3}));
    for (std::int64_t i = 0; i < context_jac.numel(); ++i) EXPECT_NE(context_jac.at(i), 0.0) << "entry " << i;
  }
  // Draws (2, batch 3, D) at one context per batch row: each draw as if alone with its row's context.
  const Tensor xs = testing::random_tensor(Shape{2, 3, 4}, 13), hs = testing::random_tensor(Shape{3, 3}, 14);
  const Tensor together = made.forward(xs, hs);
  ASSERT_EQ(together.shape(), (Shape{2, 3, 8}));
  for (std::int64_t p = 0; p < 2; ++p)
    for (std::int64_t b = 0; b < 3; ++b) {
      const Tensor alone =
          made.forward(squeeze(slice(slice(xs, 0, p, p + 1), 1, b, b + 1), 1), squeeze(slice(hs, 0, b, b + 1), 0));
      for (std::int64_t k = 0; k < 8; ++k) EXPECT_NEAR(together.at((p * 3 + b) * 8 + k), alone.at(k), 1e-14);
    }
}

TEST(Made, ContextGradientsNamesAndErrors) {
  Made made(3, {6, 5}, random::Key(15), {.outputs_per_input = 2, .activation = ActivationKind::tanh, .context = 2});
  const std::vector<NamedTensor> params = named_parameters(made);
  ASSERT_EQ(params.size(), 9u);  // three masked layers' weights and biases, then three context weights
  EXPECT_EQ(params[6].name, "context.0.weight");
  EXPECT_EQ(params[6].value.shape(), (Shape{6, 2}));
  EXPECT_EQ(params[8].name, "context.2.weight");
  EXPECT_EQ(params[8].value.shape(), (Shape{6, 2}));
  EXPECT_EQ(made.describe(), "Made(inputs=3, widths=[6, 5, 6], context=2)");
  // The gradients in x, the context and every weight, against central differences.
  std::vector<Tensor> inputs{testing::random_tensor(Shape{4, 3}, 16), testing::random_tensor(Shape{4, 2}, 17)};
  for (const NamedTensor& p : params) inputs.push_back(p.value.clone());
  nn::Parameters slots(made);
  testing::expect_ad(
      [&](std::span<const Tensor> v) {
        for (std::size_t i = 0; i < slots.size(); ++i) slots.value(i) = v[i + 2];
        return made.forward(v[0], v[1]);
      },
      inputs);
  EXPECT_ERROR(made(testing::random_tensor(Shape{3}, 18)), "takes a context of size 2; call forward(x, context)");
  EXPECT_ERROR(made.forward(testing::random_tensor(Shape{3}, 18), testing::random_tensor(Shape{3}, 19)),
               "Made(inputs=3, widths=[6, 5, 6], context=2): the context's last dim must be 2, got shape [3]");
  EXPECT_ERROR(Made(3, {6}, random::Key(1)).forward(testing::random_tensor(Shape{3}, 18), Tensor::zeros(Shape{2})),
               "takes no context; call forward(x)");
  // Without hidden layers the context still reaches every output.
  const Made linear(3, {}, random::Key(20), {.context = 2});
  const Tensor context_jac =
      jacobian([&](const Tensor& c) { return linear.forward(Tensor::zeros(Shape{3}), c); }, Tensor::ones(Shape{2}));
  for (std::int64_t i = 0; i < context_jac.numel(); ++i) EXPECT_NE(context_jac.at(i), 0.0) << "entry " << i;
}

}  // namespace
}  // namespace variate::nn
