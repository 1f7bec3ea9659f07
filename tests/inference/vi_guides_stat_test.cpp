// A user-written guide with control flow (Edward2's Figure 2): a coin flip picks one of two
// sub-guides. Trained with elbo's surrogate (score-function term for the coin, pathwise gradients
// for the chosen sub-guide), it must reach the exact posterior, which its family contains.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support/test_seed.hpp"
#include "variate/inference/vi_elbo.hpp"
#include "variate/nn/module.hpp"
#include "variate/nn/optim.hpp"
#include "variate/nn/schedule.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

constexpr double kX = 1.0;

// c ~ Bernoulli(1/2), z ~ N(4c - 2, 1), x ~ N(z, 1) observed at kX: a two-component mixture.
void mixture_model() {
  auto c = Bernoulli(Probs{0.5}, "c");
  auto z = Normal(c * 4.0 - 2.0, 1.0, "z");
  tracing::Condition data({{"x", kX}});
  Normal(z, 1.0, "x");
}

struct CoinFlipGuide : nn::Module {
  Tensor logit = 0.0, loc1 = 0.0, log_scale1 = 0.0, loc0 = 0.0, log_scale0 = 0.0;
  void visit_parameters(const nn::ParameterVisitor& visit) override {
    visit("logit", logit);
    visit("loc1", loc1);
    visit("log_scale1", log_scale1);
    visit("loc0", loc0);
    visit("log_scale0", log_scale0);
  }
  std::string describe() const override { return "CoinFlipGuide"; }
  void operator()() const {
    auto c = Bernoulli(Logits{logit}, "c");
    if (c.value().item() > 0.5)
      Normal(loc1, exp(log_scale1), "z");
    else
      Normal(loc0, exp(log_scale0), "z");
  }
};

TEST(Guides, ACoinFlipBetweenTwoSubGuidesReachesTheExactPosterior) {
  // x | c ~ N(4c - 2, 2); p(c = 1 | x) and z | c, x ~ N((4c - 2 + x) / 2, 1/2) in closed form.
  auto log_normal = [](double x, double mu, double var) {
    return -0.5 * std::log(2.0 * std::numbers::pi * var) - 0.5 * (x - mu) * (x - mu) / var;
  };
  const double l1 = std::log(0.5) + log_normal(kX, 2.0, 2.0), l0 = std::log(0.5) + log_normal(kX, -2.0, 2.0);
  const double evidence =
      std::max(l0, l1) + std::log(std::exp(l0 - std::max(l0, l1)) + std::exp(l1 - std::max(l0, l1)));
  const double posterior_c1 = std::exp(l1 - evidence);

  CoinFlipGuide guide;
  nn::Parameters params(guide);
  const int steps = 1500;
  nn::Adam adam(params, nn::cosine_decay(0.05, steps));
  std::vector<Tensor> grads(params.size());
  for (int t = 0; t < steps; ++t) {
    nn::value_and_grad(
        params,
        [&] {
          return -elbo(mixture_model, [&] { guide(); }, random::Key(variate::testing::test_seed(std::uint64_t(t))),
                       {.particles = 8})
                      .surrogate;
        },
        grads);
    adam.step(grads);
  }

  const double q_c1 = 1.0 / (1.0 + std::exp(-guide.logit.item()));
  EXPECT_NEAR(q_c1, posterior_c1, 0.05);
  EXPECT_NEAR(guide.loc1.item(), (2.0 + kX) / 2, 0.1);
  EXPECT_NEAR(std::exp(guide.log_scale1.item()), std::sqrt(0.5), 0.1);
  // The ELBO equals log p(x) at the exact posterior; the trained guide gets within 0.05 nats.
  const ElboEstimate e =
      elbo(mixture_model, [&] { guide(); }, random::Key(variate::testing::test_seed(99999)), {.particles = 20000});
  EXPECT_LT(e.value, evidence + 4 * e.standard_error);
  EXPECT_GT(e.value, evidence - 0.05 - 4 * e.standard_error) << "log p(x) " << evidence;
}

}  // namespace
}  // namespace variate::inference
