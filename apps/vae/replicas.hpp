#pragma once
// A model and its Adam optimizer on every device of a mesh (`variate train --devices N`: thread
// devices, or under mpirun N thread devices on every rank): identical replicas trained data-parallel
// (distribute/data_parallel.hpp), each device taking its slice of every minibatch, the gradients
// summed over the devices in one all-reduce per step. The VAE and the image Transformer train this
// way; the loss says what a model's share of a minibatch is (image_batches.hpp gives each device its
// rows of the minibatch binarized as a whole).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "variate/distribute/data_parallel.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/nn/optim.hpp"
#include "variate/nn/schedule.hpp"

namespace variate::cli::vae {

template <class Model>
class Replicas {
 public:
  /// `make` builds one replica; every call must give the same model (the same key). Under mpirun
  /// every rank runs `devices` devices and builds their replicas.
  Replicas(int devices, const std::function<std::unique_ptr<Model>()>& make, const nn::Schedule& learning_rate,
           const nn::AdamOptions& adam)
      : mesh_(distribute::launched_with_mpi() ? distribute::Mesh::mpi("data", devices)
                                              : distribute::Mesh(devices, "data")) {
    for (int d = 0; d < mesh_.local_device_count(); ++d)
      replicas_.push_back(std::make_unique<Replica>(make(), learning_rate, adam));
  }

  /// This process's first replica (every replica holds the same parameters).
  const Model& model() const { return *replicas_[0]->model; }
  std::int64_t parameter_count() const { return replicas_[0]->params.count(); }
  /// All devices, on every rank.
  int devices() const { return mesh_.size(); }
  /// Whether this process runs device 0, which writes the checkpoints (rank 0 under mpirun).
  bool writer() const { return mesh_.first_local_device() == 0; }

  /// The device's share of the global loss of a minibatch for its replica, at optimizer step `step`
  /// (for keys that change from step to step).
  using Loss = std::function<Tensor(const Model& model, const distribute::BatchShard& shard, std::int64_t step)>;

  /// Trains every replica up to options.epochs epochs over `examples` examples; options.batch_size
  /// must be a multiple of the device count. `key` is the run's key (it orders the minibatches).
  nn::TrainResult train(std::int64_t examples, random::Key key, const Loss& loss, const nn::TrainOptions& options) {
    const auto results = mesh_.run([&] {
      Replica& r = *replicas_[std::size_t(distribute::axis_index("data") - mesh_.first_local_device())];
      const distribute::ShardLoss shard_loss = [&](const distribute::BatchShard& shard) {
        return loss(*r.model, shard, r.adam.steps_taken());
      };
      return distribute::train_data_parallel(r.adam, examples, key, shard_loss, options, "data");
    });
    return results[0];  // the same on every device
  }

 private:
  struct Replica {
    Replica(std::unique_ptr<Model> m, const nn::Schedule& learning_rate, const nn::AdamOptions& options)
        : model(std::move(m)), params(*model), adam(params, learning_rate, options) {}
    std::unique_ptr<Model> model;
    nn::Parameters params;
    nn::Adam adam;
  };
  distribute::Mesh mesh_;
  std::vector<std::unique_ptr<Replica>> replicas_;
};

}  // namespace variate::cli::vae
