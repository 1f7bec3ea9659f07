// Sampling sharded models on thread devices: a model whose latent state is all replicated follows
// the unsharded chain on any number of devices; sharded latents are reproducible, replicated
// coordinates agree bitwise across devices and sharded momenta differ; dense metrics and failures
// on one device are reported clearly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "support/test_seed.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distribute/sharded.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/replay.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

using distribute::Mesh;
using distribute::shard;

// Logistic regression with 23 rows split over the devices: every latent is replicated.
void logistic() {
  static const Tensor x = random::normal(random::Key(1), Shape{23, 2});
  static const Tensor y = random::bernoulli(random::Key(2), Tensor::scalar(0.5), Shape{23});
  tracing::Condition data({{"y", shard(y, "data")}});
  auto w = Normal(Tensor::zeros(Shape{2}), 1.0, "w");
  Sharded(std::make_shared<dist::Bernoulli>(dist::Bernoulli::from_logits(matmul(shard(x, "data"), w))), "data", "y");
}

// z_i ~ N(mu, 1) per row, sharded, and y_i ~ N(z_i, 1) observed.
// With `check_mu` (when set) called at every evaluation as a host_check on mu: kernel replays run
// it again, where host code outside one would run only once.
void hierarchical_checked(const std::function<void()>& check_mu) {
  static const Tensor y = random::normal(random::Key(3), Shape{9}) + 1.0;
  tracing::Condition data({{"y", shard(y, "data")}});
  auto mu = Normal(0.0, 10.0, "mu");
  if (check_mu) host_check({mu}, check_mu);
  const std::int64_t mine = distribute::shard_range(9, "data").size();
  // Written to broadcast a leading chain dimension of mu (vectorized chains).
  auto z = Sharded(std::make_shared<dist::Normal>(expand_dims(mu, -1) + Tensor::zeros(Shape{mine}), 1.0), "data", "z");
  Sharded(std::make_shared<dist::Normal>(z, 1.0), "data", "y");
}

void hierarchical() { hierarchical_checked({}); }

SamplerOptions short_run(int chains, bool vectorized = false) {
  SamplerOptions o;
  o.chains = chains;
  o.num_warmup = 40;
  o.num_draws = 20;
  o.seed = variate::testing::test_seed(7);
  o.vectorized = vectorized;
  return o;
}

SampleResult run_alone(void (*model)(), const SamplerOptions& o) {
  Unconstrained space(model);
  return sample(make_target(space), o);
}

std::vector<SampleResult> run_on(Mesh& mesh, void (*model)(), const SamplerOptions& o) {
  return mesh.run([&] {
    Unconstrained space(model);
    return sample(make_target(space), o);
  });
}

// The devices sum the log density in another order, and the chains amplify that rounding with
// every transition: over 64 seeds the largest difference was 9e-8 after 60 transitions, which a
// bound of 1e-8 met only by its seed, and 2.5e-12 after 20.
TEST(ShardedSampling, AReplicatedLatentStateFollowsTheUnshardedChainOnAnyNumberOfDevices) {
  SamplerOptions o = short_run(2);
  o.num_warmup = 10;
  o.num_draws = 10;
  const SampleResult alone = run_alone(logistic, o);
  for (int n : {1, 2, 3}) {
    Mesh mesh(n, "data");
    const auto runs = run_on(mesh, logistic, o);
    for (int d = 0; d < n; ++d) {
      for (std::size_t c = 0; c < 2; ++c) {
        const auto& got = runs[std::size_t(d)].chains[c].draws;
        const auto& want = alone.chains[c].draws;
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
          ASSERT_NEAR(got[i], want[i], 1e-8) << n << " devices, device " << d << ", chain " << c << ", entry " << i;
        // Bitwise the same on every device: the devices take every decision together.
        EXPECT_EQ(got, runs[0].chains[c].draws) << "device " << d;
      }
    }
  }
}

TEST(ShardedSampling, ShardedLatentsAreReproducibleAndDevicesAgreeOnReplicatedCoordinates) {
  for (bool vectorized : {false, true}) {
    SCOPED_TRACE(vectorized ? "vectorized" : "chains one after another");
    Mesh mesh(2, "data");
    const auto first = run_on(mesh, hierarchical, short_run(2, vectorized));
    const auto second = run_on(mesh, hierarchical, short_run(2, vectorized));
    for (int d = 0; d < 2; ++d) {
      const SampleResult& r = first[std::size_t(d)];
      const auto dim = std::size_t(r.dimension), dim0 = std::size_t(first[0].dimension);
      EXPECT_EQ(r.dimension, 1 + distribute::shard_range(9, d, 2).size());  // mu, then this device's rows of z
      for (std::size_t c = 0; c < 2; ++c) {
        EXPECT_EQ(r.chains[c].draws, second[std::size_t(d)].chains[c].draws);
        EXPECT_EQ(r.chains[c].step_size, first[0].chains[c].step_size);
        for (std::int64_t i = 0; i < r.chains[c].draw_count(); ++i) {
          const auto row = std::size_t(i);
          EXPECT_EQ(r.chains[c].draws[row * dim], first[0].chains[c].draws[row * dim0]);
          EXPECT_EQ(r.chains[c].stats[std::size_t(i)].n_leapfrog, first[0].chains[c].stats[std::size_t(i)].n_leapfrog);
          if (d > 0) {
            EXPECT_NE(r.chains[c].draws[row * dim + 1], first[0].chains[c].draws[row * dim0 + 1]);
          }
        }
      }
    }
  }
}

TEST(ShardedSampling, VectorizedShardedChainsFollowTheirLoneChainPaths) {
  Mesh mesh(2, "data");
  const auto lone = run_on(mesh, hierarchical, short_run(2, false));
  const auto lockstep = run_on(mesh, hierarchical, short_run(2, true));
  for (int d = 0; d < 2; ++d) {
    for (std::size_t c = 0; c < 2; ++c) {
      const auto& want = lone[std::size_t(d)].chains[c].draws;
      const auto& got = lockstep[std::size_t(d)].chains[c].draws;
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-8) << "device " << d << ", chain " << c << ", entry " << i;
    }
  }
}

// Samples `hierarchical` on the mesh with kernel replay on or off (VARIATE_REPLAY is read when the
// target is made), checking on every device that the target replays all calls but the recorded
// first one, or none.
std::vector<SampleResult> run_replayed_or_not(Mesh& mesh, const SamplerOptions& o, bool replay) {
  if (!replay) setenv("VARIATE_REPLAY", "0", 1);
  auto runs = mesh.run([&] {
    Unconstrained space(hierarchical);
    const Target target = make_target(space);
    SampleResult r = sample(target, o);
    EXPECT_EQ(target.replayed_calls(), replay ? r.target_calls - 1 : 0);
    return r;
  });
  unsetenv("VARIATE_REPLAY");
  return runs;
}

TEST(ShardedSampling, ReplayedShardedGradientsGiveTheSameDrawsAsEvaluatingEveryCall) {
  // The replays make the log density's psum and the gradient's pbroadcast psum as collectives.
  for (bool vectorized : {false, true}) {
    SCOPED_TRACE(vectorized ? "vectorized" : "chains one after another");
    Mesh mesh(2, "data");
    const auto replayed = run_replayed_or_not(mesh, short_run(2, vectorized), true);
    const auto evaluated = run_replayed_or_not(mesh, short_run(2, vectorized), false);
    for (int d = 0; d < 2; ++d)
      for (std::size_t c = 0; c < 2; ++c)
        EXPECT_EQ(replayed[std::size_t(d)].chains[c].draws, evaluated[std::size_t(d)].chains[c].draws)
            << "device " << d << ", chain " << c;
  }
}

TEST(ShardedSampling, ADenseMetricOverShardedCoordinatesIsAnError) {
  Mesh mesh(2, "data");
  SamplerOptions o = short_run(1);
  o.metric = MetricKind::dense;
  const std::string error = variate::testing::error_of([&] { run_on(mesh, hierarchical, o); });
  EXPECT_NE(error.find("a dense metric cannot be sharded"), std::string::npos) << error;
}

TEST(ShardedSampling, AnErrorOnOneDeviceEndsTheRunOnAllDevices) {
  Mesh mesh(2, "data");
  static std::atomic<int> calls{0};
  calls = 0;
  // A check on mu that fails on device 1 after 30 evaluations, so device 1 fails inside a replay
  // while device 0 waits in a replayed collective.
  const auto failing = [] {
    hierarchical_checked([device = distribute::axis_index("data")] {
      if (device == 1 && ++calls > 30) ::variate::detail::fail("model", ": device one gave up");
    });
  };
  const std::string error = variate::testing::error_of([&] {
    mesh.run([&] {
      Unconstrained space(failing);
      sample(make_target(space), short_run(1));
    });
  });
  EXPECT_NE(error.find("device 1 of 2"), std::string::npos) << error;
  EXPECT_NE(error.find("device one gave up"), std::string::npos) << error;
}

}  // namespace
}  // namespace variate::inference
