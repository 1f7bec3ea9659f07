#include "variate/distribute/data_parallel.hpp"

#include <array>
#include <chrono>
#include <vector>

#include "variate/core/error.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/fused_psum.hpp"
#include "variate/distribute/local_program.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distribute/shard.hpp"

namespace variate::distribute {

BatchShard shard_of_batch(std::span<const std::int64_t> batch, int index, int count) {
  const ShardRange r = shard_range(std::int64_t(batch.size()), index, count);
  return {batch.subspan(std::size_t(r.begin), std::size_t(r.size())), r.begin, batch};
}

double data_parallel_value_and_grad(nn::Parameters& params, std::span<const std::int64_t> batch, const ShardLoss& loss,
                                    std::span<Tensor> grads, std::string_view axis, AllReduceStats* stats) {
  const BatchShard shard = shard_of_batch(batch, axis_index(axis), axis_size(axis));
  const Tensor value = nn::value_and_grad(
      params,
      [&] {
        // Each device's loss is its own replica's model of its shard; the devices are combined below.
        const LocalProgramScope local;
        return loss(shard);
      },
      grads);
  // The loss rides in the gradients' buffer: one exchange per step in all.
  std::vector<Tensor> parts(grads.begin(), grads.end());
  const DType dtype = parts.empty() ? value.dtype() : parts[0].dtype();
  parts.push_back(Tensor::full(Shape{1}, value.item(), dtype));
  const auto start = std::chrono::steady_clock::now();
  psum_fused(parts, axis);
  if (stats != nullptr) {
    stats->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++stats->calls;
    for (const Tensor& p : parts) stats->bytes += std::int64_t(p.nbytes());
  }
  for (std::size_t i = 0; i < grads.size(); ++i) grads[i] = std::move(parts[i]);
  return parts.back().item();
}

nn::TrainResult train_data_parallel(nn::Optimizer& optimizer, std::int64_t examples, random::Key key,
                                    const ShardLoss& loss, const nn::TrainOptions& options, std::string_view axis,
                                    AllReduceStats* stats) {
  const char* op = "distribute::train_data_parallel";
  const int device = axis_index(axis), devices = axis_size(axis);
  VARIATE_CHECK(options.batch_size > 0 && options.batch_size % devices == 0, op, "the global batch of ",
                options.batch_size, " examples does not split evenly over the ", devices, " devices of axis '", axis,
                "'; choose a batch size that is a multiple of ", devices);
  nn::TrainOptions local = options;
  if (device != 0) {
    local.write_checkpoints = false;
    local.progress = nullptr;
  }
  nn::Parameters& params = optimizer.parameters();
  const nn::BatchGradient gradient = [&](std::span<const std::int64_t> batch, std::span<Tensor> grads) {
    return data_parallel_value_and_grad(params, batch, loss, grads, axis, stats);
  };
  const nn::TrainResult result = nn::train_with_gradient(optimizer, examples, key, gradient, local);
  // Also a barrier: device 0 has written its last checkpoint before any device returns, so a device
  // that calls train_data_parallel again resumes from that checkpoint, not from an older one.
  std::array<double, 2> steps = {double(result.resumed_from), double(result.steps)};
  psum_in_place(steps, axis, "train_data_parallel (steps)");
  VARIATE_CHECK(
      steps[0] == double(devices) * double(result.resumed_from) && steps[1] == double(devices) * double(result.steps),
      op, "device ", device, " resumed from step ", result.resumed_from, " and reached step ", result.steps,
      " but the devices' totals are ", steps[0], " and ", steps[1], "; every device must see the same checkpoint (",
      options.checkpoint.string(), ")");
  return result;
}

}  // namespace variate::distribute
