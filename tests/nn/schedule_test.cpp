// Learning-rate schedules: values at chosen steps, composition with a warm-up, and bad arguments.
#include "variate/nn/schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "support/expect_error.hpp"

namespace variate::nn {
namespace {

TEST(Schedule, Constant) {
  const Schedule lr = 0.25;
  EXPECT_EQ(lr(0), 0.25);
  EXPECT_EQ(lr(1000), 0.25);
  EXPECT_ERROR(Schedule(-1.0), "the learning rate must be finite and >= 0, got -1");
}

TEST(Schedule, StepAndExponentialDecay) {
  const Schedule step = step_decay(1.0, 3, 0.5);
  EXPECT_EQ(step(0), 1.0);
  EXPECT_EQ(step(2), 1.0);
  EXPECT_EQ(step(3), 0.5);
  EXPECT_EQ(step(5), 0.5);
  EXPECT_EQ(step(6), 0.25);
  EXPECT_EQ(step(9), 0.125);
  const Schedule exp = exponential_decay(2.0, 0.9);
  EXPECT_EQ(exp(0), 2.0);
  EXPECT_NEAR(exp(3), 2.0 * 0.729, 1e-15);
  EXPECT_ERROR(step_decay(1.0, 0, 0.5), "nn::step_decay: `every` must be > 0, got 0");
}

TEST(Schedule, CosineDecay) {
  const Schedule lr = cosine_decay(1.0, 100, 0.1);
  EXPECT_EQ(lr(0), 1.0);
  EXPECT_NEAR(lr(50), 0.55, 1e-15);
  EXPECT_NEAR(lr(25), 0.1 + 0.9 * 0.5 * (1 + std::cos(std::numbers::pi / 4)), 1e-15);
  EXPECT_EQ(lr(100), 0.1);
  EXPECT_EQ(lr(500), 0.1);
}

TEST(Schedule, WarmupThenTheScheduleFromItsStart) {
  const Schedule lr = linear_warmup(4, step_decay(1.0, 2, 0.1));
  EXPECT_EQ(lr(0), 0.25);
  EXPECT_EQ(lr(1), 0.5);
  EXPECT_EQ(lr(3), 1.0);
  EXPECT_EQ(lr(4), 1.0);  // the decay's step 0
  EXPECT_EQ(lr(5), 1.0);
  EXPECT_NEAR(lr(6), 0.1, 1e-16);
}

TEST(Schedule, ANegativeOrNonFiniteRateNamesTheStep) {
  const Schedule lr(std::function<double(std::int64_t)>([](std::int64_t step) { return 1.0 - double(step); }));
  EXPECT_EQ(lr(1), 0.0);
  EXPECT_ERROR(lr(2), "nn::Schedule: the learning rate must be finite and >= 0, got -1 at step 2");
  EXPECT_ERROR(lr(-1), "the step must be >= 0, got -1");
}

}  // namespace
}  // namespace variate::nn
