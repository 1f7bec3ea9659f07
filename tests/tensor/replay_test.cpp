// Kernel replay (tensor/replay.hpp): a replay computes bitwise what the evaluation computes, runs
// only the kernels that depend on the input, refuses computations whose host code reads their own
// values, runs argument checks again, and reports a kernel whose host-visible result changes or a
// host decision that comes out otherwise.
#include "variate/tensor/replay.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
#include "variate/distributions/categorical_logit_glm.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/normal_id_glm.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate {
namespace {

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

void write(Tensor& input, const Tensor& values) { std::memcpy(input.raw(), values.raw(), values.nbytes()); }

// A scalar mixing element-wise, broadcast, reduction, matrix and indexing kernels.
Tensor mixed(const Tensor& v, const Tensor& data) {
  const Tensor m = reshape(v, {2, 3});
  const Tensor h = matmul(data, m);  // (4, 3)
  const int rows[] = {0};
  const Tensor s = sum(log1p(square(h)), rows) + exp(slice(v, 0, 0, 3)) * 0.5;
  return sum(s * s) - sum(softplus(concat({v, m.view(Shape{6})}, 0)));
}

struct ValueAndGradient {
  Tensor value, gradient;
};

// Records the value and gradient of the scalar function `f` at `input`, then writes each of
// `points` into the input, replays, and expects the value and gradient bits of evaluating there.
// Returns the replay, or null (a failure) if the recording could not be replayed.
std::unique_ptr<KernelReplay> expect_replays_bitwise(const std::function<Tensor(const Tensor&)>& f, Tensor input,
                                                     const std::vector<Tensor>& points, const std::string& label = "") {
  const auto evaluate = [&f](const Tensor& x) {
    auto r = vjp(f, Tensor::ones(Shape{}, x.dtype()), x);
    return ValueAndGradient{r.value, r.grads[0]};
  };
  KernelRecorder recorder(input);
  const ValueAndGradient recorded = evaluate(input);
  std::unique_ptr<KernelReplay> replay = recorder.finish({recorded.value, recorded.gradient});
  EXPECT_NE(replay, nullptr) << label << " " << recorder.why_not();
  if (replay == nullptr) return nullptr;
  for (std::size_t i = 0; i < points.size(); ++i) {
    write(input, points[i]);
    if (!replay->run()) {
      ADD_FAILURE() << label << " point " << i << ": the replay took another path";
      continue;
    }
    const ValueAndGradient expected = evaluate(points[i]);
    EXPECT_TRUE(bitwise_equal(recorded.value, expected.value)) << label << " point " << i;
    EXPECT_TRUE(bitwise_equal(recorded.gradient, expected.gradient)) << label << " point " << i;
  }
  return replay;
}

// `n` standard normal draws of `shape` in `dtype`, from the keys fold_in(Key(seed), i).
std::vector<Tensor> normal_draws(std::uint64_t seed, int n, const Shape& shape, DType dtype) {
  std::vector<Tensor> draws;
  for (int i = 0; i < n; ++i)
    draws.push_back(prim::cast(random::normal(random::fold_in(random::Key(seed), i), shape), dtype));
  return draws;
}

TEST(KernelReplay, ReplaysTheEvaluationBitwiseForNewInputs) {
  const random::Key key(7);
  const Tensor data = random::normal(random::fold_in(key, 0), Shape{4, 2});
  std::vector<Tensor> points;
  for (int i = 2; i < 12; ++i) points.push_back(random::normal(random::fold_in(key, i), Shape{6}));
  expect_replays_bitwise([&](const Tensor& x) { return mixed(x, data); },
                         random::normal(random::fold_in(key, 1), Shape{6}), points);
}

// Small element-wise calls run as bound kernels: same shapes, a scalar on either side, unary math,
// comparisons, where, in both precisions; the replay still matches a fresh evaluation bit for bit.
TEST(KernelReplay, RunsSmallElementwiseCallsAsBoundKernels) {
  for (const DType dtype : {DType::f64, DType::f32}) {
    const auto f = [](const Tensor& x) {
      const Tensor two = Tensor::scalar(2.0, x.dtype());
      const Tensor ratio = (two - x) / (x * x + 1.0);
      return where(gt(x, two), exp(ratio), softplus(ratio)) * maximum(x, two - x);
    };
    Tensor input = prim::cast(random::normal(random::Key(3), Shape{9}), dtype);
    KernelRecorder recorder(input);
    const Tensor out = f(input);
    const std::unique_ptr<KernelReplay> replay = recorder.finish({out});
    ASSERT_NE(replay, nullptr) << recorder.why_not();
    EXPECT_GE(replay->bound(), 10u) << "sub, mul, add, div, gt, exp, softplus, where, maximum, mul";
    for (int i = 0; i < 5; ++i) {
      const Tensor x = prim::cast(random::normal(random::fold_in(random::Key(4), i), Shape{9}), dtype);
      write(input, x);
      ASSERT_TRUE(replay->run());
      EXPECT_TRUE(bitwise_equal(out, f(x))) << "draw " << i;
    }
  }
}

// Reductions long enough for the interleaved partial sums (16 values and more, with a partial last
// group) run bound with the bits of the evaluation: over everything, over rows, and max and min.
TEST(KernelReplay, BoundReductionsOfManyValuesKeepTheBitsOfTheEvaluation) {
  const auto f = [](const Tensor& x) {
    const int last[] = {1};
    const Tensor rows = reshape(slice(x, 0, 0, 3 * 37), {3, 37});
    return sum(exp(x)) + sum(square(sum(rows, last))) + sum(max(rows, last) - min(rows, last));
  };
  for (const DType dtype : {DType::f64, DType::f32}) {
    const auto replay = expect_replays_bitwise(f, prim::cast(random::normal(random::Key(9), Shape{121}), dtype),
                                               normal_draws(10, 5, Shape{121}, dtype), name(dtype));
    ASSERT_NE(replay, nullptr);
    EXPECT_GE(replay->bound(), 4u) << name(dtype);
  }
}

// Small broadcasts (a row against a column, broadcast_to), reductions over a leading or middle
// axis, casts and the fills of a slice's gradient run as bound kernels too, with the bits of the
// evaluation, in both precisions.
TEST(KernelReplay, RunsSmallBroadcastsReductionsAndFillsAsBoundKernels) {
  const auto f = [](const Tensor& x) {
    const Tensor column = reshape(slice(x, 0, 0, 2), {2, 1}), row = reshape(slice(x, 0, 3, 6), {1, 3});
    const Tensor grid = reshape(x, {2, 3}) * column + row;  // (2, 3): both operands broadcast
    const Tensor cube = broadcast_to(expand_dims(grid, 0), Shape{4, 2, 3}) * exp(grid);
    const int leading[] = {0}, middle[] = {1};
    const Tensor middle_sum = sum(autodiff::stop_gradient(reshape(cube, {2, 4, 3})), middle);  // (2, 3)
    return sum(max(cube, leading) * middle_sum - logsumexp(grid, leading));
  };
  for (const DType dtype : {DType::f64, DType::f32}) {
    const auto replay = expect_replays_bitwise(f, prim::cast(random::normal(random::Key(5), Shape{6}), dtype),
                                               normal_draws(6, 5, Shape{6}, dtype), name(dtype));
    ASSERT_NE(replay, nullptr);
    EXPECT_EQ(replay->bound(), replay->size()) << name(dtype);
  }
}

// A batch of chains' point (chains, dimension) is sliced into latent sites along its last axis, a
// run per chain; the slices (of one index or of several, one with a step that takes one index) and
// their cotangents' adds all run as bound kernels, with the bits of the evaluation, in both precisions.
TEST(KernelReplay, RunsSlicesOfEveryChainsRowAsBoundKernels) {
  const auto f = [](const Tensor& x) {
    const Tensor scalar = slice(x, -1, 0, 1), vector = slice(x, -1, 1, 5), stepped = slice(x, -1, 5, 9, 4);
    const int last[] = {-1};
    return sum(exp(scalar) * sum(square(vector), last, true) + sin(stepped) * 3.0);
  };
  for (const DType dtype : {DType::f64, DType::f32}) {
    const auto replay = expect_replays_bitwise(f, prim::cast(random::normal(random::Key(7), Shape{16, 9}), dtype),
                                               normal_draws(8, 4, Shape{16, 9}, dtype), name(dtype));
    ASSERT_NE(replay, nullptr);
    EXPECT_EQ(replay->bound(), replay->size()) << name(dtype);
  }
}

// The GLM kernel keeps a copy of its x while x is not written (cpu/glm_panels.hpp). An x computed
// from the input is rewritten at each replay by a bound kernel, which holds its element pointer
// from the recording: the replay must still make the GLM see the new x.
TEST(KernelReplay, AGlmOverADesignComputedFromTheInputSeesItsNewValues) {
  const random::Key key(9);
  const Tensor data = random::normal(random::fold_in(key, 0), Shape{40, 2});
  const Tensor labels = random::bernoulli(random::fold_in(key, 1), Tensor::scalar(0.5), Shape{40});
  const auto f = [&](const Tensor& u) {
    const Tensor x = autodiff::stop_gradient(data * exp(slice(u, 0, 0, 1)));
    return dist::BernoulliLogitGLM(x, u, 0.0).log_prob(labels);
  };
  expect_replays_bitwise(f, Tensor::vec({0.3, -0.2}), {Tensor::vec({0.9, 0.4}), Tensor::vec({-1.1, 0.4})});
}

// The Normal GLM replayed with new weights, intercept and scale (the scale through exp, so that its
// positivity check runs again at each replay), over 300 rows: several blocks of rows.
TEST(KernelReplay, ANormalGlmReplaysBitwiseForNewParameters) {
  const random::Key key(11);
  const Tensor x = random::normal(random::fold_in(key, 0), Shape{300, 3});
  const Tensor y = random::normal(random::fold_in(key, 1), Shape{300});
  const auto f = [&](const Tensor& u) {
    return dist::NormalIdGLM(x, slice(u, 0, 0, 3), squeeze(slice(u, 0, 3, 4), 0), exp(squeeze(slice(u, 0, 4, 5), 0)))
        .log_prob(y);
  };
  expect_replays_bitwise(f, Tensor::vec({0.3, -0.2, 0.1, 0.5, -0.4}),
                         {Tensor::vec({0.9, 0.4, -0.3, 0.2, 0.6}), Tensor::vec({-1.1, 0.4, -0.3, 0.2, 0.6})});
}

// The same for the categorical GLM's compressed copy of a mostly-zero x (cpu/sparse_rows.hpp).
TEST(KernelReplay, ACategoricalGlmOverAMostlyZeroDesignComputedFromTheInputSeesItsNewValues) {
  const random::Key key(10);
  const Tensor mask = random::bernoulli(random::fold_in(key, 2), Tensor::scalar(0.2), Shape{60, 3});
  const Tensor data = random::normal(random::fold_in(key, 0), Shape{60, 3}) * mask;
  const Tensor labels = random::categorical(random::fold_in(key, 1), Tensor::zeros(Shape{2}), Shape{60});
  const auto f = [&](const Tensor& u) {
    const Tensor x = autodiff::stop_gradient(data * exp(slice(u, 0, 0, 1)));
    return dist::CategoricalLogitGLM(x, reshape(u, Shape{3, 2}), Tensor::zeros(Shape{2})).log_prob(labels);
  };
  expect_replays_bitwise(
      f, Tensor::vec({0.3, -0.2, 0.1, 0.5, -0.4, 0.2}),
      {Tensor::vec({0.9, 0.4, -0.3, 0.2, 0.6, -0.5}), Tensor::vec({-1.1, 0.4, -0.3, 0.2, 0.6, -0.5})});
}

TEST(KernelReplay, KeepsOnlyKernelsThatDependOnTheInputAndReachAnOutput) {
  Tensor input = Tensor::vec({1, 2, 3});
  const Tensor c = Tensor::vec({0.5, 0.25, 2});
  KernelRecorder recorder(input);
  const Tensor constant = prim::add(c, c);        // constant: computed once, while recording
  (void)prim::unary(UnaryOp::exp, input);         // reaches no output
  const Tensor out = prim::mul(input, constant);  // the one kernel left
  const std::unique_ptr<KernelReplay> replay = recorder.finish({out});
  ASSERT_NE(replay, nullptr) << recorder.why_not();
  EXPECT_EQ(replay->size(), 1u);
  write(input, Tensor::vec({-1, 4, 10}));
  ASSERT_TRUE(replay->run());
  EXPECT_TRUE(bitwise_equal(out, Tensor::vec({-1, 2, 40})));
}

TEST(KernelReplay, RefusesHostCodeThatReadsAValueComputedFromTheInput) {
  Tensor input = Tensor::vec({1, 2});
  KernelRecorder recorder(input);
  const Tensor s = prim::sum(input);
  const Tensor out = s.item() > 0 ? prim::unary(UnaryOp::exp, input) : prim::neg(input);  // control flow on a value
  EXPECT_EQ(recorder.finish({out}), nullptr);
  EXPECT_NE(recorder.why_not().find("host code"), std::string::npos) << recorder.why_not();
}

TEST(KernelReplay, RefusesHostCodeThatReadsTheInput) {
  Tensor input = Tensor::vec({1, 2});
  KernelRecorder recorder(input);
  const Tensor out = input.at(0) > 0 ? prim::unary(UnaryOp::exp, input) : prim::neg(input);
  EXPECT_EQ(recorder.finish({out}), nullptr);
}

TEST(KernelReplay, AllowsHostCodeThatReadsConstants) {
  Tensor input = Tensor::vec({1, 2});
  const Tensor c = Tensor::vec({3, 4});
  KernelRecorder recorder(input);
  const Tensor scale = prim::sum(c);  // computed while recording, but from data only
  const Tensor out = scale.item() > 0 ? prim::mul(input, scale) : input;
  const std::unique_ptr<KernelReplay> replay = recorder.finish({out});
  ASSERT_NE(replay, nullptr) << recorder.why_not();
  write(input, Tensor::vec({2, -1}));
  ASSERT_TRUE(replay->run());
  EXPECT_TRUE(bitwise_equal(out, Tensor::vec({14, -7})));
}

// Normal(0, 1) of constants leaves out x - 0 and x / 1; a loc and scale computed from the input are
// no such constants, even when they are 0 and 1 while recording: the replay must see their new values.
TEST(KernelReplay, AFamilyTreatsOnlyConstantsAsConstantParameters) {
  const auto log_density = [](const Tensor& loc, const Tensor& scale) {
    return dist::Normal(loc, scale).log_prob(Tensor::vec({0.5, -2}));
  };
  Tensor input = Tensor::vec({0, 1});
  KernelRecorder recorder(input);
  const auto element = [&](std::int64_t i) { return squeeze(slice(input, 0, i, i + 1), 0); };
  const Tensor out = log_density(element(0), element(1));
  const std::unique_ptr<KernelReplay> replay = recorder.finish({out});
  ASSERT_NE(replay, nullptr) << recorder.why_not();
  write(input, Tensor::vec({1.5, 2}));
  ASSERT_TRUE(replay->run());
  EXPECT_TRUE(bitwise_equal(out, log_density(Tensor::scalar(1.5), Tensor::scalar(2.0))));
  EXPECT_NEAR(out.at(1), -0.5 * 1.75 * 1.75 - std::log(2.0) - 0.5 * std::log(2 * std::numbers::pi), 1e-14);
}

TEST(KernelReplay, RunsArgumentChecksAgainOnTheReplayedValues) {
  Tensor input = Tensor::vec({1, 2});
  KernelRecorder recorder(input);
  const Tensor scale = prim::add(input, Tensor(1.0));
  dist::check_positive("Family", "scale", scale);
  const Tensor out = prim::unary(UnaryOp::log, scale);
  const std::unique_ptr<KernelReplay> replay = recorder.finish({out});
  ASSERT_NE(replay, nullptr) << recorder.why_not();
  write(input, Tensor::vec({0.5, -3}));
  try {
    replay->run();
    FAIL() << "expected the check to throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Family: scale must be positive and finite, got -2 at index 1"),
              std::string::npos)
        << e.what();
  }
  write(input, Tensor::vec({0, 1}));
  ASSERT_TRUE(replay->run());
  EXPECT_TRUE(bitwise_equal(out, prim::unary(UnaryOp::log, Tensor::vec({1, 2}))));
}

TEST(KernelReplay, ReportsAKernelWhoseHostVisibleResultChanges) {
  Tensor input = Tensor::vec({4, 1, 1, 3});
  KernelRecorder recorder(input);
  const Tensor factor = prim::cholesky(reshape(input, {2, 2}));
  const std::unique_ptr<KernelReplay> replay = recorder.finish({factor});
  ASSERT_NE(replay, nullptr) << recorder.why_not();
  write(input, Tensor::vec({1, 2, 2, 1}));  // not positive definite: the evaluation would throw
  EXPECT_FALSE(replay->run());
  write(input, Tensor::vec({9, 0, 0, 16}));
  ASSERT_TRUE(replay->run());
  EXPECT_TRUE(bitwise_equal(factor, Tensor::vec({3, 0, 0, 4}).view(Shape{2, 2})));
}

TEST(KernelReplay, ReportsAHostDecisionThatComesOutOtherwise) {
  Tensor input = Tensor::vec({1, 2});
  KernelRecorder recorder(input);
  const Tensor doubled = prim::mul(input, Tensor(2.0));
  const bool positive =
      host_decision({doubled}, [doubled] { return prim::reduce(ReduceOp::min, doubled, {}, false).item() > 0; });
  const Tensor out = positive ? prim::unary(UnaryOp::log, doubled) : prim::unary(UnaryOp::neg, doubled);
  const std::unique_ptr<KernelReplay> replay = recorder.finish({out});
  ASSERT_TRUE(positive);
  ASSERT_NE(replay, nullptr) << recorder.why_not();
  write(input, Tensor::vec({0.5, 4}));  // the same choice
  ASSERT_TRUE(replay->run());
  EXPECT_TRUE(bitwise_equal(out, prim::unary(UnaryOp::log, Tensor::vec({1, 8}))));
  write(input, Tensor::vec({0.5, -4}));  // the evaluation would take the other path
  EXPECT_FALSE(replay->run());
}

TEST(KernelReplay, StopsAtTheFirstRecordingOnAThread) {
  Tensor input = Tensor::vec({1});
  KernelRecorder outer(input);
  KernelRecorder inner(input);
  EXPECT_EQ(inner.finish({prim::unary(UnaryOp::exp, input)}), nullptr);
  EXPECT_NE(outer.finish({prim::unary(UnaryOp::exp, input)}), nullptr) << outer.why_not();
}

TEST(KernelReplay, NotReplayableMarksTheActiveRecording) {
  Tensor input = Tensor::vec({1});
  KernelRecorder recorder(input);
  const Tensor out = prim::unary(UnaryOp::exp, input);
  not_replayable("values from elsewhere");
  EXPECT_EQ(recorder.finish({out}), nullptr);
  EXPECT_EQ(recorder.why_not(), "values from elsewhere");
}

}  // namespace
}  // namespace variate
