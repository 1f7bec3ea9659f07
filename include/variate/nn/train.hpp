#pragma once
// A minibatch training loop: each epoch visits the examples in an order drawn from the key and the
// epoch number, takes one optimizer step per minibatch, reports progress, and writes checkpoints
// (parameters, optimizer state, step count, key) that a later run with the same arguments resumes
// from, ending with bit-identical parameters. A non-finite loss stops training with an error naming
// the step; the last checkpoint written before it stays on disk.
//
//   nn::Parameters params(mlp);
//   nn::Adam adam(params, 1e-3);
//   nn::TrainOptions options;
//   options.epochs = 10, options.batch_size = 64, options.checkpoint = "mlp.train";
//   options.progress = &std::cerr;
//   nn::train(adam, n, random::Key(0), [&](std::span<const std::int64_t> batch) {
//     const Tensor rows = Tensor::from(batch, Shape{std::int64_t(batch.size())});
//     return mean(square(mlp(take(x, rows)) - take(y, rows)));
//   }, options);
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <span>
#include <vector>

#include "variate/nn/optim.hpp"
#include "variate/random/key.hpp"

namespace variate::nn {

/// The order of the examples 0..n-1 in epoch `epoch`: a uniformly random permutation, the ranks of
/// n uniform draws under fold_in(key, epoch), so that it depends on nothing but its arguments.
std::vector<std::int64_t> epoch_order(random::Key key, std::int64_t epoch, std::int64_t n);

/// Options of the training loop: epochs, minibatch size, gradient clipping, checkpoints, progress.
struct TrainOptions {
  std::int64_t epochs = 1;
  /// Examples per step; an epoch's last minibatch holds what is left.
  std::int64_t batch_size = 32;
  /// When > 0, the gradients are clipped to this joint norm before each step (clip_grad_norm).
  double max_grad_norm = 0;
  /// The checkpoint file (none when empty): written every `checkpoint_every` steps and after the
  /// last; when it exists at the start, training resumes from it.
  std::filesystem::path checkpoint;
  std::int64_t checkpoint_every = 100;
  /// Where progress lines go (none when null): one at the end of each epoch, and every
  /// `progress_every` steps when that is > 0.
  std::ostream* progress = nullptr;
  std::int64_t progress_every = 0;
  /// When false, a checkpoint is resumed from but never written: the replicas of a data-parallel
  /// run (distribute/data_parallel.hpp) hold the same state, and one of them writes it.
  bool write_checkpoints = true;
};

/// What a training run did: the steps taken, where it resumed, the last epoch's mean loss.
struct TrainResult {
  /// Steps taken in all, counting those before a resumed checkpoint.
  std::int64_t steps = 0;
  /// The step the run resumed from (0 for a fresh start).
  std::int64_t resumed_from = 0;
  /// The mean minibatch loss over the last epoch's steps taken in this run.
  double epoch_loss = 0;
};

/// The loss of a minibatch, given its example indices; computed from the optimizer's parameters.
using BatchLoss = std::function<Tensor(std::span<const std::int64_t> batch)>;

/// Trains the optimizer's parameters for options.epochs epochs over `examples` examples.
TrainResult train(Optimizer& optimizer, std::int64_t examples, random::Key key, const BatchLoss& loss,
                  const TrainOptions& options);

/// The loss of a minibatch and its gradient: writes grads[i], the gradient for the optimizer's
/// parameter i, and returns the loss. train computes it with value_and_grad of a BatchLoss; a
/// data-parallel run (distribute/data_parallel.hpp) splits the minibatch over devices instead.
using BatchGradient = std::function<double(std::span<const std::int64_t> batch, std::span<Tensor> grads)>;

/// train with each step's loss and gradient computed by `gradient`.
TrainResult train_with_gradient(Optimizer& optimizer, std::int64_t examples, random::Key key,
                                const BatchGradient& gradient, const TrainOptions& options);

}  // namespace variate::nn
