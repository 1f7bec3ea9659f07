// Thread-device meshes and collectives: values on 1-4 devices, bitwise determinism, gradients of
// sharded computations against the unsharded ones (STYLE.md, "Sharded equals unsharded"), and
// failures that throw instead of hanging.
#include "variate/distribute/mesh.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/expect_error.hpp"
#include "support/mesh_testing.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/collectives.hpp"

namespace variate::distribute {
namespace {

using variate::testing::bitwise_equal;
using variate::testing::device_shard;
using variate::testing::error_of;
using variate::testing::within_deadline;

void expect_all_bitwise_equal(const std::vector<Tensor>& xs) {
  for (std::size_t i = 1; i < xs.size(); ++i) EXPECT_TRUE(bitwise_equal(xs[i], xs[0])) << "device " << i;
}

// The message of the exception f() throws, of any type.
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

class MeshSizes : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Devices, MeshSizes, ::testing::Values(1, 2, 3, 4));

TEST_P(MeshSizes, EachDeviceSeesItsIndexAndTheSize) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  EXPECT_EQ(mesh.size(), n);
  EXPECT_EQ(mesh.axis(), "data");
  const auto seen =
      within_deadline([&] { return mesh.run([] { return std::pair(axis_index("data"), axis_size("data")); }); });
  ASSERT_EQ(int(seen.size()), n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(seen[std::size_t(i)], std::pair(i, n));
}

TEST_P(MeshSizes, PsumPmeanPmaxReduceInDeviceOrder) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  const auto results = within_deadline([&] {
    return mesh.run([] {
      const Tensor x = device_shard(axis_index("data"));
      return std::vector<Tensor>{psum(x, "data"), pmean(x, "data"), pmax(x, "data")};
    });
  });
  // The reference adds in device order, as the collectives promise, so the match is exact.
  std::vector<double> sum(3, 0.0), max(3, -INFINITY);
  for (int i = 0; i < n; ++i) {
    const auto v = device_shard(i).to_vector<double>();
    for (std::size_t k = 0; k < 3; ++k) {
      sum[k] = i == 0 ? v[k] : sum[k] + v[k];
      max[k] = std::max(max[k], v[k]);
    }
  }
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<Tensor> per_device;
    for (const auto& r : results) per_device.push_back(r[std::size_t(kind)]);
    expect_all_bitwise_equal(per_device);
    for (std::size_t k = 0; k < 3; ++k) {
      const double expected = kind == 0 ? sum[k] : kind == 1 ? sum[k] / n : max[k];
      EXPECT_EQ(per_device[0].at(std::int64_t(k)), expected) << "collective " << kind << ", element " << k;
    }
  }
}

TEST_P(MeshSizes, AllGatherConcatenatesInDeviceOrder) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  // Ragged shards along dim 1: device i holds a 2 x (1 + i % 2) block.
  auto block = [](int i) { return reshape(device_shard(i, 2 * (1 + i % 2)), {2, 1 + i % 2}); };
  const auto results = within_deadline([&] {
    return mesh.run([&] {
      const int i = axis_index("data");
      return std::vector<Tensor>{all_gather(device_shard(i), "data"), all_gather(block(i), "data", -1)};
    });
  });
  std::vector<Tensor> rows, blocks;
  for (int i = 0; i < n; ++i) {
    rows.push_back(device_shard(i));
    blocks.push_back(block(i));
  }
  const Tensor expected_rows = prim::concat(rows, 0), expected_blocks = prim::concat(blocks, 1);
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(bitwise_equal(results[std::size_t(i)][0], expected_rows)) << "device " << i;
    EXPECT_TRUE(bitwise_equal(results[std::size_t(i)][1], expected_blocks)) << "device " << i;
  }
}

TEST_P(MeshSizes, ShardedSumOfSquaresHasTheLocalGradient) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  const auto results = within_deadline([&] {
    return mesh.run([] {
      const Tensor x = device_shard(axis_index("data"));
      auto [value, grads] = value_and_grad([](const Tensor& local) { return psum(sum(square(local)), "data"); }, x);
      return std::pair(value, grads[0]);
    });
  });
  std::vector<Tensor> shards;
  for (int i = 0; i < n; ++i) shards.push_back(device_shard(i));
  const double unsharded = prim::sum(prim::mul(prim::concat(shards, 0), prim::concat(shards, 0))).item();
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(results[std::size_t(i)].first.item(), unsharded, 1e-14 * unsharded);
    // d/dx_i of sum over devices of |x_j|^2 is 2 x_i: the cotangent of psum passes through unsummed.
    EXPECT_TRUE(
        bitwise_equal(results[std::size_t(i)].second, prim::binary(BinaryOp::mul, shards[std::size_t(i)], 2.0)));
    EXPECT_TRUE(bitwise_equal(results[std::size_t(i)].first, results[0].first));
  }
}

// A regression model with a replicated weight w and data sharded by rows:
//   loss(w) = sum(w^2) + sum over rows of (x_r . w - y_r)^2.
// The prior term is replicated (counted once); the likelihood is a psum of local terms that use w
// through pbroadcast, so d loss / d w on every device is the unsharded gradient.
TEST_P(MeshSizes, ReplicatedParameterGetsThePsumOfContributions) {
  const int n = GetParam();
  Mesh mesh(n, "data");
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
      return std::pair(value, grads[0]);
    });
  });
  std::vector<Tensor> xs, ys;
  for (int i = 0; i < n; ++i) {
    xs.push_back(features(i));
    ys.push_back(targets(i));
  }
  const Tensor x = prim::concat(xs, 0), y = prim::concat(ys, 0);
  auto [value, grads] = value_and_grad([&](const Tensor& w) { return loss(w, local_loss(w, x, y)); }, w);
  for (int i = 0; i < n; ++i) {
    const auto& [v, g] = results[std::size_t(i)];
    EXPECT_NEAR(v.item(), value.item(), 1e-13 * std::abs(value.item())) << "device " << i;
    for (std::int64_t k = 0; k < 3; ++k)
      EXPECT_NEAR(g.at(k), grads[0].at(k), 1e-13 * (1 + std::abs(grads[0].at(k))))
          << "device " << i << ", element " << k;
    EXPECT_TRUE(bitwise_equal(g, results[0].second)) << "device " << i;
  }
}

TEST_P(MeshSizes, PmeanGradientIsTheCotangentOverTheSize) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  const auto grads = within_deadline([&] {
    return mesh.run(
        [] { return grad([](const Tensor& x) { return sum(pmean(x, "data")); }, device_shard(axis_index("data"))); });
  });
  for (const Tensor& g : grads)
    for (std::int64_t k = 0; k < 3; ++k) EXPECT_EQ(g.at(k), 1.0 / n);
}

TEST_P(MeshSizes, AllGatherGradientIsTheOwnSliceOfTheCotangent) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  const Tensor c = prim::cast(Tensor::arange(3 * n), DType::f64);  // replicated weights
  const auto grads = within_deadline([&] {
    return mesh.run([&] {
      return grad([&](const Tensor& x) { return sum(all_gather(x, "data") * c); }, device_shard(axis_index("data")));
    });
  });
  // As for the unsharded sum(concat(x_0, ..., x_{n-1}) * c): device i gets c[3i : 3i + 3].
  for (int i = 0; i < n; ++i) EXPECT_TRUE(bitwise_equal(grads[std::size_t(i)], prim::slice(c, 0, 3 * i, 3 * i + 3)));
}

TEST(Pmax, GradientGoesToTheMaximumSharedAmongTies) {
  Mesh mesh(3, "data");
  // Element 0: device 1 holds the maximum alone. Element 1: devices 0 and 2 tie.
  const std::vector<Tensor> xs{Tensor::vec({1.0, 5.0}), Tensor::vec({4.0, 2.0}), Tensor::vec({3.0, 5.0})};
  const auto grads = within_deadline([&] {
    return mesh.run([&] {
      return grad([](const Tensor& x) { return sum(pmax(x, "data")); }, xs[std::size_t(axis_index("data"))]);
    });
  });
  EXPECT_EQ(grads[0].to_vector<double>(), (std::vector<double>{0.0, 0.5}));
  EXPECT_EQ(grads[1].to_vector<double>(), (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(grads[2].to_vector<double>(), (std::vector<double>{0.0, 0.5}));
  // The same as the unsharded max over devices, which shares ties equally too.
  const Tensor stacked = prim::stack(xs, 0);
  const Tensor g = grad([](const Tensor& s) { return sum(max(s, std::vector<int>{0})); }, stacked);
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(bitwise_equal(grads[std::size_t(i)], prim::slice(g, 0, i, i + 1).view(Shape{2})));
}

TEST(Mesh, RepeatedRunsAndManyCollectivesAreBitwiseIdentical) {
  Mesh mesh(4, "data");
  auto program = [] {
    const Tensor x = device_shard(axis_index("data"), 1000);
    Tensor acc = x;
    // Many collectives in a row exercise the reuse of the exchange slots.
    for (int step = 0; step < 100; ++step) acc = psum(prim::binary(BinaryOp::mul, acc, 0.3) + x, "data");
    return std::vector<Tensor>{acc, pmax(acc, "data"), all_gather(acc, "data")};
  };
  const auto first = within_deadline([&] { return mesh.run(program); });
  for (int repeat = 0; repeat < 10; ++repeat) {
    const auto again = within_deadline([&] { return mesh.run(program); });
    for (int i = 0; i < 4; ++i)
      for (std::size_t k = 0; k < 3; ++k)
        EXPECT_TRUE(bitwise_equal(again[std::size_t(i)][k], first[0][k])) << "run " << repeat << ", device " << i;
  }
}

TEST(Mesh, IntegerPsumAndPmean) {
  Mesh mesh(3, "data");
  const auto results = within_deadline([&] {
    return mesh.run([] {
      const Tensor x = prim::add(Tensor::arange(4), Tensor::full(Shape{4}, axis_index("data"), DType::i64));
      return std::pair(psum(x, "data"), pmean(x, "data"));
    });
  });
  EXPECT_EQ(results[0].first.dtype(), DType::i64);
  EXPECT_EQ(results[0].first.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 6, 9, 12}));
  EXPECT_EQ(results[0].second.dtype(), DType::f64);
  EXPECT_EQ(results[2].second.to_vector<double>(), (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
}

TEST(Mesh, ShapeOrDtypeMismatchNamesOpDeviceAndShapes) {
  Mesh mesh(3, "data");
  const std::string shapes = within_deadline([&] {
    return message_of([&] { mesh.run([] { return psum(device_shard(0, axis_index("data") == 1 ? 2 : 3), "data"); }); });
  });
  EXPECT_NE(shapes.find("psum"), std::string::npos) << shapes;
  EXPECT_NE(shapes.find("device 1 passed a tensor of shape [2]"), std::string::npos) << shapes;
  EXPECT_NE(shapes.find("device 0 passed [3]"), std::string::npos) << shapes;
  const std::string dtypes = within_deadline([&] {
    return error_of([&] {
      mesh.run([] {
        const Tensor x = device_shard(0);
        return pmax(axis_index("data") == 2 ? prim::cast(x, DType::f32) : x, "data");
      });
    });
  });
  EXPECT_NE(dtypes.find("pmax"), std::string::npos) << dtypes;
  EXPECT_NE(dtypes.find("device 2 passed a tensor of shape [3] (f32)"), std::string::npos) << dtypes;
  const std::string gather = within_deadline([&] {
    return error_of([&] {
      mesh.run([] {
        return all_gather(reshape(device_shard(0, 6), {axis_index("data") == 1 ? 3 : 2, -1}), "data", 0);
      });
    });
  });
  EXPECT_NE(gather.find("all_gather"), std::string::npos) << gather;
  EXPECT_NE(gather.find("device 1 passed a tensor of shape [3, 2]"), std::string::npos) << gather;
}

TEST(Mesh, AnExceptionOnOneDeviceAbortsTheOthers) {
  Mesh mesh(4, "data");
  // Device 2 throws before the first psum, while the others wait in it.
  const std::string early = within_deadline([&] {
    return message_of([&] {
      mesh.run([] {
        if (axis_index("data") == 2) throw std::runtime_error("boom");
        return psum(device_shard(0), "data");
      });
    });
  });
  EXPECT_NE(early.find("device 2 of 4"), std::string::npos) << early;
  EXPECT_NE(early.find("boom"), std::string::npos) << early;
  // Device 3 throws a variate::Error between two collectives; the type is kept, and the original
  // exception is nested.
  bool nested = false;
  const std::string late = within_deadline([&] {
    try {
      mesh.run([] {
        Tensor x = psum(device_shard(axis_index("data")), "data");
        VARIATE_CHECK(axis_index("data") != 3, "my_model", "bad value on this device");
        return psum(x, "data");
      });
    } catch (const Error& e) {
      try {
        std::rethrow_if_nested(e);
      } catch (const Error& original) {
        nested = std::string(original.what()) == "my_model: bad value on this device";
      }
      return std::string(e.what());
    }
    return std::string("(no variate::Error thrown)");
  });
  EXPECT_NE(late.find("device 3 of 4 (axis 'data') failed: my_model: bad value on this device"), std::string::npos)
      << late;
  EXPECT_TRUE(nested);
  // The mesh still works afterwards.
  const auto totals = within_deadline([&] { return mesh.run([] { return psum(Tensor(1.0), "data"); }); });
  for (const Tensor& t : totals) EXPECT_EQ(t.item(), 4.0);
}

// With no more devices than cores a waiting device spins for a while before it sleeps. Device 1
// comes late by 0 ms (device 0 still spins) or 20 ms (device 0 sleeps by then), and then joins the
// psum, throws or returns: each case ends as it does without spinning.
TEST(Mesh, ADeviceWaitingInACollectiveMeetsALateOneWhetherItSpinsOrSleeps) {
  Mesh mesh(2, "data");
  for (int late_ms : {0, 20}) {
    SCOPED_TRACE("device 1 late by " + std::to_string(late_ms) + " ms");
    const auto delay = [late_ms] {
      if (axis_index("data") == 1) std::this_thread::sleep_for(std::chrono::milliseconds(late_ms));
    };
    const auto sums = within_deadline([&] {
      return mesh.run([&] {
        delay();
        return psum(Tensor(double(axis_index("data") + 1)), "data");
      });
    });
    for (const Tensor& s : sums) EXPECT_EQ(s.item(), 3.0);
    const std::string failed = within_deadline([&] {
      return message_of([&] {
        mesh.run([&] {
          delay();
          if (axis_index("data") == 1) throw std::runtime_error("late failure");
          return psum(Tensor(1.0), "data");
        });
      });
    });
    EXPECT_NE(failed.find("device 1 of 2"), std::string::npos) << failed;
    EXPECT_NE(failed.find("late failure"), std::string::npos) << failed;
    const std::string returned = within_deadline([&] {
      return error_of([&] {
        mesh.run([&] {
          delay();
          if (axis_index("data") == 1) return Tensor(0.0);
          return psum(Tensor(1.0), "data");
        });
      });
    });
    EXPECT_NE(returned.find("device 1 returned from the run's function"), std::string::npos) << returned;
  }
}

TEST(Mesh, MismatchedCollectivesThrowInsteadOfHanging) {
  Mesh mesh(4, "data");
  const std::string returned = within_deadline([&] {
    return error_of([&] {
      mesh.run([] {
        if (axis_index("data") == 0) return Tensor(0.0);
        return psum(Tensor(1.0), "data");
      });
    });
  });
  EXPECT_NE(returned.find("device 0 returned from the run's function"), std::string::npos) << returned;
  const std::string different = within_deadline([&] {
    return error_of([&] {
      mesh.run([] {
        const Tensor x = Tensor(1.0);
        return axis_index("data") == 1 ? pmax(x, "data") : psum(x, "data");
      });
    });
  });
  EXPECT_NE(different.find("device 0 calls psum but device 1 calls pmax"), std::string::npos) << different;
}

TEST(Mesh, AxisQueriesOutsideARunOrForAnUnknownAxisThrow) {
  EXPECT_ERROR(axis_index("data"), "axis_index: axis 'data' is not available: no mesh is running on this thread");
  EXPECT_ERROR(axis_size("data"), "known axes: none");
  EXPECT_ERROR(psum(Tensor(1.0), "data"), "psum: axis 'data'");
  Mesh mesh(2, "data");
  const auto messages =
      within_deadline([&] { return mesh.run([] { return error_of([] { return axis_index("model"); }); }); });
  for (const std::string& m : messages) EXPECT_EQ(m, "axis_index: unknown axis 'model' (known axes: 'data')");
}

TEST(Mesh, RunsDoNotNest) {
  Mesh mesh(2, "data");
  const auto messages = within_deadline([&] { return mesh.run([&] { return error_of([&] { mesh.run([] {}); }); }); });
  for (const std::string& m : messages) EXPECT_NE(m.find("runs do not nest"), std::string::npos) << m;
}

TEST(Mesh, DevicesRunKernelsWithTheirShareOfCores) {
  for (int n : {1, 2, 3}) {
    Mesh mesh(n, "data");
    EXPECT_EQ(mesh.threads_per_device(), std::max(1, default_device_count() / n));
    const auto threads = within_deadline([&] { return mesh.run([] { return omp_get_max_threads(); }); });
    for (int t : threads) EXPECT_EQ(t, mesh.threads_per_device());
  }
}

TEST(Mesh, VoidRunsAndDefaults) {
  Mesh mesh;
  EXPECT_EQ(mesh.size(), default_device_count());
  EXPECT_EQ(mesh.axis(), "data");
  std::atomic<int> calls{0};
  within_deadline([&] { mesh.run([&] { calls.fetch_add(1); }); });
  EXPECT_EQ(calls.load(), mesh.size());
  EXPECT_ERROR(Mesh(0, "data"), "the number of devices must be in [1, 4096], got 0");
  EXPECT_ERROR(Mesh(2, ""), "the axis name must not be empty");
}

}  // namespace
}  // namespace variate::distribute
