// MPI meshes, run by CTest on 2 ranks under mpirun (label `mpi`): axis values, collectives bitwise
// equal to a local reduction in device order, gradients of sharded computations against the
// unsharded ones (STYLE.md, "Sharded equals unsharded"), ranks x 2 threads, and failures that reach
// every rank as one error instead of a hang. Every rank runs every test, in the same order, as SPMD
// programs do. Built without MPI, it checks that the MPI entry points throw and reports a skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/expect_error.hpp"
#include "support/mesh_testing.hpp"
#include "support/pipelined_vae_case.hpp"
#include "support/sharded_cases.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distribute/pipelined_flow.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/tracing/handlers.hpp"

namespace variate::distribute {
namespace {

using variate::testing::bitwise_equal;
using variate::testing::device_shard;
using variate::testing::error_of;
using variate::testing::within_deadline;

#if VARIATE_TEST_MPI

// The global index of this process's i-th result.
int device_of(const Mesh& mesh, std::size_t i) { return mesh.first_local_device() + int(i); }

// Meshes of 1 and 2 threads per rank.
class ThreadsPerRank : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Mpi, ThreadsPerRank, ::testing::Values(1, 2));

TEST_P(ThreadsPerRank, DevicesAreRanksTimesThreads) {
  const int t = GetParam();
  Mesh mesh = Mesh::mpi("data", t);
  EXPECT_EQ(mesh.axis(), "data");
  EXPECT_EQ(mesh.local_device_count(), t);
  EXPECT_EQ(mesh.size() % t, 0);
  EXPECT_EQ(mesh.first_local_device() % t, 0);
  EXPECT_GE(mesh.threads_per_device(), 1);
  // Under mpirun with 2 ranks (the CTest run) launched_with_mpi is true; run alone, one rank.
  EXPECT_EQ(launched_with_mpi(), mesh.size() / t > 1);
  const auto seen =
      within_deadline([&] { return mesh.run([] { return std::pair(axis_index("data"), axis_size("data")); }); });
  ASSERT_EQ(int(seen.size()), t);
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], std::pair(device_of(mesh, i), mesh.size()));
}

TEST_P(ThreadsPerRank, PsumPmeanPmaxEqualTheLocalReductionInDeviceOrder) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  const int n = mesh.size();
  const auto results = within_deadline([&] {
    return mesh.run([] {
      const Tensor x = device_shard(axis_index("data"));
      return std::vector<Tensor>{psum(x, "data"), pmean(x, "data"), pmax(x, "data")};
    });
  });
  // The reference adds in device order, as the collectives promise, so the match is exact.
  std::vector<Tensor> xs;
  for (int i = 0; i < n; ++i) xs.push_back(device_shard(i));
  Tensor sum = xs[0], max = xs[0];
  for (int i = 1; i < n; ++i) {
    sum = prim::add(sum, xs[std::size_t(i)]);
    max = prim::binary(BinaryOp::maximum, max, xs[std::size_t(i)]);
  }
  const Tensor mean = prim::binary(BinaryOp::div, sum, double(n));
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_TRUE(bitwise_equal(results[i][0], sum)) << "psum on device " << device_of(mesh, i);
    EXPECT_TRUE(bitwise_equal(results[i][1], mean)) << "pmean on device " << device_of(mesh, i);
    EXPECT_TRUE(bitwise_equal(results[i][2], max)) << "pmax on device " << device_of(mesh, i);
  }
}

TEST_P(ThreadsPerRank, RaggedAllGatherConcatenatesInDeviceOrder) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  const int n = mesh.size();
  // Ragged shards along dim 1: device i holds a 2 x (1 + i % 2) block; integers travel too.
  auto block = [](int i) { return reshape(device_shard(i, 2 * (1 + i % 2)), {2, 1 + i % 2}); };
  auto ints = [](int i) { return Tensor::arange(i + 1); };
  const auto results = within_deadline([&] {
    return mesh.run([&] {
      const int i = axis_index("data");
      return std::vector<Tensor>{all_gather(block(i), "data", -1), all_gather(ints(i), "data")};
    });
  });
  std::vector<Tensor> blocks, int_shards;
  for (int i = 0; i < n; ++i) {
    blocks.push_back(block(i));
    int_shards.push_back(ints(i));
  }
  const Tensor expected_blocks = prim::concat(blocks, 1), expected_ints = prim::concat(int_shards, 0);
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_TRUE(bitwise_equal(results[i][0], expected_blocks)) << "device " << device_of(mesh, i);
    EXPECT_TRUE(bitwise_equal(results[i][1], expected_ints)) << "device " << device_of(mesh, i);
  }
}

// The regression model of mesh_test.cpp: a replicated weight w, data sharded by rows,
//   loss(w) = sum(w^2) + sum over rows of (x_r . w - y_r)^2,
// with the likelihood a psum of local terms that use w through pbroadcast. Every device's
// gradient must be the unsharded one, and psum's cotangent passes through to each shard.
TEST_P(ThreadsPerRank, GradientsEqualTheUnshardedComputation) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  const int n = mesh.size();
  const Tensor w = Tensor::vec({0.7, -1.3, 0.4});
  auto features = [](int i) { return reshape(device_shard(i, 6), {2, 3}); };
  auto targets = [](int i) { return device_shard(i + 7, 2); };
  auto loss = [](const Tensor& w, const Tensor& local_loss) { return sum(square(w)) + local_loss; };
  auto local_loss = [](const Tensor& w, const Tensor& x, const Tensor& y) { return sum(square(matmul(x, w) - y)); };
  const auto results = within_deadline([&] {
    return mesh.run([&] {
      const int i = axis_index("data");
      auto [value, grads] = value_and_grad(
          [&](const Tensor& w) {
            return loss(w, psum(local_loss(pbroadcast(w, "data"), features(i), targets(i)), "data"));
          },
          w);
      const Tensor shard_grad = grad([](const Tensor& x) { return psum(sum(square(x)), "data"); }, device_shard(i));
      return std::vector<Tensor>{value, grads[0], shard_grad};
    });
  });
  std::vector<Tensor> xs, ys;
  for (int i = 0; i < n; ++i) {
    xs.push_back(features(i));
    ys.push_back(targets(i));
  }
  const Tensor x = prim::concat(xs, 0), y = prim::concat(ys, 0);
  auto [value, grads] = value_and_grad([&](const Tensor& w) { return loss(w, local_loss(w, x, y)); }, w);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const int device = device_of(mesh, i);
    EXPECT_NEAR(results[i][0].item(), value.item(), 1e-13 * std::abs(value.item())) << "device " << device;
    for (std::int64_t k = 0; k < 3; ++k)
      EXPECT_NEAR(results[i][1].at(k), grads[0].at(k), 1e-13 * (1 + std::abs(grads[0].at(k))))
          << "device " << device << ", element " << k;
    // d/dx_i of the sum over devices of |x_j|^2 is 2 x_i.
    EXPECT_TRUE(bitwise_equal(results[i][2], prim::binary(BinaryOp::mul, device_shard(device), 2.0)))
        << "device " << device;
  }
}

TEST_P(ThreadsPerRank, ManyCollectivesAndRepeatedRunsAreBitwiseIdentical) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  auto program = [] {
    const Tensor x = device_shard(axis_index("data"), 100);
    Tensor acc = x;
    for (int step = 0; step < 30; ++step) acc = psum(prim::binary(BinaryOp::mul, acc, 0.3) + x, "data");
    return std::vector<Tensor>{acc, pmax(acc, "data"), all_gather(acc, "data")};
  };
  const auto first = within_deadline([&] { return mesh.run(program); });
  for (int repeat = 0; repeat < 3; ++repeat) {
    const auto again = within_deadline([&] { return mesh.run(program); });
    for (std::size_t i = 0; i < again.size(); ++i)
      for (std::size_t k = 0; k < 3; ++k)
        EXPECT_TRUE(bitwise_equal(again[i][k], first[0][k])) << "run " << repeat << ", device " << device_of(mesh, i);
  }
}

TEST_P(ThreadsPerRank, LargeTensorsTravelIntact) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  constexpr std::int64_t n = std::int64_t(1) << 20;  // 8 MiB per device
  const auto results =
      within_deadline([&] { return mesh.run([] { return psum(device_shard(axis_index("data"), n), "data"); }); });
  Tensor expected = device_shard(0, n);
  for (int i = 1; i < mesh.size(); ++i) expected = prim::add(expected, device_shard(i, n));
  for (std::size_t i = 0; i < results.size(); ++i)
    EXPECT_TRUE(bitwise_equal(results[i], expected)) << "device " << device_of(mesh, i);
}

// Tensors of 32 KiB and more travel after the round's all-gather, smaller ones inside it: here the
// even devices' blocks (128 KiB) go apart and the odd devices' (48 bytes) inline, in one round.
TEST_P(ThreadsPerRank, LargeAndSmallTensorsMixInOneAllGather) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  auto block = [](int i) {
    const std::int64_t columns = i % 2 == 0 ? 8192 : 3;
    return reshape(device_shard(i, 2 * columns), {2, columns});
  };
  const auto results =
      within_deadline([&] { return mesh.run([&] { return all_gather(block(axis_index("data")), "data", -1); }); });
  std::vector<Tensor> blocks;
  for (int i = 0; i < mesh.size(); ++i) blocks.push_back(block(i));
  const Tensor expected = prim::concat(blocks, 1);
  for (std::size_t i = 0; i < results.size(); ++i)
    EXPECT_TRUE(bitwise_equal(results[i], expected)) << "device " << device_of(mesh, i);
}

TEST_P(ThreadsPerRank, MismatchesNameTheDeviceOnEveryRank) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  const int last = mesh.size() - 1;
  if (last == 0) GTEST_SKIP() << "needs 2 devices";
  const std::string shapes = within_deadline([&] {
    return error_of(
        [&] { mesh.run([&] { return psum(device_shard(0, axis_index("data") == last ? 2 : 3), "data"); }); });
  });
  EXPECT_NE(shapes.find("psum: over axis 'data', device " + std::to_string(last) + " passed a tensor of shape [2]"),
            std::string::npos)
      << shapes;
  EXPECT_NE(shapes.find("device 0 passed [3]"), std::string::npos) << shapes;
  const std::string gather = within_deadline([&] {
    return error_of([&] {
      mesh.run([&] {
        return all_gather(reshape(device_shard(0, 6), {axis_index("data") == last ? 3 : 2, -1}), "data", 0);
      });
    });
  });
  EXPECT_NE(gather.find("all_gather"), std::string::npos) << gather;
  EXPECT_NE(gather.find("device " + std::to_string(last) + " passed a tensor of shape [3, 2]"), std::string::npos)
      << gather;
  const std::string ops = within_deadline([&] {
    return error_of([&] {
      mesh.run([&] { return axis_index("data") == last ? pmax(Tensor(1.0), "data") : psum(Tensor(1.0), "data"); });
    });
  });
  EXPECT_NE(ops.find("device 0 calls psum but device " + std::to_string(last) + " calls pmax"), std::string::npos)
      << ops;
  const std::string returned = within_deadline([&] {
    return error_of(
        [&] { mesh.run([&] { return axis_index("data") == last ? Tensor(0.0) : psum(Tensor(1.0), "data"); }); });
  });
  EXPECT_NE(returned.find("device " + std::to_string(last) + " returned from the run's function"), std::string::npos)
      << returned;
}

TEST(MpiMesh, AnExceptionOnRankOneReachesEveryRank) {
  Mesh mesh = Mesh::mpi("data");
  if (mesh.size() < 2) GTEST_SKIP() << "needs 2 ranks (run under mpirun -np 2)";
  const std::string prefix = "Mesh::run: device 1 of " + std::to_string(mesh.size()) + " (axis 'data') failed: ";
  // Device 1 (rank 1) throws before the first psum, while the others wait in it.
  const std::string early = within_deadline([&] {
    return error_of([&] {
      mesh.run([] {
        if (axis_index("data") == 1) throw std::runtime_error("boom on rank 1");
        return psum(device_shard(0), "data");
      });
    });
  });
  EXPECT_EQ(early, prefix + "boom on rank 1");
  // A variate::Error between two collectives; the original (or, on other ranks, its message) is
  // nested.
  std::string nested;
  const std::string late = within_deadline([&] {
    try {
      mesh.run([] {
        const Tensor x = psum(device_shard(axis_index("data")), "data");
        VARIATE_CHECK(axis_index("data") != 1, "my_model", "bad value on this device");
        return psum(x, "data");
      });
    } catch (const Error& e) {
      try {
        std::rethrow_if_nested(e);
      } catch (const Error& original) {
        nested = original.what();
      }
      return std::string(e.what());
    }
    return std::string("(no variate::Error thrown)");
  });
  EXPECT_EQ(late, prefix + "my_model: bad value on this device");
  EXPECT_EQ(nested, "my_model: bad value on this device");
  // The mesh still works afterwards.
  const auto totals = within_deadline([&] { return mesh.run([] { return psum(Tensor(1.0), "data"); }); });
  for (const Tensor& t : totals) EXPECT_EQ(t.item(), double(mesh.size()));
}

// Ranks that read other data (same shapes, other values) fail together before computing with it.
TEST_P(ThreadsPerRank, CheckReplicatedFailsAlikeOnEveryRankWhenTheDataDiffer) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  const auto same = within_deadline(
      [&] { return error_of([&] { mesh.run([] { check_replicated(0x1234, "data", "test: the data"); }); }); });
  EXPECT_EQ(same, "(no variate::Error thrown)");
  if (mesh.size() / GetParam() < 2) GTEST_SKIP() << "needs 2 ranks (run under mpirun -np 2)";
  const std::string rank_one = std::to_string(GetParam());  // its first device
  const std::string differs = within_deadline([&] {
    return error_of([&] {
      mesh.run([&] {
        const bool second_rank = axis_index("data") / GetParam() == 1;
        check_replicated(second_rank ? 0xBAD : 0x600D, "data", "test: the data each rank read");
      });
    });
  });
  EXPECT_NE(differs.find("test: the data each rank read: device " + rank_one +
                         " of axis 'data' holds 0xbad but device 0 holds 0x600d; every device must hold the same"),
            std::string::npos)
      << differs;
}

TEST(MpiMesh, AnExceptionOnOneThreadOfARankReachesEveryRank) {
  Mesh mesh = Mesh::mpi("data", 2);
  const int bad = mesh.size() - 1;  // the last thread of the last rank
  // The failing device fails late, after the others have entered the second collective; devices
  // 0 and `bad` both fail, and the lowest one's message wins everywhere.
  const std::string message = within_deadline([&] {
    return error_of([&] {
      mesh.run([&] {
        const int i = axis_index("data");
        Tensor x = psum(device_shard(i), "data");
        if (i == bad) throw Error("thread failure on device " + std::to_string(i));
        x = psum(x, "data");
        if (i == 0) throw Error("never reached: device 0 is aborted first");
        return x;
      });
    });
  });
  EXPECT_EQ(message, "Mesh::run: device " + std::to_string(bad) + " of " + std::to_string(mesh.size()) +
                         " (axis 'data') failed: thread failure on device " + std::to_string(bad));
  const auto totals = within_deadline([&] { return mesh.run([] { return psum(Tensor(2.0), "data"); }); });
  for (const Tensor& t : totals) EXPECT_EQ(t.item(), 2.0 * mesh.size());
}

TEST(MpiMesh, ArgumentErrors) {
  EXPECT_ERROR(Mesh::mpi("data", 0), "Mesh::mpi: threads_per_rank must be in [1, 4096], got 0");
  EXPECT_ERROR(Mesh::mpi(""), "Mesh::mpi: the axis name must not be empty");
  // Ranks that disagree on the mesh all throw, instead of misreading each other's messages.
  const Mesh probe = Mesh::mpi("data");
  if (probe.size() < 2) return;
  const bool rank1 = probe.first_local_device() == 1;
  EXPECT_ERROR(Mesh::mpi("data", rank1 ? 2 : 1),
               "Mesh::mpi: every rank must create the mesh with the same axis and threads_per_rank, but rank 0 asked "
               "for axis 'data' with 1 threads per rank and rank 1 for axis 'data' with 2");
  EXPECT_ERROR(Mesh::mpi(rank1 ? "model" : "data"), "rank 1 for axis 'model' with 1");
}

// Sharded programs on ranks x threads: the log joint and its gradient equal the unsharded
// program's (the cases of tests/distribute/sharded_test.cpp and sharded_collectives_test.cpp).
TEST_P(ThreadsPerRank, ShardedProgramsEqualTheUnshardedProgram) {
  using namespace variate::testing::sharded;
  Mesh mesh = Mesh::mpi("data", GetParam());
  std::vector<Case> all = cases();
  for (Case& c : collective_cases()) all.push_back(std::move(c));
  for (const Case& c : all) {
    SCOPED_TRACE(c.name);
    const Values values = all_values(c);
    const auto names = names_of(values);
    const LogJointAndGrad want = log_joint_and_grad(c, values, names);
    const auto got = within_deadline([&] {
      return mesh.run([&] {
        Values local = c.replicated;
        for (const auto& [name, v] : c.sharded) local.emplace(name, distribute::shard(v, "data"));
        return log_joint_and_grad(c, local, names);
      });
    });
    for (std::size_t i = 0; i < got.size(); ++i) {
      const int d = device_of(mesh, i);
      SCOPED_TRACE("device " + std::to_string(d));
      expect_close(got[i].value, want.value, "log joint");
      for (std::size_t k = 0; k < names.size(); ++k) {
        const ShardRange r = shard_range(want.grads[k].rank() ? want.grads[k].dim(0) : 1, d, mesh.size());
        const bool sharded = c.sharded.count(names[k]) > 0;
        expect_close(got[i].grads[k], sharded ? slice(want.grads[k], 0, r.begin, r.end) : want.grads[k],
                     "gradient of " + names[k]);
      }
    }
  }
}

// Logistic regression with its rows split over the devices: every latent is replicated, so NUTS on
// the ranks follows the unsharded chain (to rounding) and every device holds the same draws.
void sharded_logistic() {
  using namespace variate::testing::sharded;
  static const Tensor x = features(23, 2, 1), y = labels(23, 2);
  tracing::Condition data({{"y", distribute::shard(y, "data")}});
  auto w = variate::Normal(Tensor::zeros(Shape{2}), 1.0, "w");
  variate::Sharded(bernoulli_logits(matmul(distribute::shard(x, "data"), w)), "data", "y");
}

TEST_P(ThreadsPerRank, AReplicatedLatentStateFollowsTheUnshardedChain) {
  inference::SamplerOptions o;
  o.chains = 2;
  o.num_warmup = 40;
  o.num_draws = 20;
  o.seed = 7;
  const auto chain = [&] {
    inference::Unconstrained space(sharded_logistic);
    return inference::sample(inference::make_target(space), o);
  };
  const inference::SampleResult alone = chain();
  Mesh mesh = Mesh::mpi("data", GetParam());
  const auto runs = within_deadline([&] { return mesh.run(chain); });
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (std::size_t c = 0; c < 2; ++c) {
      const auto& got = runs[i].chains[c].draws;
      const auto& want = alone.chains[c].draws;
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t k = 0; k < want.size(); ++k)
        ASSERT_NEAR(got[k], want[k], 1e-8) << "device " << device_of(mesh, i) << ", chain " << c << ", entry " << k;
    }
  }
}

// z_i ~ N(mu, 1) sharded, y_i ~ N(z_i, 1): every device ends with the same draws of mu (the
// replicated coordinate), compared across the ranks with all_gather.
TEST_P(ThreadsPerRank, ShardedLatentsTakeTheSameDecisionsOnEveryDevice) {
  using namespace variate::testing::sharded;
  const auto model = [] {
    static const Tensor y = random::normal(random::Key(3), Shape{9});
    tracing::Condition data({{"y", distribute::shard(y, "data")}});
    auto mu = variate::Normal(0.0, 10.0, "mu");
    auto z = variate::Sharded(normal(mu, 1.0), "data", "z", {shard_range(9, "data").size()});
    variate::Sharded(normal(z, 1.0), "data", "y");
  };
  inference::SamplerOptions o;
  o.chains = 1;
  o.num_warmup = 30;
  o.num_draws = 15;
  Mesh mesh = Mesh::mpi("data", GetParam());
  const auto agree = within_deadline([&] {
    return mesh.run([&] {
      inference::Unconstrained space(model);
      const inference::SampleResult r = inference::sample(inference::make_target(space), o);
      std::vector<double> mu;
      for (std::int64_t i = 0; i < r.chains[0].draw_count(); ++i)
        mu.push_back(r.chains[0].draws[std::size_t(i * r.dimension)]);
      const Tensor all = all_gather(Tensor::from(mu, Shape{1, std::int64_t(mu.size())}), "data", 0);
      return bitwise_equal(slice(all, 0, 0, 1), slice(all, 0, all.dim(0) - 1, all.dim(0)));
    });
  });
  for (std::size_t i = 0; i < agree.size(); ++i) EXPECT_TRUE(agree[i]) << "device " << device_of(mesh, i);
}

// Issue 22, model parallel: a VAE whose flow layers sit on the devices of the ranks (and their
// threads) has the loss and gradients of the same VAE on one device, computed on every rank.
TEST_P(ThreadsPerRank, APipelinedFlowVaeEqualsTheOneDeviceVae) {
  namespace pipelined = variate::testing::pipelined;
  Mesh mesh = Mesh::mpi(pipelined::kAxis, GetParam());
  const int n = mesh.size();
  for (const LayerPlacement placement : {LayerPlacement::contiguous, LayerPlacement::round_robin}) {
    pipelined::FlowVae vae(place_layers(std::max(4, n), n, placement));
    const Tensor x = pipelined::pixels();
    const random::Key key(11);
    const auto steps = within_deadline([&] {
      return mesh.run([&] { return pipelined::device_step(vae, axis_index(pipelined::kAxis), x, key, 2, true); });
    });
    const pipelined::Step one = pipelined::one_device_step(vae, x, key, 2, true);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const int device = device_of(mesh, i);
      EXPECT_FALSE(steps[i].grads.empty()) << "device " << device << " holds no parameters";
      const double worst = pipelined::max_abs_difference(steps[i], one);
      std::printf("[ info ] device %d of %d: max |gradient difference| %.3g\n", device, n, worst);
      EXPECT_LE(worst, 1e-12) << "device " << device;
      if (device == 0)
        EXPECT_NEAR(steps[i].loss, one.loss, 1e-12 * std::abs(one.loss));
      else
        EXPECT_EQ(steps[i].loss, 0.0);
    }
  }
}

#else  // built without MPI

TEST(MpiMesh, WithoutMpiTheEntryPointsThrow) {
  EXPECT_ERROR(Mesh::mpi("data"), "Mesh::mpi: variate was built without MPI");
  EXPECT_ERROR(Mesh::mpi("data", 2), "built without MPI");
  EXPECT_FALSE(launched_with_mpi());
  // Thread meshes are unaffected, and report themselves as all local.
  Mesh mesh(2, "data");
  EXPECT_EQ(mesh.first_local_device(), 0);
  EXPECT_EQ(mesh.local_device_count(), 2);
}

#endif

}  // namespace
}  // namespace variate::distribute

int main(int argc, char** argv) {
#if VARIATE_TEST_MPI
  // Every rank runs the same tests; ranks other than 0 print only failures, so the log stays
  // readable. (The rank is read from Open MPI's environment; MPI is not initialized yet.) Set
  // before InitGoogleTest, which picks the printer.
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank != nullptr && std::atoi(rank) != 0) GTEST_FLAG_SET(brief, true);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
#else
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  if (failed != 0) return failed;
  std::printf("MPI not found: skipped\n");
  return 77;  // SKIP_RETURN_CODE in tests/CMakeLists.txt
#endif
}
