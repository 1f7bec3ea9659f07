#pragma once
// A small regression network trained data-parallel in tests/distribute (thread devices and MPI
// ranks) and on one device for reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "support/mesh_testing.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/distribute/data_parallel.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/nn/layers.hpp"
#include "variate/nn/linear.hpp"
#include "variate/nn/sequential.hpp"
#include "variate/random/samplers.hpp"

namespace variate::testing::data_parallel {

constexpr std::int64_t kExamples = 20;

/// Inputs and targets of the regression, the same in every replica and on every rank.
struct Data {
  Tensor x = random::normal(random::Key(61), Shape{kExamples, 3});
  Tensor y = random::normal(random::Key(62), Shape{kExamples, 1});
};

/// A 3-8-1 tanh network, initialised from one key: every replica starts identical.
struct Replica {
  nn::Sequential net;
  nn::Parameters params;
  nn::Adam adam;

  Replica() : params(build(net)), adam(params, 0.05) {}
  static nn::Sequential& build(nn::Sequential& net) {
    net.push(nn::Linear(3, 8, random::Key(63)));
    net.push(nn::Activation(nn::ActivationKind::tanh));
    net.push(nn::Linear(8, 1, random::Key(64)));
    return net;
  }

  /// The sum of squared errors over `examples`, divided by the global minibatch's size: the
  /// device's share of the minibatch's mean squared error.
  Tensor shard_loss(const Data& data, std::span<const std::int64_t> examples, std::int64_t global_size) const {
    const Tensor rows = Tensor::from(examples, Shape{std::int64_t(examples.size())});
    return sum(square(net(take(data.x, rows)) - take(data.y, rows))) / double(global_size);
  }
  distribute::ShardLoss loss(const Data& data) const {
    return [this, &data](const distribute::BatchShard& s) { return shard_loss(data, s.examples, s.global_size()); };
  }
  nn::BatchLoss one_device_loss(const Data& data) const {
    return [this, &data](std::span<const std::int64_t> batch) {
      return shard_loss(data, batch, std::int64_t(batch.size()));
    };
  }
  std::vector<Tensor> values() const {
    std::vector<Tensor> out;
    for (std::size_t i = 0; i < params.size(); ++i) out.push_back(params.value(i).clone());
    return out;
  }
};

/// 3 epochs of minibatches of 6: the last minibatch of each epoch holds 2 examples, so on 3 or 4
/// devices some shards of it are empty.
inline nn::TrainOptions options(std::int64_t epochs = 3) {
  nn::TrainOptions o;
  o.epochs = epochs;
  o.batch_size = 6;
  return o;
}

/// Trains on every device of `mesh`; returns the parameters of this process's first device, after
/// checking that its other devices hold the same.
inline std::vector<Tensor> train_on_mesh(distribute::Mesh& mesh, const nn::TrainOptions& o) {
  const Data data;
  const auto results = within_deadline([&] {
    return mesh.run([&] {
      Replica replica;
      distribute::train_data_parallel(replica.adam, kExamples, random::Key(65), replica.loss(data), o, "data");
      return replica.values();
    });
  });
  for (const auto& r : results)
    for (std::size_t i = 0; i < r.size(); ++i) EXPECT_TRUE(bitwise_equal(r[i], results[0][i])) << "replicas differ";
  return results[0];
}

/// The same training with nn::train on one device: the reference.
inline std::vector<Tensor> train_on_one_device(const nn::TrainOptions& o) {
  const Data data;
  Replica replica;
  nn::train(replica.adam, kExamples, random::Key(65), replica.one_device_loss(data), o);
  return replica.values();
}

}  // namespace variate::testing::data_parallel
