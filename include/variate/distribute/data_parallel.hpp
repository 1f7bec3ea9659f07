#pragma once
// Data-parallel training on a mesh (issue 24): every device holds a replica of the model and of its
// optimizer, takes its slice of each global minibatch, and the gradients of all parameters are
// summed over the devices in one fused psum per step (fused_psum.hpp), so every replica takes the
// same optimizer step and the replicas stay identical, bit for bit. The loop, checkpoints and
// progress are nn::train's; call it inside Mesh::run, on every device, as any SPMD program:
//
//   distribute::Mesh mesh(2, "data");                   // or Mesh::mpi("data") under mpirun
//   mesh.run([&] {
//     Mlp model(random::fold_in(key, "init"));          // the same initial replica on every device
//     nn::Parameters params(model);
//     nn::Adam adam(params, 1e-3);
//     distribute::train_data_parallel(adam, n, key, [&](const distribute::BatchShard& shard) {
//       const Tensor rows = Tensor::from(shard.examples, Shape{std::int64_t(shard.examples.size())});
//       // this device's share of the global minibatch's mean loss
//       return sum(square(model(take(x, rows)) - take(y, rows))) / double(shard.global_size());
//     }, options, "data");
//   });
//
// Equal to one device, to rounding: the global loss is the sum over devices of the shards' losses,
// so the summed gradient is that of the one-device minibatch, with its sums split differently: each
// device reduces its own examples, then the devices' totals are added in device order (0, 1, ...).
// Runs on the same number of devices are bitwise identical whether the devices are threads or MPI
// ranks (the collectives' guarantee). Random draws inside the loss must depend on the example, not
// on the device, for the equality to hold: key them by the example's index or by its position in
// the global minibatch (shard.offset), or draw for the whole global minibatch and keep the shard's
// rows. The loss runs in a LocalProgramScope (local_program.hpp): log joints and ELBOs in it
// are the device's own model, not one model split over the mesh.
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "variate/nn/train.hpp"

namespace variate::distribute {

/// One device's part of a global minibatch.
struct BatchShard {
  /// This device's examples (indices into the data set): a contiguous slice of the global
  /// minibatch. Empty when an epoch's last minibatch holds fewer examples than there are devices.
  std::span<const std::int64_t> examples;
  /// The position of examples[0] in the global minibatch.
  std::int64_t offset = 0;
  /// The global minibatch, of which `examples` is a part.
  std::span<const std::int64_t> global;
  std::int64_t global_size() const { return std::int64_t(global.size()); }
};

/// This device's share of the loss of a global minibatch: the global loss is the sum of the
/// devices' shares (for a mean loss, the sum over the shard's examples / shard.global_size()).
using ShardLoss = std::function<Tensor(const BatchShard& shard)>;

/// Device `index`'s slice of `batch` over `count` devices: contiguous, as even as possible, the
/// first batch.size() % count devices holding one example more.
BatchShard shard_of_batch(std::span<const std::int64_t> batch, int index, int count);

/// The time spent in the all-reduce of the gradients, for measurements (bench/).
struct AllReduceStats {
  std::int64_t calls = 0;
  double seconds = 0;      // in psum_fused, copies into and out of the buffer included
  std::int64_t bytes = 0;  // of the fused buffer, summed over the calls
};

/// On every device of the running mesh's `axis`: the global minibatch's loss (the psum of the
/// shards' losses, returned) and its gradient (the psum of the shards' gradients, written to
/// grads[i] for params.value(i)), the loss and every gradient summed in one psum_fused. The
/// parameters must be of one floating dtype. When `stats` is not null, the all-reduce is timed
/// into it.
double data_parallel_value_and_grad(nn::Parameters& params, std::span<const std::int64_t> batch, const ShardLoss& loss,
                                    std::span<Tensor> grads, std::string_view axis, AllReduceStats* stats = nullptr);

/// nn::train on every device of the running mesh's `axis`, each step's gradient computed by
/// data_parallel_value_and_grad. options.batch_size is the global minibatch and must be a multiple
/// of the number of devices (an epoch's last, smaller minibatch is split as evenly as it goes).
/// Device 0 alone writes the checkpoint and the progress lines; every device resumes from the
/// checkpoint, which holds no device count, so a run written on K devices resumes on any other.
/// The checkpoint file must be visible to every rank. Ends with a check that every device resumed
/// from and reached the same step (an error on every device otherwise).
nn::TrainResult train_data_parallel(nn::Optimizer& optimizer, std::int64_t examples, random::Key key,
                                    const ShardLoss& loss, const nn::TrainOptions& options, std::string_view axis,
                                    AllReduceStats* stats = nullptr);

}  // namespace variate::distribute
