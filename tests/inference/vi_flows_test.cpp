// A flow as a model's prior (issue 22, item 3): a site whose distribution is a
// TransformedDistribution over a masked autoregressive flow has the change-of-variables density in
// the model's log joint, and the ELBO's gradient in the prior flow's parameters (an nn module)
// matches central differences of the estimate at a fixed key.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include "support/ad_check.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/masked_autoregressive_flow.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/transformed_distribution.hpp"
#include "variate/inference/vi_elbo.hpp"
#include "variate/nn/module.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

struct FlowPriorModel {
  std::shared_ptr<dist::MaskedAutoregressiveFlow> flow = std::make_shared<dist::MaskedAutoregressiveFlow>(
      2, random::Key(5), dist::AutoregressiveFlowOptions{.hidden = {4}, .activation = nn::ActivationKind::tanh});
  std::shared_ptr<dist::TransformedDistribution> prior = std::make_shared<dist::TransformedDistribution>(
      std::make_shared<dist::Independent>(std::make_shared<dist::Normal>(Tensor::zeros(Shape{2}), 1.0), 1), flow);
  Tensor data = Tensor::vec({0.7, -1.1});

  // z ~ flow prior, x ~ N(z, 1) observed.
  void operator()() const {
    auto z = RandomVariable(prior, "z");
    tracing::Condition observed({{"x", data}});
    Normal(z, 1.0, "x");
  }
};

TEST(FlowPriors, LogJointHasTheChangeOfVariablesDensity) {
  const FlowPriorModel model;
  const Tensor z = Tensor::vec({0.3, 0.9});
  const double got = tracing::make_log_joint([&] { model(); })({{"z", z}}).item();
  const Tensor x = model.flow->inverse(z);
  double want = -0.5 * (x.at(0) * x.at(0) + x.at(1) * x.at(1)) - std::log(2 * std::numbers::pi) +
                model.flow->inverse_log_det_jacobian(z).item();
  for (std::int64_t i = 0; i < 2; ++i) {
    const double r = model.data.at(i) - z.at(i);
    want += -0.5 * r * r - 0.5 * std::log(2 * std::numbers::pi);
  }
  EXPECT_NEAR(got, want, 1e-12 * (1 + std::abs(want)));
}

TEST(FlowPriors, ElboGradientInThePriorFlowParameters) {
  FlowPriorModel model;
  nn::Parameters params(*model.flow);
  std::vector<Tensor> initial;
  for (std::size_t i = 0; i < params.size(); ++i) initial.push_back(params.value(i).clone());
  const Tensor loc = Tensor::vec({0.2, -0.4}), scale = Tensor::vec({0.8, 0.6});
  auto guide = [&] { Normal(loc, scale, "z"); };
  // The guide does not depend on the prior's parameters, so at a fixed key the estimate is a smooth
  // function of them and its gradient is that of the surrogate.
  testing::expect_ad(
      [&](std::span<const Tensor> p) {
        for (std::size_t i = 0; i < params.size(); ++i) params.value(i) = p[i];
        return elbo([&] { model(); }, guide, random::Key(9), {.particles = 4}).surrogate;
      },
      initial, {.abs = 1e-7, .rel = 1e-6});
  for (std::size_t i = 0; i < params.size(); ++i) params.value(i) = initial[i];
}

}  // namespace
}  // namespace variate::inference
