// The layer code adds no allocation of its own: a steady-state gradient of an MLP through
// nn::value_and_grad, and a training step (clipping, AdamW), make no C++ heap allocation and take no
// tensor block from the system.
#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/heap_allocations.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/nn/layers.hpp"
#include "variate/nn/linear.hpp"
#include "variate/nn/optim.hpp"
#include "variate/nn/sequential.hpp"

namespace variate::nn {
namespace {

TEST(SteadyState, MlpGradientAllocatesNothing) {
  for (DType dtype : {DType::f64, DType::f32}) {
    Sequential mlp;
    mlp.push(Linear(784, 200, random::Key(1), dtype));
    mlp.push(Activation(ActivationKind::tanh));
    mlp.push(Linear(200, 200, random::Key(2), dtype));
    mlp.push(Activation(ActivationKind::tanh));
    mlp.push(Linear(200, 50, random::Key(3), dtype));
    Parameters params(mlp);
    std::vector<Tensor> grads(params.size());
    const Tensor x = prim::cast(testing::random_tensor(Shape{20, 784}, 4), dtype);
    auto loss = [&] { return sum(square(mlp(x))); };
    for (int i = 0; i < 3; ++i) value_and_grad(params, loss, grads);  // warm-up: pools and arenas grow
    const std::int64_t heap_before = testing::heap_allocations();
    const std::int64_t system_before = backend(Device{}).system_allocations();
    double checksum = 0;
    for (int i = 0; i < 10; ++i) checksum += value_and_grad(params, loss, grads).item();
    EXPECT_EQ(testing::heap_allocations() - heap_before, 0) << "C++ heap allocations in steady state, " << dtype;
    EXPECT_EQ(backend(Device{}).system_allocations() - system_before, 0) << "tensor blocks from the system, " << dtype;
    EXPECT_TRUE(std::isfinite(checksum));
  }
}

TEST(SteadyState, TrainingStepAllocatesNothing) {
  Sequential mlp;
  mlp.push(Linear(50, 20, random::Key(1)));
  mlp.push(Activation(ActivationKind::tanh));
  mlp.push(Linear(20, 5, random::Key(2)));
  Parameters params(mlp);
  std::vector<Tensor> grads(params.size());
  AdamW adamw(params, cosine_decay(1e-3, 100));
  const Tensor x = testing::random_tensor(Shape{8, 50}, 4);
  auto loss = [&] { return sum(square(mlp(x))); };
  auto train_step = [&] {
    value_and_grad(params, loss, grads);
    clip_grad_norm(grads, 1e-3);  // small enough that every step scales the gradients
    adamw.step(grads);
  };
  for (int i = 0; i < 3; ++i) train_step();
  const std::int64_t heap_before = testing::heap_allocations();
  const std::int64_t system_before = backend(Device{}).system_allocations();
  for (int i = 0; i < 10; ++i) train_step();
  EXPECT_EQ(testing::heap_allocations() - heap_before, 0) << "C++ heap allocations in steady state";
  EXPECT_EQ(backend(Device{}).system_allocations() - system_before, 0) << "tensor blocks from the system";
  EXPECT_EQ(adamw.steps_taken(), 13);
}

}  // namespace
}  // namespace variate::nn
