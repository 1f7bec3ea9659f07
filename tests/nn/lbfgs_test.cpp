// L-BFGS: the Rosenbrock function's minimum, a quadratic in few iterations, float parameters, and a
// line search that cannot succeed reported as such.
#include "variate/nn/lbfgs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "nn/point_module.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/ops.hpp"

namespace variate::nn {
namespace {

using testing::Point;

TEST(Lbfgs, RosenbrockReachesOneOne) {
  Point point(Tensor::vec({-1.2, 1.0}));  // the classic start (More, Garbow & Hillstrom 1981)
  Parameters params(point);
  auto rosenbrock = [&] {
    const Tensor a = index(point.x, {0}), b = index(point.x, {1});
    return square(1.0 - a) + 100.0 * square(b - square(a));
  };
  const LbfgsResult r = minimize_lbfgs(params, rosenbrock, {.max_iterations = 200, .gradient_tolerance = 1e-8});
  EXPECT_EQ(r.status, LbfgsStatus::converged) << r.message;
  EXPECT_NEAR(point.x.at(0), 1.0, 1e-6);
  EXPECT_NEAR(point.x.at(1), 1.0, 1e-6);
  EXPECT_LT(r.loss, 1e-12);
  EXPECT_LE(r.gradient_norm, 1e-8);
  EXPECT_LT(r.iterations, 100);
  EXPECT_GE(r.evaluations, r.iterations + 1);
}

TEST(Lbfgs, QuadraticInFewIterations) {
  // f(x) = sum_k a_k (x_k - c_k)^2 in 5 dimensions. With exact line searches (L-)BFGS ends on a
  // quadratic in n = 5 iterations; a nearly exact strong Wolfe search (c2 = 0.1) needs a few more.
  Point point(Tensor::vec({0.0, 0.0, 0.0, 0.0, 0.0}));
  Parameters params(point);
  const Tensor a = Tensor::vec({1.0, 2.0, 5.0, 10.0, 30.0}), c = Tensor::vec({1.0, -1.0, 2.0, 0.5, -3.0});
  const LbfgsResult r =
      minimize_lbfgs(params, [&] { return sum(a * square(point.x - c)); }, {.gradient_tolerance = 1e-9, .c2 = 0.1});
  EXPECT_EQ(r.status, LbfgsStatus::converged) << r.message;
  EXPECT_LE(r.iterations, 10) << r.message;  // 7 measured
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(point.x.at(k), c.at(k), 1e-9) << "coordinate " << k;
}

TEST(Lbfgs, Float32Parameters) {
  Point point(Tensor::from(std::vector<float>{3.0f, -2.0f}));
  Parameters params(point);
  const Tensor c = Tensor::from(std::vector<float>{1.0f, 0.5f});
  const LbfgsResult r = minimize_lbfgs(params, [&] { return sum(square(point.x - c)); }, {.gradient_tolerance = 1e-4});
  EXPECT_EQ(r.status, LbfgsStatus::converged) << r.message;
  EXPECT_EQ(point.x.dtype(), DType::f32);
  EXPECT_NEAR(point.x.at(0), 1.0, 1e-4);
  EXPECT_NEAR(point.x.at(1), 0.5, 1e-4);
}

TEST(Lbfgs, AnUnboundedLossFailsTheLineSearchWithAMessage) {
  // f(x) = -x is unbounded below: every step doubles and none meets the curvature condition.
  Point point(Tensor::vec({0.0}));
  Parameters params(point);
  const LbfgsResult r = minimize_lbfgs(params, [&] { return -sum(point.x); }, {.max_line_search_evaluations = 10});
  EXPECT_EQ(r.status, LbfgsStatus::line_search_failed);
  EXPECT_NE(r.message.find("iteration 1: the line search failed: no step satisfying the strong Wolfe conditions "
                           "within 10 evaluations"),
            std::string::npos)
      << r.message;
  EXPECT_EQ(point.x.at(0), 0.0);  // back at the best point found
  EXPECT_EQ(r.loss, 0.0);
}

TEST(Lbfgs, LossAndParameterTolerancesStopBeforeTheGradientOne) {
  // On Rosenbrock's valley the loss and the steps shrink long before the gradient reaches 1e-300:
  // each further test stops the search early, saying which one did.
  auto run = [](LbfgsOptions options) {
    Point point(Tensor::vec({-1.2, 1.0}));
    Parameters params(point);
    auto rosenbrock = [&] {
      const Tensor a = index(point.x, {0}), b = index(point.x, {1});
      return square(1.0 - a) + 100.0 * square(b - square(a));
    };
    options.max_iterations = 500;
    options.gradient_tolerance = 1e-300;
    return minimize_lbfgs(params, rosenbrock, options);
  };
  const LbfgsResult absolute = run({.loss_tolerance = 1e-3});
  EXPECT_EQ(absolute.status, LbfgsStatus::converged);
  EXPECT_NE(absolute.message.find("the loss fell by"), std::string::npos) << absolute.message;
  const LbfgsResult relative = run({.relative_loss_tolerance = 1e-3});
  EXPECT_EQ(relative.status, LbfgsStatus::converged);
  EXPECT_NE(relative.message.find("relative to its size"), std::string::npos) << relative.message;
  const LbfgsResult parameters = run({.parameter_tolerance = 1e-2});
  EXPECT_EQ(parameters.status, LbfgsStatus::converged);
  EXPECT_NE(parameters.message.find("the parameters moved by"), std::string::npos) << parameters.message;
  const LbfgsResult none = run({});
  EXPECT_GT(none.iterations, absolute.iterations) << none.message;
  EXPECT_GT(none.iterations, parameters.iterations) << none.message;
}

TEST(Lbfgs, ANonFiniteStartIsAnError) {
  Point point(Tensor::vec({-1.0}));
  Parameters params(point);
  EXPECT_ERROR(minimize_lbfgs(params, [&] { return sum(log(point.x)); }), "is not finite at the starting point");
}

TEST(Lbfgs, ALossThatThrowsInTheLineSearchLeavesTheBestPoint) {
  // The second evaluation is the line search's first trial point (the first is the start).
  Point point(Tensor::vec({0.0}));
  Parameters params(point);
  int evaluations = 0;
  auto loss = [&] {
    if (++evaluations == 2) throw std::runtime_error("loss failed at a trial point");
    return sum(square(point.x - 3.0));
  };
  EXPECT_THROW(minimize_lbfgs(params, loss), std::runtime_error);
  EXPECT_EQ(evaluations, 2);
  EXPECT_EQ(point.x.at(0), 0.0);
}

}  // namespace
}  // namespace variate::nn
