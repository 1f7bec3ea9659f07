// The training loop: keyed epoch orders, a run stopped and resumed from its checkpoint ending with
// the parameters of an uninterrupted run, a gradient supplied by the caller and a replica that
// resumes without writing checkpoints, a NaN loss that names its step and keeps the last good
// checkpoint, and the progress lines.
#include "variate/nn/train.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/nn/checkpoint.hpp"
#include "variate/nn/linear.hpp"
#include "variate/random/samplers.hpp"

namespace variate::nn {
namespace {

using variate::testing::ScratchDir;

TEST(EpochOrder, APermutationFromTheKeyAndEpoch) {
  const std::vector<std::int64_t> a = epoch_order(random::Key(1), 0, 50);
  std::vector<std::int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < 50; ++i) EXPECT_EQ(sorted[std::size_t(i)], i);
  EXPECT_EQ(epoch_order(random::Key(1), 0, 50), a);
  EXPECT_NE(epoch_order(random::Key(1), 1, 50), a);
  EXPECT_NE(epoch_order(random::Key(2), 0, 50), a);
  EXPECT_EQ(epoch_order(random::Key(1), 3, 1), std::vector<std::int64_t>{0});
}

// Linear regression of y on 3 features, 20 examples: the rows of a minibatch taken from x and y.
struct Regression {
  Linear model{3, 1, random::Key(5)};
  Tensor x = random::normal(random::Key(6), Shape{20, 3});
  Tensor y = random::normal(random::Key(7), Shape{20, 1});
  Tensor batch_loss(std::span<const std::int64_t> batch) const {
    const Tensor rows = Tensor::from(batch, Shape{std::int64_t(batch.size())});
    return mean(square(model(take(x, rows)) - take(y, rows)));
  }
};

TrainOptions options_for(const std::string& checkpoint) {
  TrainOptions options;
  options.epochs = 3;
  options.batch_size = 6;  // 4 minibatches an epoch, the last of 2 examples
  options.checkpoint = checkpoint;
  options.checkpoint_every = 3;
  return options;
}

TEST(Train, AResumedRunEndsWithTheUninterruptedRunsParameters) {
  ScratchDir dir("train_resume");
  Regression straight;
  Parameters ps(straight.model);
  Adam adam(ps, 0.05);
  const TrainResult full = train(
      adam, 20, random::Key(9), [&](auto batch) { return straight.batch_loss(batch); },
      options_for(dir / "straight.ckpt"));
  EXPECT_EQ(full.steps, 12);
  EXPECT_EQ(full.resumed_from, 0);

  {  // stopped by an exception in step 8: the checkpoint holds step 6
    Regression first;
    Parameters pf(first.model);
    Adam adam_first(pf, 0.05);
    int calls = 0;
    EXPECT_THROW(train(
                     adam_first, 20, random::Key(9),
                     [&](auto batch) {
                       if (++calls == 8) throw std::runtime_error("stopped");
                       return first.batch_loss(batch);
                     },
                     options_for(dir / "stopped.ckpt")),
                 std::runtime_error);
  }
  Regression second;  // a new process: fresh modules, the same arguments
  Parameters pr(second.model);
  Adam adam_second(pr, 0.05);
  const TrainResult resumed = train(
      adam_second, 20, random::Key(9), [&](auto batch) { return second.batch_loss(batch); },
      options_for(dir / "stopped.ckpt"));
  EXPECT_EQ(resumed.resumed_from, 6);
  EXPECT_EQ(resumed.steps, 12);
  EXPECT_EQ(adam_second.steps_taken(), 12);
  for (std::int64_t k = 0; k < 3; ++k) EXPECT_EQ(second.model.weight.at(k), straight.model.weight.at(k)) << k;
  EXPECT_EQ(second.model.bias.at(0), straight.model.bias.at(0));

  // Another key would give other minibatches: resuming is refused.
  EXPECT_ERROR(train(
                   adam_second, 20, random::Key(10), [&](auto batch) { return second.batch_loss(batch); },
                   options_for(dir / "stopped.ckpt")),
               "another key, number of examples or batch size");
}

TEST(Train, WithAGradientOfItsOwnAndWithoutWritingCheckpoints) {
  ScratchDir dir("train_gradient");
  Regression straight;
  Parameters ps(straight.model);
  Adam adam(ps, 0.05);
  train(
      adam, 20, random::Key(9), [&](auto batch) { return straight.batch_loss(batch); }, options_for(""));

  // The gradient computed by the caller: the same steps as train's value_and_grad.
  Regression own;
  Parameters po(own.model);
  Adam adam_own(po, 0.05);
  std::int64_t calls = 0;
  const BatchGradient gradient = [&](std::span<const std::int64_t> batch, std::span<Tensor> grads) {
    ++calls;
    return value_and_grad(
               po, [&] { return own.batch_loss(batch); }, grads)
        .item();
  };
  TrainOptions options = options_for(dir / "never.ckpt");
  options.write_checkpoints = false;
  const TrainResult result = train_with_gradient(adam_own, 20, random::Key(9), gradient, options);
  EXPECT_EQ(result.steps, 12);
  EXPECT_EQ(calls, 12);
  EXPECT_FALSE(std::filesystem::exists(dir / "never.ckpt"));
  for (std::int64_t k = 0; k < 3; ++k) EXPECT_EQ(own.model.weight.at(k), straight.model.weight.at(k)) << k;

  // A replica that does not write still resumes from the checkpoint another one wrote.
  options.checkpoint = dir / "written.ckpt";
  options.write_checkpoints = true;
  options.epochs = 1;
  Regression writer;
  Parameters pw(writer.model);
  Adam adam_writer(pw, 0.05);
  train(
      adam_writer, 20, random::Key(9), [&](auto batch) { return writer.batch_loss(batch); }, options);
  options.write_checkpoints = false;
  options.epochs = 3;
  Regression reader;
  Parameters pr(reader.model);
  Adam adam_reader(pr, 0.05);
  const TrainResult resumed = train(
      adam_reader, 20, random::Key(9), [&](auto batch) { return reader.batch_loss(batch); }, options);
  EXPECT_EQ(resumed.resumed_from, 4);
  EXPECT_EQ(resumed.steps, 12);
  EXPECT_EQ(load_tensors(dir / "written.ckpt")[0].value.item(), 4.0);  // not rewritten
  for (std::int64_t k = 0; k < 3; ++k) EXPECT_EQ(reader.model.weight.at(k), straight.model.weight.at(k)) << k;
}

TEST(Train, ANonFiniteLossNamesTheStepAndKeepsTheLastGoodCheckpoint) {
  ScratchDir dir("train_nan");
  Regression r;
  Parameters params(r.model);
  Sgd sgd(params, 0.1);
  int calls = 0;
  TrainOptions options = options_for(dir / "run.ckpt");
  options.checkpoint_every = 2;
  auto loss = [&](std::span<const std::int64_t> batch) {
    const Tensor l = r.batch_loss(batch);
    return ++calls == 5 ? l * std::numeric_limits<double>::quiet_NaN() : l;
  };
  EXPECT_ERROR(train(sgd, 20, random::Key(1), loss, options),
               "at step 5 (epoch 2, minibatch 1); the parameters are those after step 4, and the last good "
               "checkpoint, after step 4, stays in " +
                   (dir / "run.ckpt"));
  const std::vector<NamedTensor> saved = load_tensors(dir / "run.ckpt");
  EXPECT_EQ(saved[0].name, "train.step");
  EXPECT_EQ(saved[0].value.item(), 4.0);
  EXPECT_EQ(saved[2].name, "param.weight");
  for (std::int64_t k = 0; k < 3; ++k) EXPECT_EQ(saved[2].value.at(k), r.model.weight.at(k));
  EXPECT_EQ(sgd.steps_taken(), 4);
}

TEST(Train, ProgressLinesPerEpoch) {
  Regression r;
  Parameters params(r.model);
  Sgd sgd(params, 0.1);
  std::ostringstream progress;
  TrainOptions options;
  options.epochs = 2;
  options.batch_size = 5;
  options.progress = &progress;
  const TrainResult result = train(
      sgd, 20, random::Key(1), [&](auto batch) { return r.batch_loss(batch); }, options);
  EXPECT_EQ(result.steps, 8);
  const std::string text = progress.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_NE(text.find("epoch 1/2  step 4/8  loss "), std::string::npos) << text;
  EXPECT_NE(text.find("epoch 2/2  step 8/8  loss "), std::string::npos) << text;
  EXPECT_NE(text.find(" examples/s  0s left\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace variate::nn
