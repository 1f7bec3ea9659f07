// Collectives a sharded program calls itself (distribute/sharded_program.hpp): a replicated value
// made by psum, pmean, pmax or all_gather from the devices' rows and used in replicated and sharded
// terms gives the unsharded program's log joint and gradient on 1-4 thread devices, through
// make_log_joint (ShardedPrograms.LogJointAndGradientEqualTheUnshardedProgram, sharded_test.cpp)
// and through the samplers' target (one deferred psum per gradient, kernels replayed). An explicit
// pbroadcast there is an error, since it would count a gradient once per device.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "support/sharded_cases.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"

namespace variate::distribute {
namespace {

using namespace variate::testing::sharded;

class CollectivesInShardedPrograms : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Devices, CollectivesInShardedPrograms, ::testing::Values(1, 2, 3, 4));

// The samplers' path: latent values from the unconstrained space, the log density and the
// gradient summed over the devices by one psum after the sweep.
TEST_P(CollectivesInShardedPrograms, GiveTheSamplersTargetTheUnshardedGradient) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  for (const Case& c : collective_cases()) {
    SCOPED_TRACE(c.name);
    const auto conditioned = [&c] {
      tracing::Condition data({{"t", c.replicated.at("t")}, {"y", shard(c.sharded.at("y"), "data")}});
      c.program();
    };
    // Two points: the second evaluation replays the first's kernels where the collectives allow.
    const auto evaluate = [&] {
      const inference::Unconstrained space(conditioned);
      const inference::Target target = inference::make_target(space);
      std::vector<double> q =
          space.unconstrain({{"mu", c.replicated.at("mu")}, {"z", shard(c.sharded.at("z"), "data")}})
              .to_vector<double>();
      std::vector<std::pair<double, std::vector<double>>> out;
      for (int point = 0; point < 2; ++point) {
        if (point == 1)
          for (double& x : q) x += 0.1;
        std::vector<double> grad(q.size());
        double lp = 0;
        target.evaluate(q, 1, {&lp, 1}, grad);
        out.emplace_back(lp, grad);
      }
      return std::pair(out, target.replayed_calls());
    };
    const auto want = evaluate().first;
    const auto got = mesh.run(evaluate);
    // pmax and all_gather read the other devices' tensors outside any kernel: never replayed.
    const bool replayable = c.name == "psum" || c.name == "pmean";
    for (int d = 0; d < n; ++d) {
      EXPECT_EQ(got[std::size_t(d)].second > 0, replayable) << "replayed calls on device " << d;
      for (std::size_t point = 0; point < want.size(); ++point) {
        SCOPED_TRACE("device " + std::to_string(d) + ", point " + std::to_string(point));
        const auto& [lp, grad] = got[std::size_t(d)].first[point];
        const auto& [want_lp, want_grad] = want[point];
        EXPECT_NEAR(lp, want_lp, 1e-12 * std::abs(want_lp));
        const ShardRange r = shard_range(statistic_rows, d, n);
        ASSERT_EQ(std::int64_t(grad.size()), 1 + r.size());
        EXPECT_NEAR(grad[0], want_grad[0], 1e-12 * (1 + std::abs(want_grad[0]))) << "mu";
        for (std::int64_t i = 0; i < r.size(); ++i) {
          const double w = want_grad[std::size_t(1 + r.begin + i)];
          EXPECT_NEAR(grad[std::size_t(1 + i)], w, 1e-12 * (1 + std::abs(w))) << "z[" << r.begin + i << "]";
        }
      }
    }
  }
}

TEST(CollectivesInShardedPrograms, AnExplicitPbroadcastIsAnError) {
  const Case c =
      with_statistic("pbroadcast of psum", [](const Tensor& z) { return pbroadcast(psum(sum(z), "data"), "data"); });
  Mesh mesh(2, "data");
  const std::string error = variate::testing::error_of([&] {
    mesh.run([&] {
      Values local = c.replicated;
      for (const auto& [name, v] : c.sharded) local.emplace(name, shard(v, "data"));
      log_joint_and_grad(c, local, {"mu", "z"});
    });
  });
  EXPECT_NE(error.find("pbroadcast: called inside a sharded program"), std::string::npos) << error;
  // Outside a log joint, a hand-written SPMD loss still broadcasts its replicated values itself.
  const auto grads = mesh.run([] {
    return grad(
        [](const Tensor& w) { return psum(sum(pbroadcast(w, "data") * double(axis_index("data") + 1)), "data"); },
        Tensor::scalar(1.0));
  });
  for (const Tensor& g : grads) EXPECT_EQ(g.item(), 3.0);
}

}  // namespace
}  // namespace variate::distribute
