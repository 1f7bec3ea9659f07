#include "variate/distribute/shard.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "variate/autodiff/ops.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::distribute {

ShardRange shard_range(std::int64_t n, int index, int count) {
  VARIATE_CHECK(n >= 0 && count >= 1 && index >= 0 && index < count, "shard_range",
                "expected n >= 0 rows and 0 <= index < count, got n=", n, ", index=", index, ", count=", count);
  const std::int64_t base = n / count, extra = n % count;
  const std::int64_t begin = index * base + std::min<std::int64_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

ShardRange shard_range(std::int64_t n, std::string_view axis) {
  if (running_axis() == nullptr) return shard_range(n, 0, 1);
  return shard_range(n, axis_index(axis), axis_size(axis));
}

Tensor shard(const Tensor& x, std::string_view axis, int dim) {
  VARIATE_CHECK(x.defined() && x.rank() >= 1, "shard", "expected a tensor with at least one dimension to split, got ",
                x.defined() ? x.shape().str() : std::string("an undefined tensor"));
  const int d = dim < 0 ? dim + x.rank() : dim;
  VARIATE_CHECK(d >= 0 && d < x.rank(), "shard", "dim ", dim, " is out of range for shape ", x.shape());
  if (running_axis() == nullptr) return x;
  const ShardRange r = shard_range(x.dim(d), axis);
  return slice(x, d, r.begin, r.end);
}

struct ShardedData::Shards {
  Tensor whole;
  std::string axis;
  int dim = 0;
  std::mutex mutex;
  std::map<std::pair<int, int>, Tensor> cut;  // (device, device count) -> shard
};

ShardedData::ShardedData(Tensor whole, std::string axis, int dim) : shards_(std::make_shared<Shards>()) {
  VARIATE_CHECK(whole.defined() && whole.rank() >= 1, "ShardedData",
                "expected a tensor with at least one dimension to split, got ",
                whole.defined() ? whole.shape().str() : std::string("an undefined tensor"));
  const int d = dim < 0 ? dim + whole.rank() : dim;
  VARIATE_CHECK(d >= 0 && d < whole.rank(), "ShardedData", "dim ", dim, " is out of range for shape ", whole.shape());
  shards_->whole = std::move(whole);
  shards_->axis = std::move(axis);
  shards_->dim = d;
}

const Tensor& ShardedData::whole() const {
  VARIATE_CHECK(shards_ != nullptr, "ShardedData", "the data set is empty (default-constructed)");
  return shards_->whole;
}

Tensor ShardedData::local() const {
  const Tensor& x = whole();
  if (running_axis() == nullptr) return x;
  const std::pair key(axis_index(shards_->axis), axis_size(shards_->axis));
  std::lock_guard lock(shards_->mutex);
  auto it = shards_->cut.find(key);
  if (it == shards_->cut.end()) {
    const ShardRange r = shard_range(x.dim(shards_->dim), key.first, key.second);
    it = shards_->cut.emplace(key, slice(x, shards_->dim, r.begin, r.end)).first;
  }
  return it->second;
}

}  // namespace variate::distribute
