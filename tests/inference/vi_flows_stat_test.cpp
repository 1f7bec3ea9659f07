// Flow guides (issue 22, item 3): on a banana-shaped 2-D posterior, a guide made of two inverse
// autoregressive flows (alternating orders) over a standard normal, trained with elbo's surrogate
// and nn::Adam, reaches a higher ELBO than a mean-field Gaussian guide trained the same way, by more
// than the two estimates' standard errors allow by chance; so does a stack of RealNVP couplings.
// Both bounds stay below log p(x), computed by quadrature. Fixed keys.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "support/test_seed.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/inverse_autoregressive_flow.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/real_nvp_coupling.hpp"
#include "variate/distributions/transformed_distribution.hpp"
#include "variate/inference/vi_elbo.hpp"
#include "variate/nn/module.hpp"
#include "variate/nn/optim.hpp"
#include "variate/nn/schedule.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

constexpr double kCurvature = 1.0, kWidth = 0.4;

// z ~ N(0, I_2) and a factor that holds z2 near z1^2: the posterior is a banana, which no Gaussian
// fits well (its conditional mean of z2 is quadratic in z1).
double banana_log_factor(double z1, double z2) {
  const double r = (z2 - kCurvature * z1 * z1) / kWidth;
  return -0.5 * r * r;
}

void banana_model() {
  const Tensor z = Normal(0.0, 1.0, "z", {2}).value();
  const Tensor z1 = slice(z, -1, 0, 1), z2 = slice(z, -1, 1, 2);
  factor("banana", sum(square((z2 - square(z1) * kCurvature) * (1.0 / kWidth))) * -0.5);
}

// log p(x) = log of the integral of N(z; 0, I) exp(factor) by the midpoint rule on a grid that
// holds all but a negligible part of the mass (|z1| <= 6, z2 within 8 widths of z1^2 or of 0).
double banana_log_evidence() {
  const double h = 0.01;
  double total = 0;
  for (double z1 = -6 + h / 2; z1 < 6; z1 += h)
    for (double z2 = -4 + h / 2; z2 < 6 * 6 + 4; z2 += h)
      total += std::exp(-0.5 * (z1 * z1 + z2 * z2) + banana_log_factor(z1, z2));
  return std::log(total * h * h / (2 * std::numbers::pi));
}

struct MeanFieldGuide : nn::Module {
  Tensor loc = Tensor::zeros(Shape{2}), log_scale = Tensor::zeros(Shape{2});
  void visit_parameters(const nn::ParameterVisitor& visit) override {
    visit("loc", loc);
    visit("log_scale", log_scale);
  }
  std::string describe() const override { return "MeanFieldGuide"; }
  void operator()() const { Normal(loc, exp(log_scale), "z"); }
};

// A guide z = f_1(f_2(...(eps))), eps ~ N(0, I_2), whose flows are its parameters.
struct FlowGuide : nn::Module {
  std::vector<std::shared_ptr<nn::Module>> flows;
  std::shared_ptr<dist::TransformedDistribution> q;

  template <class F>
  explicit FlowGuide(std::vector<std::shared_ptr<F>> stack) {
    std::vector<BijectorPtr> chain;
    for (const auto& f : stack) {
      flows.push_back(f);
      chain.push_back(f);
    }
    const auto base =
        std::make_shared<dist::Independent>(std::make_shared<dist::Normal>(Tensor::zeros(Shape{2}), 1.0), 1);
    q = std::make_shared<dist::TransformedDistribution>(base, std::make_shared<dist::Chain>(chain));
  }
  void visit_parameters(const nn::ParameterVisitor& visit) override {
    for (std::size_t i = 0; i < flows.size(); ++i) nn::visit_child(std::to_string(i), *flows[i], visit);
  }
  std::string describe() const override { return "FlowGuide"; }
  void operator()() const { RandomVariable(q, "z"); }
};

// Adam on -ELBO with a fresh key per step, the rate decayed by a cosine schedule so that the last
// iterates settle; then the ELBO of the result from many particles.
template <class Guide>
ElboEstimate fit(Guide& guide, int steps, double rate) {
  nn::Parameters params(guide);
  nn::Adam adam(params, nn::cosine_decay(rate, steps));
  std::vector<Tensor> grads(params.size());
  for (int t = 0; t < steps; ++t) {
    nn::value_and_grad(
        params,
        [&] {
          return -elbo(banana_model, [&] { guide(); }, random::Key(variate::testing::test_seed(std::uint64_t(t))),
                       {.particles = 8})
                      .surrogate;
        },
        grads);
    adam.step(grads);
  }
  return elbo(banana_model, [&] { guide(); }, random::Key(variate::testing::test_seed(777)), {.particles = 4000});
}

// The margin: the flow's ELBO must exceed the mean field's by 4 standard errors of the difference
// (independent estimates: the errors add in quadrature), a false-failure probability of 3e-5 for
// guides that were equally good.
void expect_better(const ElboEstimate& flow, const ElboEstimate& mean_field, double log_evidence, const char* what) {
  const double margin = 4 * std::hypot(flow.standard_error, mean_field.standard_error);
  EXPECT_GT(flow.value - mean_field.value, margin)
      << what << " ELBO " << flow.value << " +- " << flow.standard_error << ", mean field " << mean_field.value
      << " +- " << mean_field.standard_error << ", log p(x) " << log_evidence;
  // A bound: neither may exceed log p(x) by more than its noise.
  EXPECT_LT(flow.value, log_evidence + 4 * flow.standard_error) << what;
  EXPECT_LT(mean_field.value, log_evidence + 4 * mean_field.standard_error);
  std::printf("%s: ELBO %.4f +- %.4f, mean field %.4f +- %.4f, log p(x) %.4f\n", what, flow.value, flow.standard_error,
              mean_field.value, mean_field.standard_error, log_evidence);
}

TEST(FlowGuides, BeatAMeanFieldGaussianOnABanana) {
  const double log_evidence = banana_log_evidence();
  const int steps = 1000;

  MeanFieldGuide mean_field;
  const ElboEstimate mf = fit(mean_field, steps, 0.05);

  const dist::AutoregressiveFlowOptions natural{.hidden = {16}, .activation = nn::ActivationKind::tanh};
  dist::AutoregressiveFlowOptions reversed = natural;
  reversed.order = nn::made_reversed_degrees(2);
  FlowGuide iaf(std::vector<std::shared_ptr<dist::InverseAutoregressiveFlow>>{
      std::make_shared<dist::InverseAutoregressiveFlow>(2, random::Key(1), reversed),
      std::make_shared<dist::InverseAutoregressiveFlow>(2, random::Key(2), natural)});
  // The IAF trains slower than the couplings: after 1000 steps its lead over mean field fell short of
  // the margin in 4 of 64 runs of scripts/seed-survey; after 2000 its ELBO was -1.52 to -1.36 over
  // 64 runs, and its smallest lead 0.14 where the margin asked 0.06.
  expect_better(fit(iaf, 2 * steps, 0.01), mf, log_evidence, "IAF");

  const dist::RealNvpOptions first{.keep = {true, false}, .hidden = {16}, .activation = nn::ActivationKind::tanh};
  dist::RealNvpOptions second = first;
  second.keep = {false, true};
  FlowGuide nvp(std::vector<std::shared_ptr<dist::RealNvpCoupling>>{
      std::make_shared<dist::RealNvpCoupling>(2, random::Key(3), first),
      std::make_shared<dist::RealNvpCoupling>(2, random::Key(4), second),
      std::make_shared<dist::RealNvpCoupling>(2, random::Key(5), first)});
  expect_better(fit(nvp, steps, 0.01), mf, log_evidence, "RealNVP");
}

}  // namespace
}  // namespace variate::inference
