#pragma once
// Splitting data over the devices of a mesh axis (issue 5, item 4). Shards are contiguous and
// ragged: n rows over k devices give the first n % k devices one row more than the others, so no
// padding or mask is needed and a sharded log density sums exactly the unsharded terms.
//
//   Tensor x_i = distribute::shard(x, "data");     // inside Mesh::run: this device's rows (a copy)
//
//   distribute::ShardedData x_sharded(x, "data");  // a model's data: each shard is cut once
//   auto model = [x_sharded] { ... matmul(x_sharded.local(), w) ... };
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "variate/tensor/tensor.hpp"

namespace variate::distribute {

/// Rows [begin, end) of one shard.
struct ShardRange {
  std::int64_t begin = 0, end = 0;
  std::int64_t size() const { return end - begin; }
};

/// Shard `index` of `count` when `n` rows are split as evenly as possible.
ShardRange shard_range(std::int64_t n, int index, int count);

/// This device's rows of `n` over the running mesh's `axis`; all n outside a mesh run.
ShardRange shard_range(std::int64_t n, std::string_view axis);

/// This device's shard of x along `dim`, over the running mesh's `axis`; outside a mesh run, all of
/// x (one device holds everything), so the same model code runs unsharded.
Tensor shard(const Tensor& x, std::string_view axis, int dim = 0);

/// A data set split over a mesh axis, for models that read it at every evaluation: each device's
/// shard is cut at its first use and kept, so the data are not copied per leapfrog step. Copies
/// share the shards; local() may be called from every device thread at once.
class ShardedData {
 public:
  ShardedData() = default;
  ShardedData(Tensor whole, std::string axis, int dim = 0);
  /// This device's shard over the running mesh's axis; the whole tensor outside a mesh run.
  Tensor local() const;
  const Tensor& whole() const;

  struct Shards;

 private:
  std::shared_ptr<Shards> shards_;
};

}  // namespace variate::distribute
