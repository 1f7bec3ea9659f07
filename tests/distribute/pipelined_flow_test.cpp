// ppermute (point-to-point transfers and their transpose) and PipelinedFlow on thread devices: a
// VAE whose flow layers sit on different devices has the loss and gradients of the same VAE on one
// device (issue 22, "model parallel, as in the paper"); bad placements give one clear error.
#include <gtest/gtest.h>

#include <cstdio>
#include <tuple>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "support/mesh_testing.hpp"
#include "support/pipelined_vae_case.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/collectives.hpp"

namespace variate::distribute {
namespace {

using variate::testing::bitwise_equal;
using variate::testing::device_shard;
using variate::testing::within_deadline;
namespace pipelined = variate::testing::pipelined;

TEST(Ppermute, DestinationsGetTheirSourcesTensorOthersZeros) {
  Mesh mesh(3, "data");
  const Transfer transfers[] = {{0, 1}, {1, 2}};
  const auto ys = within_deadline(
      [&] { return mesh.run([&] { return ppermute(device_shard(axis_index("data")), "data", transfers); }); });
  EXPECT_TRUE(bitwise_equal(ys[0], Tensor::zeros(Shape{3})));
  EXPECT_TRUE(bitwise_equal(ys[1], device_shard(0)));
  EXPECT_TRUE(bitwise_equal(ys[2], device_shard(1)));
}

TEST(Ppermute, GradientIsTheDestinationsCotangentSentBack) {
  // Device d's loss is sum(y * (d + 2)); only device 1 receives (device 0's x), so device 0's
  // gradient is device 1's weight, 3, and the others' are zero.
  Mesh mesh(3, "data");
  const Transfer transfers[] = {{0, 1}};
  const auto grads = within_deadline([&] {
    return mesh.run([&] {
      const double weight = axis_index("data") + 2;
      return grad([&](const Tensor& x) { return sum(ppermute(x, "data", transfers) * weight); },
                  device_shard(axis_index("data")));
    });
  });
  EXPECT_TRUE(bitwise_equal(grads[0], Tensor::full(Shape{3}, 3.0)));
  EXPECT_TRUE(bitwise_equal(grads[1], Tensor::zeros(Shape{3})));
  EXPECT_TRUE(bitwise_equal(grads[2], Tensor::zeros(Shape{3})));
}

TEST(Ppermute, BadTransfersAreNamed) {
  Mesh mesh(2, "data");
  const Transfer outside[] = {{0, 2}};
  EXPECT_ERROR(mesh.run([&] { ppermute(Tensor::zeros(Shape{1}), "data", outside); }),
               "ppermute: over axis 'data' of 2 devices, the transfer 0 -> 2 names a device outside 0..1");
  const Transfer twice[] = {{0, 1}, {0, 0}};
  EXPECT_ERROR(mesh.run([&] { ppermute(Tensor::zeros(Shape{1}), "data", twice); }),
               "device 0 is the source of two transfers");
}

TEST(PlaceLayers, ContiguousBlocksOrRoundRobin) {
  EXPECT_EQ(place_layers(5, 2, LayerPlacement::contiguous), (std::vector<int>{0, 0, 0, 1, 1}));
  EXPECT_EQ(place_layers(5, 2, LayerPlacement::round_robin), (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(place_layers(3, 3, LayerPlacement::contiguous), (std::vector<int>{0, 1, 2}));
}

TEST(PlaceLayers, MoreDevicesThanLayersIsAnError) {
  EXPECT_ERROR(place_layers(2, 3, LayerPlacement::contiguous),
               "place_layers: 3 devices but 2 flow layers; each device must hold at least one layer");
}

TEST(PipelinedFlow, MismatchedPlacementIsAnError) {
  const pipelined::FlowVae vae({0, 1});
  EXPECT_ERROR(PipelinedFlow(vae.flow->layers(), {0}, "model"), "PipelinedFlow: 2 layers but a placement of 1");
  // A placement that names a device the mesh does not have fails on every device, at the first pass.
  pipelined::FlowVae beyond({0, 2});
  Mesh mesh(2, pipelined::kAxis);
  EXPECT_ERROR(within_deadline([&] {
                 mesh.run_each([&](int device) {
                   pipelined::device_step(beyond, device, pipelined::pixels(), random::Key(7), 1, false);
                 });
               }),
               "PipelinedFlow: places a layer (or its home) on device 2 but axis 'model' has 2 devices");
}

TEST(PipelinedFlow, ConditionalLayersMapOnlyAtAContext) {
  const pipelined::FlowVae with_context({0, 1}, true), without({0, 1});
  const Tensor z = Tensor::zeros(Shape{2, pipelined::kLatent});
  EXPECT_ERROR(with_context.flow->forward(z), "PipelinedFlow: its layers are conditional; map with given(context)");
  EXPECT_ERROR(without.flow->given(Tensor::zeros(Shape{2, pipelined::kHidden})),
               "PipelinedFlow: given() needs conditional layers");
  EXPECT_EQ(with_context.flow->conditional_layers().size(), 2u);
  EXPECT_TRUE(with_context.flow->layers().empty());
  EXPECT_EQ(without.flow->layers().size(), 2u);
  EXPECT_TRUE(without.flow->conditional_layers().empty());
  // Outside a mesh, at a context: the layers in order, there and back.
  const Tensor h = variate::testing::random_tensor(Shape{2, pipelined::kHidden}, 5);
  const BijectorPtr at_h = with_context.flow->given(h);
  const Tensor x = variate::testing::random_tensor(Shape{2, pipelined::kLatent}, 6);
  const auto layer = [&](std::size_t k) {
    return std::dynamic_pointer_cast<const dist::ConditionalInverseAutoregressiveFlow>(with_context.layers[k]);
  };
  const Tensor by_layers = layer(1)->forward(layer(0)->forward(x, h), h);
  EXPECT_TRUE(bitwise_equal(at_h->forward(x), by_layers));
  EXPECT_LT(max(abs(at_h->inverse(at_h->forward(x)) - x)).item(), 1e-12);
}

// devices, placement, IWAE (else the ELBO), particles, flows with the encoder's context.
using Setting = std::tuple<int, LayerPlacement, bool, int, bool>;
class ModelParallelVae : public ::testing::TestWithParam<Setting> {};
INSTANTIATE_TEST_SUITE_P(Settings, ModelParallelVae,
                         ::testing::Values(Setting{2, LayerPlacement::contiguous, false, 1, false},
                                           Setting{2, LayerPlacement::round_robin, false, 1, false},
                                           Setting{3, LayerPlacement::round_robin, false, 2, false},
                                           Setting{2, LayerPlacement::contiguous, true, 3, false},
                                           Setting{4, LayerPlacement::contiguous, true, 2, false},
                                           Setting{2, LayerPlacement::round_robin, false, 1, true},
                                           Setting{3, LayerPlacement::contiguous, true, 2, true}));

TEST_P(ModelParallelVae, LossAndGradientsEqualTheOneDeviceRun) {
  const auto [devices, placement, iwae, particles, context] = GetParam();
  pipelined::FlowVae vae(place_layers(4, devices, placement), context);
  const Tensor x = pipelined::pixels();
  const random::Key key(11);
  Mesh mesh(devices, pipelined::kAxis);
  const auto steps = within_deadline([&] {
    return mesh.run([&] { return pipelined::device_step(vae, axis_index(pipelined::kAxis), x, key, particles, iwae); });
  });
  const pipelined::Step one = pipelined::one_device_step(vae, x, key, particles, iwae);

  // Every parameter is held by exactly one device: the flow layers by their own, the rest by 0.
  std::size_t held = 0;
  for (int d = 0; d < devices; ++d) {
    held += steps[std::size_t(d)].grads.size();
    for (const auto& [name, grad] : steps[std::size_t(d)].grads)
      if (name.rfind("flow", 0) == 0) {
        EXPECT_EQ(vae.flow->placement()[std::size_t(name[4] - '0')], d) << name << " on device " << d;
      }
  }
  EXPECT_EQ(held, one.grads.size());
  double worst = 0;
  for (int d = 0; d < devices; ++d) worst = std::max(worst, pipelined::max_abs_difference(steps[std::size_t(d)], one));
  std::printf("[ info ] %d devices: loss %.17g (one device %.17g), max |gradient difference| %.3g\n", devices,
              steps[0].loss, one.loss, worst);
  EXPECT_NEAR(steps[0].loss, one.loss, 1e-12 * std::abs(one.loss));
  EXPECT_LE(worst, 1e-12);
  // A device other than home contributes 0 to the loss and holds nonzero gradients for its layers.
  for (int d = 1; d < devices; ++d) {
    EXPECT_EQ(steps[std::size_t(d)].loss, 0.0);
    for (const auto& [name, grad] : steps[std::size_t(d)].grads) EXPECT_GT(max(abs(grad)).item(), 0.0) << name;
  }
}

}  // namespace
}  // namespace variate::distribute
