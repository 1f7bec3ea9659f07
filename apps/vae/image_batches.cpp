#include "image_batches.hpp"

#include "variate/autodiff/ops.hpp"
#include "variate/random/samplers.hpp"

namespace variate::cli::vae {

Tensor binarize(const Tensor& gray, random::Key key) {
  return cast(lt(random::uniform(key, gray.shape(), gray.dtype()), gray), gray.dtype());
}

Tensor binarized_shard(const Tensor& images, const distribute::BatchShard& shard, random::Key key) {
  const Tensor rows = Tensor::from(shard.global, Shape{shard.global_size()});
  const Tensor all = binarize(take(images, rows), key);
  const std::int64_t size = std::int64_t(shard.examples.size());
  return size == shard.global_size() ? all : slice(all, 0, shard.offset, shard.offset + size);
}

}  // namespace variate::cli::vae
