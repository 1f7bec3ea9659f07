// The tape itself: transforms, nesting, custom rules, saved-bytes accounting and the promise that a
// steady-state gradient evaluation allocates nothing.
#include "variate/autodiff/tape.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "support/heap_allocations.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/transforms.hpp"

namespace variate {
namespace {

using testing::random_tensor;

Tensor logistic_log_likelihood(const Tensor& w, const Tensor& x, const Tensor& y) {
  const Tensor z = matmul(x, w);
  return sum(y * z - softplus(z));
}

void expect_no_allocation_in_steady_state(const Tensor& x, const Tensor& y, const Tensor& w) {
  auto f = [&](const Tensor& w) { return logistic_log_likelihood(w, x, y); };
  for (int i = 0; i < 3; ++i) value_and_grad(f, w);  // warm-up: pools and arenas grow here
  const std::int64_t heap_before = testing::heap_allocations();
  const std::int64_t system_before = backend(Device{}).system_allocations();
  double checksum = 0;
  for (int i = 0; i < 10; ++i) checksum += value_and_grad(f, w).grads[0].at(0);
  EXPECT_EQ(testing::heap_allocations() - heap_before, 0) << "C++ heap allocations in steady state";
  EXPECT_EQ(backend(Device{}).system_allocations() - system_before, 0) << "tensor blocks from the system";
  EXPECT_TRUE(std::isfinite(checksum));
}

TEST(Tape, SteadyStateGradientMakesNoHeapAllocation) {
  const Tensor x = random_tensor(Shape{500, 7}, 1);
  const Tensor y = prim::cast(prim::binary(BinaryOp::gt, random_tensor(Shape{500}, 2), 0.0), DType::f64);
  expect_no_allocation_in_steady_state(x, y, random_tensor(Shape{7}, 3));
}

TEST(Tape, SteadyStateParallelGradientMakesNoHeapAllocation) {
  // Large enough for the multi-threaded kernel paths.
  const Tensor x = random_tensor(Shape{100000, 4}, 4);
  const Tensor y = prim::cast(prim::binary(BinaryOp::gt, random_tensor(Shape{100000}, 5), 0.0), DType::f64);
  expect_no_allocation_in_steady_state(x, y, random_tensor(Shape{4}, 6));
}

TEST(Tape, ValueAndGradOfLogisticRegressionMatchesClosedForm) {
  const Tensor x = random_tensor(Shape{50, 3}, 7);
  const Tensor y = prim::cast(prim::binary(BinaryOp::gt, random_tensor(Shape{50}, 8), 0.0), DType::f64);
  const Tensor w = random_tensor(Shape{3}, 9);
  auto [value, grads] = value_and_grad([&](const Tensor& w) { return logistic_log_likelihood(w, x, y); }, w);
  // d/dw sum(y z - softplus(z)) = X^T (y - sigmoid(z))
  const Tensor z = prim::matmul(x, w);
  const Tensor expected = prim::matmul(x, prim::sub(y, prim::unary(UnaryOp::sigmoid, z)), true, false);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(grads[0].at(i), expected.at(i), 1e-12);
  EXPECT_NEAR(value.item(), logistic_log_likelihood(w, x, y).item(), 1e-12);
}

TEST(Tape, NestedScopesDoNotCorruptTheOuterTape) {
  const Tensor x0 = Tensor::vec({1.5, -2.0});
  auto outer = [](const Tensor& x) {
    // An inner transform in the middle of the outer computation, on a value made a constant
    // explicitly (the outer transform's own x may not reach it: see the next test).
    const Tensor inner_grad = grad([](const Tensor& u) { return sum(exp(u)); }, autodiff::stop_gradient(x));
    EXPECT_NEAR(inner_grad.at(0), std::exp(1.5), 1e-12);
    return sum(square(x)) + sum(inner_grad);
  };
  const Tensor g = grad(outer, x0);
  EXPECT_NEAR(g.at(0), 3.0, 1e-12);  // only d sum(x^2): the inner gradient is a constant
  EXPECT_NEAR(g.at(1), -4.0, 1e-12);
}

// Nested transforms do not give second derivatives (hvp and hessian do), so a value the outer
// transform tracks reaching an inner one is an error, not a silent zero (d/dx of 3x^2 at 2 is 12,
// which this used to give as 0).
TEST(Tape, GradientsOfGradientsAreAnError) {
  auto cube = [](const Tensor& y) { return sum(y * y * y); };
  EXPECT_ERROR(grad([&](const Tensor& x) { return sum(grad(cube, x)); }, Tensor::scalar(2.0)),
               "Gradients of gradients are not supported");
  // The same through a closure: the outer x reaches the inner tape's ops, not its inputs.
  EXPECT_ERROR(grad(
                   [&](const Tensor& x) {
                     return sum(grad([&](const Tensor& y) { return sum(x * y * y); }, Tensor::scalar(1.0)));
                   },
                   Tensor::scalar(2.0)),
               "Gradients of gradients are not supported");
  // A Hessian-vector product written as the gradient of a directional derivative.
  const Tensor v = Tensor::vec({1.0, 0.0});
  auto gradient_dot_v = [&](const Tensor& x) { return sum(grad(cube, x) * v); };
  EXPECT_ERROR(grad(gradient_dot_v, Tensor::vec({2.0, 1.0})), "Gradients of gradients are not supported");
}

TEST(Tape, StopGradientBlocksTheFlow) {
  const Tensor g = grad([](const Tensor& x) { return sum(x * autodiff::stop_gradient(x)); }, Tensor::vec({2.0, 3.0}));
  EXPECT_DOUBLE_EQ(g.at(0), 2.0);
  EXPECT_DOUBLE_EQ(g.at(1), 3.0);
}

TEST(Tape, UnusedInputsGetZeroGradients) {
  auto [value, grads] = value_and_grad([](const Tensor& a, const Tensor&) { return sum(a); }, Tensor::vec({1, 2}),
                                       Tensor::vec({3, 4, 5}));
  EXPECT_DOUBLE_EQ(value.item(), 3.0);
  EXPECT_EQ(grads[1].shape(), (Shape{3}));
  EXPECT_DOUBLE_EQ(prim::sum(prim::unary(UnaryOp::abs, grads[1])).item(), 0.0);
}

// A slice's backward adds into its input's cotangent in place, but only into a buffer the sweep made
// for that cotangent: here x's cotangent is first the very tensor that y's is (the sum's rule hands
// both the same one), and the slices must not write into y's.
TEST(Tape, SlicesAddIntoTheirInputsCotangentWithoutTouchingAShareOfIt) {
  const Tensor w = Tensor::vec({1.0, 2.0, 3.0});
  auto f = [&](const Tensor& x, const Tensor& y) {
    const Tensor head = slice(x, 0, 0, 2), tail = slice(x, 0, 1, 3);  // recorded first, so swept last
    return sum(head) + 10.0 * sum(tail) + sum(x + y);
  };
  const auto [value, grads] = value_and_grad(f, w, w);
  EXPECT_DOUBLE_EQ(value.item(), 3.0 + 50.0 + 12.0);
  EXPECT_EQ(grads[0].to_vector<double>(), (std::vector<double>{2.0, 12.0, 11.0}));
  EXPECT_EQ(grads[1].to_vector<double>(), (std::vector<double>{1.0, 1.0, 1.0}));
  // The slices alone: their cotangents fill one buffer.
  const Tensor g = grad([](const Tensor& x) { return sum(slice(x, 0, 0, 1)) + 2.0 * sum(slice(x, 0, 2, 3)); }, w);
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{1.0, 0.0, 2.0}));
}

// A rule that adds a slice's cotangent where it does not fit is an error, not a write out of bounds.
TEST(Tape, ASliceCotangentThatDoesNotFitIsAnError) {
  const auto bad_rule = [](std::int64_t start, std::int64_t step) {
    return [=](const Tensor& x) {
      return sum(autodiff::record(prim::slice(x, 0, 0, 2, 1), {x}, {}, [=](const autodiff::BackwardContext& ctx) {
        ctx.add_to_slice(0, 0, start, step, ctx.grad());
      }));
    };
  };
  const Tensor x = Tensor::vec({1.0, 2.0, 3.0});
  EXPECT_EQ(grad(bad_rule(1, 1), x).to_vector<double>(), (std::vector<double>{0.0, 1.0, 1.0}));
  EXPECT_ERROR(grad(bad_rule(2, 1), x),
               "add_to_slice: a cotangent of shape [2] from 2 in steps of 1 along axis 0 does not fit in an input of "
               "shape [3]");
  EXPECT_ERROR(grad(bad_rule(0, 0), x), "add_to_slice");
}

// cube(x) with a hand-written rule 3 x^2, as the documented extension mechanism: the value with
// recording paused, one node, a rule in the same operators.
Tensor cube(const Tensor& x) {
  Tensor y;
  {
    const autodiff::NoRecording values;
    y = x * (x * x);
  }
  return autodiff::record(y, {x}, {x}, [](const autodiff::BackwardContext& ctx) {
    const Tensor& x = ctx.saved(0);
    ctx.add(0, ctx.grad() * (x * x * 3.0));
  });
}

TEST(Tape, CustomRuleThroughRecord) {
  testing::expect_ad([&](std::span<const Tensor> v) { return cube(v[0]); }, {random_tensor(Shape{4}, 10)});
}

TEST(Tape, CustomRuleRecordsOneNodeAndItsRuleNone) {
  const Tensor x = random_tensor(Shape{4}, 12);
  grad(
      [](const Tensor& x) {
        const Tensor y = cube(x);
        EXPECT_TRUE(autodiff::detail::is_tracked(y));
        // Only the saved x: the value's steps were not recorded (x * x would save x twice more).
        EXPECT_EQ(autodiff::saved_bytes(), 4u * sizeof(double));
        return sum(y);
      },
      x);
  // The sweep added nothing: the rule's ops, on the tracked x it saved, recorded no node.
  EXPECT_EQ(autodiff::last_sweep_saved_bytes(), 4u * sizeof(double));
}

TEST(Tape, NoRecordingGivesConstantsAndLetsNestedTransformsRecord) {
  const Tensor g = grad(
      [](const Tensor& x) {
        {
          const autodiff::NoRecording values;
          EXPECT_FALSE(autodiff::detail::is_tracked(x * 2.0));
          // A transform started inside the scope records on its own tape.
          const Tensor inner = grad([](const Tensor& u) { return sum(square(u)); }, autodiff::stop_gradient(x));
          EXPECT_DOUBLE_EQ(inner.at(0), 3.0);
          EXPECT_FALSE(autodiff::detail::is_tracked(exp(x)));  // and the pause holds again after it
        }
        return sum(x * 2.0);
      },
      Tensor::vec({1.5}));
  EXPECT_DOUBLE_EQ(g.at(0), 2.0);  // recording resumed when the scope ended
}

TEST(Tape, SavedBytesCountsWhatRulesKeep) {
  const Tensor x = random_tensor(Shape{1000}, 11);
  grad([](const Tensor& x) { return sum(exp(x)); }, x);  // exp saves its output: 8000 bytes
  EXPECT_EQ(autodiff::last_sweep_saved_bytes(), 1000u * sizeof(double));
  grad([](const Tensor& x) { return sum(x + 1.0); }, x);  // add saves nothing
  EXPECT_EQ(autodiff::last_sweep_saved_bytes(), 0u);
  EXPECT_EQ(autodiff::saved_bytes(), 0u);  // no active tape
}

TEST(Tape, GradientsKeepTheInputDtype) {
  const Tensor x = prim::cast(Tensor::vec({0.5, 1.5}), DType::f32);
  const Tensor g = grad([](const Tensor& x) { return sum(cast(x, DType::f64) * 2.0); }, x);
  EXPECT_EQ(g.dtype(), DType::f32);
  EXPECT_FLOAT_EQ(float(g.at(1)), 2.0f);
}

TEST(Tape, ViewsOfTrackedTensorsAreNewValues) {
  // A prim-level reshape of a tracked tensor must not alias the input's tape identity.
  const Tensor g = grad(
      [](const Tensor& x) {
        return sum(square(reshape(prim::reshape(x, Shape{2, 2}), {4})));
      },
      Tensor::vec({1, 2, 3, 4}));
  EXPECT_EQ(g.shape(), (Shape{4}));
}

TEST(Tape, MaximumSendsTheGradientWhereTheNaNCameFrom) {
  auto [value, grads] = value_and_grad([](const Tensor& a, const Tensor& b) { return sum(maximum(a, b)); },
                                       Tensor::vec({NAN}), Tensor::vec({0.0}));
  EXPECT_TRUE(std::isnan(value.item()));
  EXPECT_EQ(grads[0].at(0), 1.0);
  EXPECT_EQ(grads[1].at(0), 0.0);
}

TEST(Tape, ScatterAddWithABroadcastIndex) {
  // The index has size 1 along the other axis and broadcasts against src, as the forward allows.
  const Tensor index = Tensor::from(std::vector<std::int64_t>{0, 2}, Shape{2, 1});
  testing::expect_ad([&](std::span<const Tensor> v) { return scatter_add(v[0], 1, index, v[1]); },
                     {random_tensor(Shape{2, 3}, 12), random_tensor(Shape{2, 1}, 13)});
}

TEST(Transforms, VjpAndJacobian) {
  const Tensor x = Tensor::vec({1.0, 2.0, 3.0});
  auto f = [](const Tensor& x) { return cumsum(square(x), 0); };
  const Tensor jac = jacobian(f, x);
  ASSERT_EQ(jac.shape(), (Shape{3, 3}));
  // J[i][j] = 2 x_j for j <= i, else 0.
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_DOUBLE_EQ(jac.at(i * 3 + j), j <= i ? 2.0 * (j + 1) : 0.0);
  auto [value, grads] = vjp(f, Tensor::vec({1.0, 0.0, 1.0}), x);
  EXPECT_DOUBLE_EQ(value.at(2), 14.0);
  EXPECT_DOUBLE_EQ(grads[0].at(0), 4.0);  // rows 0 and 2 of J, column 0
  EXPECT_DOUBLE_EQ(grads[0].at(2), 6.0);
}

TEST(Transforms, ErrorsNameTheProblem) {
  auto expect_message = [](auto&& fn, const std::string& part) {
    try {
      fn();
      ADD_FAILURE() << "expected an error mentioning " << part;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_message([] { value_and_grad([](const Tensor& x) { return x; }, Tensor::vec({1, 2})); }, "single-element");
  expect_message([] { grad([](const Tensor& x) { return sum(x); }, Tensor::arange(3)); }, "floating point");
  expect_message([] { vjp([](const Tensor& x) { return x; }, Tensor::vec({1}), Tensor::vec({1, 2})); }, "cotangent");
}

TEST(Transforms, ExceptionInsideTheFunctionLeavesTheTapeUsable) {
  EXPECT_THROW(grad([](const Tensor& x) { return sum(x + Tensor::vec({1, 2, 3})); }, Tensor::vec({1, 2})), Error);
  EXPECT_EQ(autodiff::detail::active_tape(), nullptr);
  EXPECT_DOUBLE_EQ(grad([](const Tensor& x) { return sum(x * 3.0); }, Tensor::vec({1, 2})).at(0), 3.0);
}

}  // namespace
}  // namespace variate
