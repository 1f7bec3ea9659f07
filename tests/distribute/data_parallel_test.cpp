// Data-parallel training on thread devices (issue 24): the all-reduced gradient equals the
// one-device gradient of the same global minibatch, runs on 2 and 3 devices end with the one-device
// run's parameters (to rounding) and with bitwise identical replicas, also when the loss is a
// program's log joint, a checkpoint written on 2 devices resumes on 1 and 3, and bad input and
// failing devices stop every device with one error.
// tests/distribute/data_parallel_mpi_test.cpp runs the same on MPI ranks.
#include "variate/distribute/data_parallel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "support/data_parallel_cases.hpp"
#include "support/expect_error.hpp"
#include "support/mesh_testing.hpp"
#include "support/scratch_dir.hpp"
#include "variate/distribute/fused_psum.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::distribute {
namespace {

using testing::bitwise_equal;
using testing::ScratchDir;
using testing::within_deadline;
using testing::data_parallel::Data;
using testing::data_parallel::kExamples;
using testing::data_parallel::options;
using testing::data_parallel::Replica;
using testing::data_parallel::train_on_one_device;

// |a - b| <= tol * (1 + |b|) element-wise.
void expect_close(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.shape(), b.shape());
  const std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  for (std::size_t i = 0; i < av.size(); ++i) EXPECT_NEAR(av[i], bv[i], tol * (1 + std::abs(bv[i]))) << "element " << i;
}

TEST(ShardOfBatch, ContiguousSlicesTheFirstHoldingTheRemainder) {
  const std::vector<std::int64_t> batch = {9, 4, 7, 1, 0};
  const BatchShard a = shard_of_batch(batch, 0, 2), b = shard_of_batch(batch, 1, 2);
  EXPECT_EQ(std::vector<std::int64_t>(a.examples.begin(), a.examples.end()), (std::vector<std::int64_t>{9, 4, 7}));
  EXPECT_EQ(std::vector<std::int64_t>(b.examples.begin(), b.examples.end()), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(a.offset, 0);
  EXPECT_EQ(b.offset, 3);
  EXPECT_EQ(b.global_size(), 5);
  EXPECT_TRUE(shard_of_batch(std::span(batch).first(1), 1, 2).examples.empty());
}

TEST(PsumFused, EachTensorBecomesItsSumInDeviceOrder) {
  Mesh mesh(3, "data");
  const auto results = within_deadline([&] {
    return mesh.run([] {
      const int i = axis_index("data");
      std::vector<Tensor> xs = {testing::device_shard(i, 4), reshape(testing::device_shard(i + 5, 6), Shape{2, 3})};
      psum_fused(xs, "data");
      return xs;
    });
  });
  std::vector<Tensor> expected = {testing::device_shard(0, 4), reshape(testing::device_shard(5, 6), Shape{2, 3})};
  for (int i = 1; i < 3; ++i) {
    expected[0] = prim::add(expected[0], testing::device_shard(i, 4));
    expected[1] = prim::add(expected[1], reshape(testing::device_shard(i + 5, 6), Shape{2, 3}));
  }
  for (const auto& r : results) {
    EXPECT_TRUE(bitwise_equal(r[0], expected[0]));
    EXPECT_TRUE(bitwise_equal(r[1], expected[1]));
  }
}

TEST(PsumFused, MixedDtypesAreAnError) {
  Mesh mesh(2, "data");
  EXPECT_ERROR(
      mesh.run([] {
        std::vector<Tensor> xs = {Tensor::zeros(Shape{2}), Tensor::zeros(Shape{2}, DType::f32)};
        psum_fused(xs, "data");
      }),
      "psum_fused: tensor 1 has dtype f32 but tensor 0 has f64; every tensor must have the same floating dtype");
}

TEST(PsumFused, DevicesPassingDifferentSizesOrDtypesIsAnError) {
  Mesh mesh(2, "data");
  EXPECT_ERROR(mesh.run([] {
    std::vector<Tensor> xs = {Tensor::zeros(Shape{2 + axis_index("data")})};
    psum_fused(xs, "data");
  }),
               "psum_fused: over axis 'data', device 1 passes 3 elements of f64 but device 0 passes 2 of f64; every "
               "device must pass the same shapes and dtype");
  EXPECT_ERROR(mesh.run([] {
    std::vector<Tensor> xs = {Tensor::zeros(Shape{2}, axis_index("data") == 0 ? DType::f64 : DType::f32)};
    psum_fused(xs, "data");
  }),
               "device 1 passes 2 elements of f32 but device 0 passes 2 of f64");
}

TEST(DataParallel, TheAllReducedGradientIsTheOneDeviceGradientOfTheGlobalBatch) {
  const Data data;
  const std::vector<std::int64_t> batch = {3, 17, 0, 8, 11, 5, 19};  // 7: ragged over 2 and 3 devices
  Replica one;
  std::vector<Tensor> expected(one.params.size());
  const double expected_loss = nn::value_and_grad(
                                   one.params, [&] { return one.one_device_loss(data)(batch); }, expected)
                                   .item();
  for (int devices : {2, 3}) {
    Mesh mesh(devices, "data");
    const auto results = within_deadline([&] {
      return mesh.run([&] {
        Replica replica;
        std::vector<Tensor> grads(replica.params.size());
        const double loss = data_parallel_value_and_grad(replica.params, batch, replica.loss(data), grads, "data");
        return std::pair(loss, grads);
      });
    });
    for (const auto& [loss, grads] : results) {
      EXPECT_NEAR(loss, expected_loss, 1e-14 * expected_loss) << devices << " devices";
      for (std::size_t i = 0; i < grads.size(); ++i) expect_close(grads[i], expected[i], 1e-13);
      // Every device holds the same sums, bit for bit.
      for (std::size_t i = 0; i < grads.size(); ++i) EXPECT_TRUE(bitwise_equal(grads[i], results[0].second[i]));
    }
  }
}

std::vector<Tensor> train_on(int devices, const nn::TrainOptions& o) {
  Mesh mesh(devices, "data");
  return testing::data_parallel::train_on_mesh(mesh, o);
}

TEST(DataParallel, RunsOnTwoAndThreeDevicesEndWithTheOneDeviceParameters) {
  const std::vector<Tensor> expected = train_on_one_device(options());
  for (int devices : {1, 2, 3}) {
    const std::vector<Tensor> got = train_on(devices, options());
    ASSERT_EQ(got.size(), expected.size());
    // 12 Adam steps; the sums split differently (per device, then over devices), so agreement is
    // to rounding. Adam divides by sqrt(v), which amplifies rounding in tiny gradients a little.
    for (std::size_t i = 0; i < got.size(); ++i) expect_close(got[i], expected[i], 1e-10);
  }
  // One device of a mesh sums exactly as nn::train does.
  const std::vector<Tensor> single = train_on(1, options());
  for (std::size_t i = 0; i < single.size(); ++i) EXPECT_TRUE(bitwise_equal(single[i], expected[i]));
}

// A loss written as a program's log joint: inside the data-parallel step each device's program is
// its own model of its shard (LocalProgramScope), not one model split over the mesh, whose log
// joint would psum the devices' terms and count each replicated term once.
TEST(DataParallel, ALogJointLossIsEachDevicesOwnModel) {
  const Data data;
  auto log_joint_loss = [&](const Replica& r, std::span<const std::int64_t> examples, std::int64_t global_size) {
    const Tensor rows = Tensor::from(examples, Shape{std::int64_t(examples.size())});
    const Tensor x = take(data.x, rows), y = take(data.y, rows);
    const auto program = [&] {
      tracing::Condition observed({{"y", y}});
      Normal(r.net(x), 1.0, "y");
    };
    return -tracing::make_log_joint(program)({}) / double(global_size);
  };
  Replica one;
  nn::train(
      one.adam, kExamples, random::Key(65),
      [&](std::span<const std::int64_t> batch) { return log_joint_loss(one, batch, std::int64_t(batch.size())); },
      options());
  const std::vector<Tensor> expected = one.values();
  Mesh mesh(2, "data");
  const auto results = within_deadline([&] {
    return mesh.run([&] {
      Replica replica;
      train_data_parallel(
          replica.adam, kExamples, random::Key(65),
          [&](const BatchShard& s) { return log_joint_loss(replica, s.examples, s.global_size()); }, options(), "data");
      return replica.values();
    });
  });
  for (const auto& r : results)
    for (std::size_t i = 0; i < r.size(); ++i) expect_close(r[i], expected[i], 1e-10);
}

TEST(DataParallel, ACheckpointWrittenOnTwoDevicesResumesOnOneAndThree) {
  ScratchDir dir("data_parallel_resume");
  const std::vector<Tensor> expected = train_on_one_device(options(3));
  for (int resume_on : {1, 3}) {
    nn::TrainOptions o = options(2);
    o.checkpoint = dir / ("on" + std::to_string(resume_on) + ".ckpt");
    train_on(2, o);  // 2 of 3 epochs on 2 devices
    o.epochs = 3;
    const std::vector<Tensor> got = train_on(resume_on, o);
    for (std::size_t i = 0; i < got.size(); ++i) expect_close(got[i], expected[i], 1e-10);
  }
}

TEST(DataParallel, AGlobalBatchThatDoesNotSplitEvenlyIsAnError) {
  EXPECT_ERROR(train_on(4, options()),
               "Mesh::run: device 0 of 4 (axis 'data') failed: distribute::train_data_parallel: the global batch of 6 "
               "examples does not split evenly over the 4 devices of axis 'data'; choose a batch size that is a "
               "multiple of 4");
}

TEST(DataParallel, AFailingDeviceStopsEveryDeviceWithItsError) {
  const Data data;
  Mesh mesh(3, "data");
  const std::string message = within_deadline([&] {
    return testing::error_of([&] {
      mesh.run([&] {
        Replica replica;
        int calls = 0;
        const ShardLoss loss = [&](const BatchShard& s) {
          if (axis_index("data") == 1 && ++calls == 4) throw Error("my_loss: bad shard on device 1");
          return replica.shard_loss(data, s.examples, s.global_size());
        };
        train_data_parallel(replica.adam, kExamples, random::Key(65), loss, options(), "data");
      });
    });
  });
  EXPECT_EQ(message, "Mesh::run: device 1 of 3 (axis 'data') failed: my_loss: bad shard on device 1");
}

TEST(DataParallel, ANonFiniteLossOnOneShardStopsEveryDeviceAtThatStep) {
  const Data data;
  Mesh mesh(2, "data");
  const std::string message = within_deadline([&] {
    return testing::error_of([&] {
      mesh.run([&] {
        Replica replica;
        const ShardLoss loss = [&](const BatchShard& s) {
          Tensor l = replica.shard_loss(data, s.examples, s.global_size());
          if (axis_index("data") == 1 && replica.adam.steps_taken() == 2)
            l = l * std::numeric_limits<double>::quiet_NaN();
          return l;
        };
        train_data_parallel(replica.adam, kExamples, random::Key(65), loss, options(), "data");
      });
    });
  });
  // (NaN prints as "nan" or "-nan".)
  EXPECT_NE(message.find("device 0 of 2 (axis 'data') failed: nn::train: the loss is "), std::string::npos) << message;
  EXPECT_NE(message.find("nan at step 3 (epoch 1, minibatch 3)"), std::string::npos) << message;
}

TEST(DataParallel, OutsideAMeshRunIsAnError) {
  const Data data;
  Replica replica;
  EXPECT_ERROR(train_data_parallel(replica.adam, kExamples, random::Key(65), replica.loss(data), options(), "data"),
               "axis_index: axis 'data' is not available: no mesh is running on this thread");
}

}  // namespace
}  // namespace variate::distribute
