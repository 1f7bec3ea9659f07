#pragma once
// The binarized minibatches the image models train on (dynamic binarization: each step draws new
// 0/1 images from the gray levels).
#include "variate/distribute/data_parallel.hpp"
#include "variate/random/key.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::cli::vae {

/// x's images drawn as 0/1 pixels, each 1 with probability its gray level in [0, 1], from `key`
/// (dynamic binarization: training draws afresh at every step, so each epoch sees new images).
Tensor binarize(const Tensor& gray, random::Key key);

/// This device's rows of the global minibatch of `images` (n, pixels), the whole minibatch binarized
/// with `key`: the images are those of a one-device run whatever the device count.
Tensor binarized_shard(const Tensor& images, const distribute::BatchShard& shard, random::Key key);

}  // namespace variate::cli::vae
