// Inverse autoregressive flow with a context (ConditionalInverseAutoregressiveFlow, Kingma et al.
// 2016, section 4): at any fixed context, a bijector whose Jacobian is triangular in its
// autoregressive order with log|det| the log |det| of the autodiff Jacobian, inverted to rounding;
// the gradients of a flow density in the context and the weights against central differences; the
// forget-gate start near the identity; and errors that name the flow.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/conditional_inverse_autoregressive_flow.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/transformed_distribution.hpp"

namespace variate::dist {
namespace {

using testing::random_tensor;
constexpr std::int64_t kDims = 4, kContext = 3;

std::shared_ptr<ConditionalInverseAutoregressiveFlow> make_flow(nn::Degrees order, random::Key key,
                                                                DType dtype = DType::f64) {
  return std::make_shared<ConditionalInverseAutoregressiveFlow>(
      kDims, kContext, key,
      ConditionalIafOptions{
          .hidden = {8, 8}, .order = std::move(order), .activation = nn::ActivationKind::tanh, .dtype = dtype});
}

// Weights scaled up, so that the gates sit well away from their start and the checks see a flow far
// from volume-preserving.
std::shared_ptr<ConditionalInverseAutoregressiveFlow> trained_looking_flow(nn::Degrees order, random::Key key) {
  auto flow = make_flow(std::move(order), key);
  nn::Parameters params(*flow);
  for (std::size_t i = 0; i < params.size(); ++i) params.value(i) = params.value(i) * 3.0;
  return flow;
}

double log_abs_det(const Tensor& jac) { return 0.5 * logdet_spd(matmul(jac, jac, /*transpose_a=*/true)).item(); }

TEST(ConditionalIaf, JacobianIsTriangularAtEveryContextWithTheLogDetOfItsDiagonal) {
  const nn::Degrees order{3, 1, 4, 2};
  const auto flow = trained_looking_flow(order, random::Key(1));
  for (unsigned seed : {2u, 3u}) {
    const Tensor h = random_tensor(Shape{kContext}, seed);
    const BijectorPtr at_h = flow->given(h);
    const Tensor x = random_tensor(Shape{kDims}, seed + 10, 1.2);
    const Tensor jac = jacobian([&](const Tensor& v) { return at_h->forward(v); }, x);
    const Tensor inverse_jac = jacobian([&](const Tensor& v) { return at_h->inverse(v); }, at_h->forward(x));
    for (const Tensor& j : {jac, inverse_jac})
      for (std::int64_t o = 0; o < kDims; ++o)
        for (std::int64_t i = 0; i < kDims; ++i) {
          const double entry = j.at(o * kDims + i);
          if (order[std::size_t(i)] <= order[std::size_t(o)])
            EXPECT_NE(entry, 0.0) << "d out " << o << " / d in " << i;
          else
            EXPECT_EQ(entry, 0.0) << "d out " << o << " / d in " << i;
        }
    const double expected = log_abs_det(jac);
    EXPECT_LT(expected, -0.2) << "a flow this close to volume-preserving tests little";
    EXPECT_NEAR(at_h->forward_log_det_jacobian(x).item(), expected, 1e-12 * (1 + std::abs(expected)));
    EXPECT_NEAR(at_h->inverse_log_det_jacobian(at_h->forward(x)).item(), -expected, 1e-11 * (1 + std::abs(expected)));
    EXPECT_NEAR(log_abs_det(inverse_jac), -expected, 1e-10 * (1 + std::abs(expected)));
    // Each diagonal entry is a gate in (0, 1): the flow contracts.
    for (std::int64_t d = 0; d < kDims; ++d) {
      EXPECT_GT(jac.at(d * kDims + d), 0.0);
      EXPECT_LT(jac.at(d * kDims + d), 1.0);
    }
  }
}

// Draws (particles, batch, D) at one context per batch row, mapped there and back.
TEST(ConditionalIaf, InverseOfForwardIsTheInputForAFixedContext) {
  const auto flow = trained_looking_flow({}, random::Key(4));
  const Tensor h = random_tensor(Shape{5, kContext}, 5);
  const BijectorPtr at_h = flow->given(h);
  const Tensor x = random_tensor(Shape{2, 5, kDims}, 6, 1.5);
  const Tensor y = at_h->forward(x);
  ASSERT_EQ(y.shape(), x.shape());
  const Tensor back = at_h->inverse(y), again = at_h->forward(at_h->inverse(x));
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    EXPECT_NEAR(back.at(i), x.at(i), 1e-12 * (1 + std::abs(x.at(i)))) << "inverse(forward(x)), element " << i;
    EXPECT_NEAR(again.at(i), x.at(i), 1e-12 * (1 + std::abs(x.at(i)))) << "forward(inverse(x)), element " << i;
  }
  EXPECT_EQ(at_h->forward_log_det_jacobian(x).shape(), Shape({2, 5}));
  // Another context is another map.
  const Tensor elsewhere = flow->given(random_tensor(Shape{5, kContext}, 7))->forward(x);
  EXPECT_GT(max(abs(elsewhere - y)).item(), 1e-3);
}

// A guide's density: a stack of two flows (natural and reversed order) over a Gaussian, at the
// context h; its gradient in h and in every weight matches central differences.
TEST(ConditionalIaf, DensityGradientsInTheContextAndTheWeights) {
  const auto a = trained_looking_flow({}, random::Key(8));
  const auto b = trained_looking_flow(nn::made_reversed_degrees(kDims), random::Key(9));
  nn::Parameters pa(*a), pb(*b);
  std::vector<Tensor*> slots;
  for (nn::Parameters* p : {&pa, &pb})
    for (std::size_t i = 0; i < p->size(); ++i) slots.push_back(&p->value(i));
  std::vector<Tensor> inputs{random_tensor(Shape{3, kContext}, 10)};
  for (Tensor* slot : slots) inputs.push_back(slot->clone());
  const auto base = std::make_shared<Independent>(std::make_shared<Normal>(Tensor::zeros(Shape{kDims}), 1.0), 1);
  const Tensor z = random_tensor(Shape{3, kDims}, 11);
  testing::expect_ad(
      [&](std::span<const Tensor> v) {
        for (std::size_t i = 0; i < slots.size(); ++i) *slots[i] = v[i + 1];
        const TransformedDistribution q(
            base, std::make_shared<Chain>(std::vector<BijectorPtr>{b->given(v[0]), a->given(v[0])}));
        const int last[] = {-1};
        return q.log_prob(z) + sum(q.bijector()->forward(z), last);
      },
      inputs, {.abs = 1e-7, .rel = 1e-6});
}

TEST(ConditionalIaf, StartsNearTheIdentityAndKeepsF32) {
  // An untrained gate is sigmoid(raw + 2) with a small raw output: near 0.88 for every coordinate.
  const auto flow = make_flow({}, random::Key(12));
  const Tensor x = random_tensor(Shape{6, kDims}, 13), h = random_tensor(Shape{6, kContext}, 14);
  const Tensor mean_log_gate = flow->forward_log_det_jacobian(x, h) / double(kDims);
  for (std::int64_t i = 0; i < 6; ++i) EXPECT_NEAR(mean_log_gate.at(i), std::log(1 / (1 + std::exp(-2.0))), 0.5);
  const auto f32 = make_flow({}, random::Key(12), DType::f32);
  const Tensor y = f32->forward(cast(x, DType::f32), cast(h, DType::f32));
  EXPECT_EQ(y.dtype(), DType::f32);
  const Tensor back = f32->inverse(y, cast(h, DType::f32));
  for (std::int64_t i = 0; i < x.numel(); ++i) EXPECT_NEAR(back.at(i), x.at(i), 1e-5 * (1 + std::abs(x.at(i))));
}

TEST(ConditionalIaf, NamesParametersAndErrors) {
  const auto flow = make_flow({}, random::Key(15));
  const auto names = nn::named_parameters(*flow);
  ASSERT_EQ(names.size(), 9u);
  EXPECT_EQ(names[6].name, "made.context.0.weight");
  EXPECT_EQ(flow->describe(), "ConditionalInverseAutoregressiveFlow(dims=4, context=3, hidden=[8, 8])");
  const std::string name = "ConditionalInverseAutoregressiveFlow(dims=4, context=3, hidden=[8, 8])";
  EXPECT_ERROR(flow->forward(Tensor::zeros(Shape{2, 3}), Tensor::zeros(Shape{2, 3})),
               name + ".forward: expects events of size 4 along the last axis, got shape [2, 3]");
  EXPECT_ERROR(flow->given(Tensor::zeros(Shape{2, 4})),
               name + ".given: expects contexts of size 3 along the last axis, got shape [2, 4]");
  const ConditionalInverseAutoregressiveFlow alone(kDims, kContext, random::Key(16));
  EXPECT_ERROR(alone.given(Tensor::zeros(Shape{3})), "given() needs the flow held by a std::shared_ptr");
  EXPECT_ERROR(ConditionalInverseAutoregressiveFlow(kDims, 0, random::Key(17)),
               "ConditionalInverseAutoregressiveFlow: the context size must be >= 1, got 0");
}

}  // namespace
}  // namespace variate::dist
