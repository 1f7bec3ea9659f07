// Optimizers: the first steps against values worked out from the papers' update rules, Adam on a
// convex quadratic, AdamW's decoupled decay, gradient clipping, and state that restores bit for bit.
#include "variate/nn/optim.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "nn/point_module.hpp"
#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/nn/checkpoint.hpp"

namespace variate::nn {
namespace {

using testing::Point;
using variate::testing::ScratchDir;

// Takes one step with gradient g (a vector) and returns the parameter afterwards.
std::vector<double> step_with(Optimizer& opt, Point& point, std::vector<double> g) {
  const Tensor grad = Tensor::from(g);
  opt.step(std::span<const Tensor>(&grad, 1));
  return point.x.to_vector<double>();
}

TEST(Sgd, MomentumSteps) {
  Point point(Tensor::vec({1.0, -2.0}));
  Parameters params(point);
  Sgd sgd(params, 0.1, {.momentum = 0.9});
  // v1 = g = (0.5, 1); p1 = p0 - 0.1 v1. v2 = 0.9 v1 + g = (0.95, 1.9); p2 = p1 - 0.1 v2.
  std::vector<double> p = step_with(sgd, point, {0.5, 1.0});
  EXPECT_NEAR(p[0], 0.95, 1e-15);
  EXPECT_NEAR(p[1], -2.1, 1e-15);
  p = step_with(sgd, point, {0.5, 1.0});
  EXPECT_NEAR(p[0], 0.855, 1e-15);
  EXPECT_NEAR(p[1], -2.29, 1e-15);
  EXPECT_EQ(sgd.steps_taken(), 2);
}

TEST(Sgd, NesterovAndWeightDecay) {
  Point a(Tensor::vec({1.0, -2.0}));
  Parameters pa(a);
  Sgd nesterov(pa, 0.1, {.momentum = 0.9, .nesterov = true});
  // v1 = g; p1 = p0 - 0.1 (g + 0.9 v1) = p0 - 0.19 g.
  std::vector<double> p = step_with(nesterov, a, {0.5, 1.0});
  EXPECT_NEAR(p[0], 0.905, 1e-15);
  EXPECT_NEAR(p[1], -2.19, 1e-15);

  Point b(Tensor::vec({1.0, -2.0}));
  Parameters pb(b);
  Sgd decayed(pb, 0.1, {.weight_decay = 0.1});
  // The gradient becomes g + 0.1 p = (0.6, 0.8).
  p = step_with(decayed, b, {0.5, 1.0});
  EXPECT_NEAR(p[0], 0.94, 1e-15);
  EXPECT_NEAR(p[1], -2.08, 1e-15);

  EXPECT_ERROR(Sgd(pb, 0.1, {.nesterov = true}), "nn::Sgd: Nesterov momentum needs momentum > 0");
  EXPECT_ERROR(Sgd(pb, 0.1, {.momentum = 1.0}), "momentum must be in [0, 1), got 1");
}

TEST(Adam, FirstTwoStepsAsKingmaAndBa) {
  Point point(Tensor::vec({1.0, -2.0}));
  Parameters params(point);
  Adam adam(params, 0.1);
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  const double g1[2] = {0.5, 1.0}, g2[2] = {-0.5, 2.0};
  double expected[2] = {1.0, -2.0};
  std::vector<double> p = step_with(adam, point, {g1[0], g1[1]});
  for (int k = 0; k < 2; ++k) {
    const double m = (1 - b1) * g1[k], v = (1 - b2) * g1[k] * g1[k];
    expected[k] -= 0.1 * (m / (1 - b1)) / (std::sqrt(v / (1 - b2)) + eps);
    EXPECT_NEAR(p[k], expected[k], 1e-15);
  }
  EXPECT_NEAR(p[0], 0.9, 1e-7);  // the first step moves each coordinate by lr against its sign
  p = step_with(adam, point, {g2[0], g2[1]});
  for (int k = 0; k < 2; ++k) {
    const double m = b1 * (1 - b1) * g1[k] + (1 - b1) * g2[k];
    const double v = b2 * (1 - b2) * g1[k] * g1[k] + (1 - b2) * g2[k] * g2[k];
    expected[k] -= 0.1 * (m / (1 - b1 * b1)) / (std::sqrt(v / (1 - b2 * b2)) + eps);
    EXPECT_NEAR(p[k], expected[k], 1e-14);
  }
}

TEST(Adam, ReachesTheOptimumOfAConvexQuadratic) {
  // f(x) = sum_k a_k (x_k - c_k)^2 with curvatures from 1 to 100; the optimum is c.
  Point point(Tensor::vec({3.0, -4.0, 0.5}));
  Parameters params(point);
  const Tensor a = Tensor::vec({1.0, 10.0, 100.0}), c = Tensor::vec({-1.0, 2.0, 0.25});
  Adam adam(params, cosine_decay(0.1, 3000));
  std::vector<Tensor> grads(1);
  for (int t = 0; t < 3000; ++t) {
    value_and_grad(
        params, [&] { return sum(a * square(point.x - c)); }, grads);
    adam.step(grads);
  }
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(point.x.at(k), c.at(k), 1e-6) << "coordinate " << k;
}

TEST(AdamW, DecayIsDecoupledFromTheMoments) {
  const AdamOptions options{.weight_decay = 0.1};
  Point a(Tensor::vec({1.0, -2.0})), b(Tensor::vec({1.0, -2.0}));
  Parameters pa(a), pb(b);
  AdamW adamw(pa, 0.1, options);
  Adam adam_l2(pb, 0.1, options);
  // AdamW: p (1 - lr wd) - lr g/(|g| + eps). Adam with L2: the step is lr against the sign of
  // g + wd p, whatever the decay's size.
  const std::vector<double> w = step_with(adamw, a, {0.5, 1.0});
  EXPECT_NEAR(w[0], 1.0 * 0.99 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-15);
  EXPECT_NEAR(w[1], -2.0 * 0.99 - 0.1 * 1.0 / (1.0 + 1e-8), 1e-15);
  const std::vector<double> l2 = step_with(adam_l2, b, {0.5, 1.0});
  EXPECT_NEAR(l2[0], 1.0 - 0.1 * 0.6 / (0.6 + 1e-8), 1e-15);
  EXPECT_NEAR(l2[1], -2.0 - 0.1 * 0.8 / (0.8 + 1e-8), 1e-15);
  EXPECT_GT(std::abs(w[1] - l2[1]), 0.01);
  EXPECT_EQ(AdamW::default_options().weight_decay, 0.01);
}

TEST(Optimizer, Float32Parameters) {
  Point point(Tensor::from(std::vector<float>{1.0f, -2.0f}));
  Parameters params(point);
  Sgd sgd(params, 0.5f);
  const Tensor grad = Tensor::from(std::vector<float>{1.0f, 1.0f});
  sgd.step(std::span<const Tensor>(&grad, 1));
  EXPECT_EQ(point.x.dtype(), DType::f32);
  EXPECT_EQ(point.x.at(0), 0.5);
  EXPECT_EQ(point.x.at(1), -2.5);
  const Tensor wrong = Tensor::vec({1.0, 1.0});
  EXPECT_ERROR(sgd.step(std::span<const Tensor>(&wrong, 1)), "the gradient of 'x' must be f32 of shape [2], got [2]");
}

TEST(Optimizer, AParameterThatChangedShapeIsAnError) {
  Point point(Tensor::vec({1.0, 2.0}));
  Parameters params(point);
  Adam adam(params, 0.1);
  point.x = Tensor::vec({1.0, 2.0, 3.0});
  const Tensor grad = Tensor::vec({1.0, 1.0, 1.0});
  EXPECT_ERROR(adam.step(std::span<const Tensor>(&grad, 1)),
               "nn::Optimizer::step: parameter 'x' changed shape to [3] after the optimizer was made");
  EXPECT_EQ(adam.steps_taken(), 0);
}

TEST(ClipGradNorm, ScalesToTheLimitAndReturnsTheNorm) {
  std::vector<Tensor> grads = {Tensor::vec({3.0, 0.0}), Tensor::vec({4.0})};
  const Tensor kept = grads[1];  // a second handle: its elements must not change
  EXPECT_DOUBLE_EQ(clip_grad_norm(grads, 1.0), 5.0);
  EXPECT_NEAR(grads[0].at(0), 3.0 / (5.0 + 1e-6), 1e-15);
  EXPECT_NEAR(grads[1].at(0), 4.0 / (5.0 + 1e-6), 1e-15);
  EXPECT_EQ(kept.at(0), 4.0);
  EXPECT_NEAR(clip_grad_norm(grads, 1.0), 1.0, 1e-6);
  const double before = grads[0].at(0);
  EXPECT_NEAR(clip_grad_norm(grads, 2.0), 1.0, 1e-6);  // under the limit: unchanged
  EXPECT_EQ(grads[0].at(0), before);
}

// Deterministic gradients that vary with the step, so that momentum and moments matter.
Tensor gradient_at(int t, const Tensor& x) {
  return prim::add(prim::mul(x, Tensor::scalar(0.3)), Tensor::vec({std::sin(t), std::cos(3.0 * t), 0.1 * t}));
}

TEST(Optimizer, StateRestoredFromAFileContinuesBitForBit) {
  ScratchDir dir("optim_state");
  auto make = [](Parameters& params, int kind) -> std::unique_ptr<Optimizer> {
    if (kind == 0)
      return std::make_unique<Sgd>(params, exponential_decay(0.1, 0.95), SgdOptions{.momentum = 0.9, .nesterov = true});
    if (kind == 1) return std::make_unique<Adam>(params, 0.05);
    return std::make_unique<AdamW>(params, linear_warmup(3, cosine_decay(0.05, 10)));
  };
  for (int kind = 0; kind < 3; ++kind) {
    Point straight(Tensor::vec({1.0, -1.0, 2.0}));
    Parameters ps(straight);
    auto opt = make(ps, kind);
    for (int t = 0; t < 12; ++t) {
      const Tensor g = gradient_at(t, straight.x);
      opt->step(std::span<const Tensor>(&g, 1));
      if (t == 5) {
        save_tensors(dir / "opt.ckpt", opt->state());
        save_tensors(dir / "x.ckpt", named_parameters(straight));
      }
    }
    Point resumed(load_tensors(dir / "x.ckpt")[0].value);
    Parameters pr(resumed);
    auto opt2 = make(pr, kind);
    opt2->load_state(load_tensors(dir / "opt.ckpt"));
    EXPECT_EQ(opt2->steps_taken(), 6);
    for (int t = 6; t < 12; ++t) {
      const Tensor g = gradient_at(t, resumed.x);
      opt2->step(std::span<const Tensor>(&g, 1));
    }
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(resumed.x.at(k), straight.x.at(k)) << "optimizer " << kind << ", coordinate " << k;
  }
}

TEST(Optimizer, LoadStateChecksNamesAndShapes) {
  Point point(Tensor::vec({1.0, 2.0}));
  Parameters params(point);
  Adam adam(params, 0.1);
  AdamW adamw(params, 0.1);
  Sgd sgd(params, 0.1, {.momentum = 0.5});
  EXPECT_ERROR(adam.load_state(adamw.state()), "nn::adam::load_state: tensor 0 must be 'adam.step', got 'adamw.step'");
  EXPECT_ERROR(adam.load_state(sgd.state()), "expected 3 tensors (adam.step, ...), got 2");
  std::vector<NamedTensor> state = adam.state();
  state[2].value = Tensor::vec({1.0, 2.0, 3.0});
  EXPECT_ERROR(adam.load_state(state), "'adam.v.x' must be f64 of shape [2]");
  EXPECT_EQ(adam.state()[0].name, "adam.step");
  EXPECT_EQ(adam.state()[1].name, "adam.m.x");
}

}  // namespace
}  // namespace variate::nn
