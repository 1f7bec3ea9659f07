#pragma once
// The VAE and its Adam optimizer on every device of a thread mesh (`variate train --devices N`):
// identical replicas trained data-parallel (distribute/data_parallel.hpp), each device taking its
// slice of every minibatch, the gradients summed over the devices in one all-reduce per step.
//
// Draws: each step binarizes the whole minibatch from the step's key and every device keeps its
// rows, so the images are those of a one-device run whatever the device count. The bound's noise is
// drawn per device, on its own rows, from the step's key folded with the slice's position, so runs on
// different device counts follow different (equally valid) noise; on one device it is exactly the
// one-device run's. A checkpoint resumes on any device count.
#include <cstdint>
#include <memory>
#include <vector>

#include "networks.hpp"
#include "programs.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/nn/train.hpp"

namespace variate::cli::vae {

class Replicas {
 public:
  /// `layout`: the IAF posterior's layers (all on the replica's own device).
  Replicas(int devices, const Architecture& architecture, PosteriorKind posterior, random::Key init_key,
           double learning_rate, const FlowLayout& layout);
  ~Replicas();

  /// Device 0's replica (the others hold the same parameters).
  const Vae& vae() const;
  std::int64_t parameter_count() const;
  int devices() const { return mesh_.size(); }

  /// Trains every replica up to options.epochs epochs over `images` (gray levels, binarized at each
  /// step), minimizing the negative bound per image; options.batch_size must be a multiple of the
  /// device count. `key` is the run's key (minibatches, binarization, the bound's noise).
  nn::TrainResult train(const Tensor& images, const Bound& bound, random::Key key, const nn::TrainOptions& options);

 private:
  struct Replica;
  distribute::Mesh mesh_;
  std::vector<std::unique_ptr<Replica>> replicas_;
};

}  // namespace variate::cli::vae
