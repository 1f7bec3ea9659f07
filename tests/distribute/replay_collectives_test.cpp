// Collectives inside a kernel replay (tensor/replay.hpp, replayable_collective): a replay makes the
// same collectives, in the same order, as an evaluation, so a device that replays and one that
// evaluates stay in step; a collective whose input is constant still runs at every replay; a
// recording that could stop halfway through its collectives is refused.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support/mesh_testing.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/tensor/prim.hpp"
#include "variate/tensor/replay.hpp"

namespace variate::distribute {
namespace {

using variate::testing::within_deadline;

struct ValueAndGradient {
  Tensor value, gradient;
};

// On device i with c = i + 1: psum(c) * sum(x) + psum(sum(pbroadcast(x) * c)), whose gradient in the
// replicated x is psum(c) + the psum of the devices' c: 2 (1 + 2) = 6 per element on 2 devices. The
// first psum's input is a constant, which a replay must exchange all the same.
ValueAndGradient replicated_terms(const Tensor& x) {
  const Tensor c = Tensor::scalar(double(axis_index("data") + 1));
  auto r = vjp([&](const Tensor& v) { return psum(c, "data") * sum(v) + psum(sum(pbroadcast(v, "data") * c), "data"); },
               Tensor::ones(Shape{}), x);
  return {r.value, r.grads[0]};
}

TEST(ReplayedCollectives, ADeviceThatReplaysStaysInStepWithOneThatEvaluates) {
  Mesh mesh(2, "data");
  within_deadline([&] {
    mesh.run([] {
      Tensor input = Tensor::vec({1.0, 2.0});
      KernelRecorder recorder(input);
      const ValueAndGradient recorded = replicated_terms(input);
      const std::unique_ptr<KernelReplay> replay = recorder.finish({recorded.value, recorded.gradient});
      ASSERT_NE(replay, nullptr) << recorder.why_not();
      // Each device in turn replays while the other evaluates through the tracers.
      for (int replaying : {0, 1}) {
        input.data<double>()[0] = 4.0 + replaying;  // sum(x) = 6 + replaying
        ValueAndGradient got = recorded;
        if (axis_index("data") == replaying) {
          ASSERT_TRUE(replay->run());
        } else {
          got = replicated_terms(input);
        }
        EXPECT_EQ(got.value.item(), 6.0 * (6.0 + replaying)) << "device " << axis_index("data");
        EXPECT_EQ(got.gradient.data<double>()[0], 6.0);
        EXPECT_EQ(got.gradient.data<double>()[1], 6.0);
      }
    });
  });
}

TEST(ReplayedCollectives, ARecordingWithACollectiveAndACholeskyIsNotReplayable) {
  // A replay whose Cholesky failed would stop after some of its collectives, and the evaluation
  // that follows would make them again: the devices would fall out of step.
  Mesh mesh(2, "data");
  within_deadline([&] {
    mesh.run([] {
      const Tensor input = Tensor::vec({4, 1, 1, 3});
      KernelRecorder recorder(input);
      const Tensor total = psum(sum(prim::cholesky(reshape(input, {2, 2}))), "data");
      EXPECT_EQ(recorder.finish({total}), nullptr);
      EXPECT_NE(recorder.why_not().find("Cholesky"), std::string::npos) << recorder.why_not();
    });
  });
}

}  // namespace
}  // namespace variate::distribute
