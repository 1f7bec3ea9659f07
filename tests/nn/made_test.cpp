// MADE: degrees, masks by hand, and the autoregressive property of whole networks (the Jacobian of
// the outputs in the inputs is strictly triangular in the degree ordering).
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

}  // namespace
}  // namespace variate::nn
