// make_target replays the recorded kernels of a model's gradient (tensor/replay.hpp): sampling gives
// the same draws, bit for bit, as evaluating every call through the tracers (VARIATE_REPLAY=0), for
// threaded and vectorized chains; a model whose host code branches on its values falls back to
// evaluating every call; a replayed argument check throws as the evaluation does.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "support/expect_error.hpp"
#include "support/test_seed.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/target.hpp"
#include "variate/models/builtin.hpp"
#include "variate/tensor/replay.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

// exp(x) once x is positive, x otherwise: the host reads the value to choose.
tracing::Program branching() {
  return [] {
    auto x = Normal(0.0, 1.0, "x");
    const Tensor loc = x.value().item() > 0 ? Tensor(1.0) : Tensor(-1.0);
    tracing::Condition data({{"y", Tensor(0.5)}});
    Normal(loc, 1.0, "y");
  };
}

// Samples with replay on or off (the switch is read when the target is made), checking that the
// target replays (all but the first call of each thread) or does not.
SampleResult run(const Unconstrained& space, bool replay, bool vectorized) {
  if (!replay) setenv("VARIATE_REPLAY", "0", 1);
  const Target target = make_target(space);
  unsetenv("VARIATE_REPLAY");
  SamplerOptions o;
  o.chains = 2;
  o.num_warmup = 100;
  o.num_draws = 50;
  o.seed = variate::testing::test_seed(11);
  o.threads = 2;
  o.vectorized = vectorized;
  SampleResult r = sample(target, o);
  const std::int64_t replayed = target.replayed_calls();
  if (replay) {
    EXPECT_GE(replayed, r.target_calls - o.threads);
  } else {
    EXPECT_EQ(replayed, 0);
  }
  return r;
}

void expect_same_draws(const SampleResult& a, const SampleResult& b) {
  ASSERT_EQ(a.chains.size(), b.chains.size());
  for (std::size_t c = 0; c < a.chains.size(); ++c) {
    ASSERT_EQ(a.chains[c].draws.size(), b.chains[c].draws.size());
    EXPECT_EQ(
        std::memcmp(a.chains[c].draws.data(), b.chains[c].draws.data(), a.chains[c].draws.size() * sizeof(double)), 0)
        << "chain " << c;
  }
}

TEST(TargetReplay, TheEightSchoolsGradientIsReplayable) {
  const Unconstrained space(models::builtin_definition("eight-schools").program);
  const Tensor input = Tensor::zeros(Shape{space.dimension()});
  KernelRecorder recorder(input);
  auto r = vjp([&](const Tensor& x) { return space.log_density(x); }, Tensor::ones(Shape{}), input);
  EXPECT_NE(recorder.finish({r.value, r.grads[0]}), nullptr) << recorder.why_not();
}

TEST(TargetReplay, SamplingGivesTheSameDrawsWithAndWithoutReplay) {
  const Unconstrained space(models::builtin_definition("eight-schools").program);
  for (bool vectorized : {false, true}) {
    SCOPED_TRACE(vectorized ? "vectorized" : "threaded");
    expect_same_draws(run(space, true, vectorized), run(space, false, vectorized));
  }
}

TEST(TargetReplay, AModelThatBranchesOnItsValuesIsEvaluatedEveryCall) {
  const Unconstrained space(branching());
  const Tensor input = Tensor::zeros(Shape{1});
  {
    KernelRecorder recorder(input);
    auto r = vjp([&](const Tensor& x) { return space.log_density(x); }, Tensor::ones(Shape{}), input);
    EXPECT_EQ(recorder.finish({r.value, r.grads[0]}), nullptr);
  }
  const Target target = make_target(space);
  double lp = 0, g = 0;
  for (double x : {-0.5, 0.7, -0.2}) {
    target.evaluate({&x, 1}, 1, {&lp, 1}, {&g, 1});
    const double loc = x > 0 ? 1.0 : -1.0;
    EXPECT_NEAR(lp, -0.5 * x * x - 0.5 * (0.5 - loc) * (0.5 - loc) - std::log(2 * M_PI), 1e-12) << x;
  }
  EXPECT_EQ(target.replayed_calls(), 0);
}

TEST(TargetReplay, AReplayedCheckThrowsAsTheEvaluationDoes) {
  // The scale is a latent value on the real line: the check on it runs at every replay.
  const Unconstrained space([] {
    auto s = Normal(1.0, 1.0, "s");
    tracing::Condition data({{"y", Tensor(0.0)}});
    Normal(0.0, s, "y");
  });
  const Target target = make_target(space);
  double x = 1.0, lp = 0, g = 0;
  target.evaluate({&x, 1}, 1, {&lp, 1}, {&g, 1});  // recorded
  target.evaluate({&x, 1}, 1, {&lp, 1}, {&g, 1});  // replayed
  EXPECT_EQ(target.replayed_calls(), 1);
  x = -2.0;
  EXPECT_ERROR(target.evaluate({&x, 1}, 1, {&lp, 1}, {&g, 1}), "scale must be positive and finite, got -2");
}

}  // namespace
}  // namespace variate::inference
