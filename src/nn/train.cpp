#include "variate/nn/train.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>

#include "variate/core/error.hpp"
#include "variate/nn/checkpoint.hpp"
#include "variate/random/samplers.hpp"

namespace variate::nn {

std::vector<std::int64_t> epoch_order(random::Key key, std::int64_t epoch, std::int64_t n) {
  VARIATE_CHECK(n >= 0 && epoch >= 0, "nn::epoch_order", "n and epoch must be >= 0, got n = ", n, ", epoch = ", epoch);
  std::vector<std::int64_t> order(std::size_t(n), 0);
  std::iota(order.begin(), order.end(), 0);
  if (n < 2) return order;
  const Tensor u = random::uniform(random::fold_in(key, std::uint64_t(epoch)), Shape{n});
  const double* v = u.data<double>();
  // Ties among f64 uniforms are all but impossible; the index breaks them all the same.
  std::sort(order.begin(), order.end(),
            [&](std::int64_t a, std::int64_t b) { return v[a] < v[b] || (v[a] == v[b] && a < b); });
  return order;
}

namespace {

constexpr const char* kStep = "train.step";
constexpr const char* kRun = "train.run";  // key words, examples, batch size: what must match to resume
constexpr const char* kParamPrefix = "param.";

Tensor run_identity(random::Key key, std::int64_t examples, std::int64_t batch_size) {
  return Tensor::from(std::vector<std::int64_t>{key.words[0], key.words[1], examples, batch_size});
}

void write_checkpoint(const std::filesystem::path& path, Optimizer& optimizer, std::int64_t step, const Tensor& run) {
  Parameters& params = optimizer.parameters();
  std::vector<NamedTensor> tensors;
  tensors.push_back({kStep, Tensor::from(std::vector<std::int64_t>{step}, Shape{})});
  tensors.push_back({kRun, run});
  for (std::size_t i = 0; i < params.size(); ++i) tensors.push_back({kParamPrefix + params.name(i), params.value(i)});
  for (NamedTensor& t : optimizer.state()) tensors.push_back(std::move(t));
  save_tensors(path, tensors);
}

/// Restores the parameters and optimizer state from the checkpoint; returns its step count.
std::int64_t resume(const std::filesystem::path& path, Optimizer& optimizer, const Tensor& run) {
  const std::string op = "nn::train: resuming from " + path.string();
  const std::vector<NamedTensor> tensors = load_tensors(path);
  Parameters& params = optimizer.parameters();
  VARIATE_CHECK(tensors.size() >= 2 + params.size() && tensors[0].name == kStep && tensors[1].name == kRun, op,
                "not a training checkpoint (expected ", kStep, ", ", kRun, " and ", params.size(), " parameters)");
  VARIATE_CHECK(tensors[1].value.shape() == run.shape() && tensors[1].value.dtype() == DType::i64 &&
                    tensors[1].value.to_vector<std::int64_t>() == run.to_vector<std::int64_t>(),
                op, "the checkpoint was written by a run with another key, number of examples or batch size");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const NamedTensor& saved = tensors[2 + i];
    const Tensor& p = params.value(i);
    VARIATE_CHECK(saved.name == kParamPrefix + params.name(i) && saved.value.shape() == p.shape() &&
                      saved.value.dtype() == p.dtype(),
                  op, "record ", 2 + i, " must be '", kParamPrefix, params.name(i), "' (", p.dtype(), ", ",
                  p.shape().str(), "), got '", saved.name, "'");
  }
  optimizer.load_state(std::span<const NamedTensor>(tensors).subspan(2 + params.size()));
  for (std::size_t i = 0; i < params.size(); ++i)
    std::memcpy(params.value(i).raw(), tensors[2 + i].value.raw(), params.value(i).nbytes());
  return tensors[0].value.data<std::int64_t>()[0];
}

std::string duration(double seconds) {
  const auto s = std::int64_t(std::llround(seconds));
  std::ostringstream out;
  if (s >= 3600) out << s / 3600 << "h ";
  if (s >= 60) out << (s / 60) % 60 << "m ";
  out << s % 60 << "s";
  return out.str();
}

}  // namespace

TrainResult train(Optimizer& optimizer, std::int64_t examples, random::Key key, const BatchLoss& loss,
                  const TrainOptions& options) {
  Parameters& params = optimizer.parameters();
  const BatchGradient gradient = [&](std::span<const std::int64_t> batch, std::span<Tensor> grads) {
    return value_and_grad(
               params, [&] { return loss(batch); }, grads)
        .item();
  };
  return train_with_gradient(optimizer, examples, key, gradient, options);
}

TrainResult train_with_gradient(Optimizer& optimizer, std::int64_t examples, random::Key key,
                                const BatchGradient& gradient, const TrainOptions& options) {
  const char* op = "nn::train";
  VARIATE_CHECK(examples > 0, op, "the number of examples must be > 0, got ", examples);
  VARIATE_CHECK(options.epochs >= 0, op, "epochs must be >= 0, got ", options.epochs);
  VARIATE_CHECK(options.batch_size > 0, op, "batch_size must be > 0, got ", options.batch_size);
  VARIATE_CHECK(options.checkpoint_every > 0, op, "checkpoint_every must be > 0, got ", options.checkpoint_every);
  Parameters& params = optimizer.parameters();
  const Tensor run = run_identity(key, examples, options.batch_size);
  const bool checkpoints = !options.checkpoint.empty();
  const bool writes = checkpoints && options.write_checkpoints;

  TrainResult result;
  if (checkpoints && std::filesystem::exists(options.checkpoint))
    result.resumed_from = resume(options.checkpoint, optimizer, run);
  result.steps = result.resumed_from;
  std::int64_t last_checkpoint = result.resumed_from;

  const std::int64_t per_epoch = (examples + options.batch_size - 1) / options.batch_size;
  const std::int64_t total = options.epochs * per_epoch;
  std::vector<Tensor> grads(params.size());
  std::vector<std::int64_t> order;
  const auto start = std::chrono::steady_clock::now();
  std::int64_t seen = 0;  // examples this run
  double loss_sum = 0;
  std::int64_t loss_count = 0;

  for (std::int64_t step = result.resumed_from; step < total; ++step) {
    const std::int64_t epoch = step / per_epoch, b = step % per_epoch;
    if (order.empty() || b == 0) order = epoch_order(key, epoch, examples);
    if (b == 0) loss_sum = 0, loss_count = 0;
    const std::int64_t first = b * options.batch_size, size = std::min(options.batch_size, examples - first);
    const std::span<const std::int64_t> batch(order.data() + first, std::size_t(size));
    const double value = gradient(batch, grads);
    if (!std::isfinite(value)) {
      std::ostringstream why;
      why << "the loss is " << value << " at step " << step + 1 << " (epoch " << epoch + 1 << ", minibatch " << b + 1
          << "); the parameters are those after step " << step;
      if (checkpoints && last_checkpoint > 0)
        why << ", and the last good checkpoint, after step " << last_checkpoint << ", stays in "
            << options.checkpoint.string();
      detail::fail(op, ": ", why.str());
    }
    if (options.max_grad_norm > 0) clip_grad_norm(grads, options.max_grad_norm);
    optimizer.step(grads);
    seen += size;
    loss_sum += value;
    ++loss_count;
    result.epoch_loss = loss_sum / double(loss_count);
    result.steps = step + 1;
    if (writes && (result.steps % options.checkpoint_every == 0 || result.steps == total)) {
      write_checkpoint(options.checkpoint, optimizer, result.steps, run);
      last_checkpoint = result.steps;
    }
    const bool epoch_end = b + 1 == per_epoch;
    if (options.progress != nullptr &&
        (epoch_end || (options.progress_every > 0 && result.steps % options.progress_every == 0))) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double rate = double(seen) / std::max(elapsed, 1e-9);
      const double left = double(total - result.steps) * double(options.batch_size) / rate;
      *options.progress << "epoch " << epoch + 1 << "/" << options.epochs << "  step " << result.steps << "/" << total
                        << "  loss " << result.epoch_loss << "  " << std::llround(rate) << " examples/s  "
                        << duration(left) << " left\n";
    }
  }
  return result;
}

}  // namespace variate::nn
