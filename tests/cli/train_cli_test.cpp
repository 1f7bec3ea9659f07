// End-to-end tests of `variate train` (the VAE) on the embedded digits with a tiny configuration:
// a resumed run ends with the parameters of an uninterrupted one, bit for bit (with the Gaussian
// and the IAF posterior); the IAF posterior raises the bound; its flow split over devices trains the
// same VAE; data-parallel training on 2 devices, resumed on one; randomized autodiff shrinks the
// tape; the files; the help; and bad options, missing data and a checkpoint of other options give
// one clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/nn/checkpoint.hpp"

namespace {

using variate::testing::run_cli;

// 300 training images in minibatches of 50, 20 test images scored, no importance-sampled NLL.
const std::string kTiny =
    "train --model vae-digits --train-images 300 --batch 50 --eval-images 20 --eval-samples 0 --seed 3 ";

TEST(TrainCli, AResumedRunEndsWithTheParametersOfAnUninterruptedOne) {
  const variate::testing::ScratchDir dir("train_resume");
  const std::string whole = dir / "whole", split = dir / "split";
  const auto r = run_cli(kTiny + "--epochs 2 --output-dir " + whole);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto first = run_cli(kTiny + "--epochs 1 --output-dir " + split);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto second = run_cli(kTiny + "--epochs 2 --output-dir " + split);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("resumed from " + split + "/checkpoint after epoch 1"), std::string::npos)
      << second.output;

  const auto a = variate::nn::load_tensors(whole + "/checkpoint"), b = variate::nn::load_tensors(split + "/checkpoint");
  ASSERT_EQ(a.size(), b.size());
  int parameters = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].name, b[i].name);
    ASSERT_EQ(a[i].value.shape(), b[i].value.shape()) << a[i].name;
    EXPECT_EQ(std::memcmp(a[i].value.raw(), b[i].value.raw(), a[i].value.nbytes()), 0) << a[i].name << " differs";
    parameters += a[i].name.starts_with("param.encoder.") || a[i].name.starts_with("param.decoder.");
  }
  EXPECT_EQ(parameters, 14) << "7 weights and biases in the encoder (trunk, loc, log_scale), 6 in the decoder";

  // The curve keeps the first run's row and continues it: the bounds agree with the whole run's.
  const std::string whole_curve = variate::testing::read_text(whole + "/curve.csv");
  const std::string split_curve = variate::testing::read_text(split + "/curve.csv");
  auto bounds = [](const std::string& csv) {  // each row without its seconds column
    std::string out, line;
    std::istringstream in(csv);
    while (std::getline(in, line)) out += line.substr(0, line.rfind(',')) + "\n";
    return out;
  };
  EXPECT_EQ(bounds(split_curve), bounds(whole_curve));
  EXPECT_EQ(std::count(whole_curve.begin(), whole_curve.end(), '\n'), 3) << whole_curve;
  for (const char* file : {"samples.png", "reconstructions.png", "run.json"})
    EXPECT_TRUE(std::filesystem::exists(whole + "/" + file)) << file;

  // Resuming with an option the checkpoint depends on changed is refused, naming the option.
  const auto other = run_cli(kTiny + "--epochs 3 --bound iwae --output-dir " + split);
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_NE(other.output.find("the checkpoint was written with --bound elbo, this run has --bound iwae"),
            std::string::npos)
      << other.output;
}

// Whether the checkpoints in `a` and `b` hold bit-identical parameters.
bool same_parameters(const std::string& a, const std::string& b) {
  const auto x = variate::nn::load_tensors(a + "/checkpoint"), y = variate::nn::load_tensors(b + "/checkpoint");
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i].name != y[i].name || x[i].value.shape() != y[i].value.shape() ||
        std::memcmp(x[i].value.raw(), y[i].value.raw(), x[i].value.nbytes()) != 0)
      return false;
  return true;
}

TEST(TrainCli, LearningRateSchedulesFollowTheStepAndResume) {
  const variate::testing::ScratchDir dir("train_schedule");
  auto train = [&](const std::string& name, const std::string& options) {
    const auto r = run_cli(kTiny + options + " --output-dir " + (dir / name));
    EXPECT_EQ(r.exit_code, 0) << options << "\n" << r.output;
    return r.output;
  };
  // The IWAE schedule keeps the first epoch at --learning-rate and divides it by 10^(1/7) from the
  // second on.
  train("constant1", "--epochs 1");
  train("iwae1", "--epochs 1 --lr-schedule iwae");
  EXPECT_TRUE(same_parameters(dir / "constant1", dir / "iwae1"));
  train("constant2", "--epochs 2");
  const std::string iwae = train("iwae2", "--epochs 2 --lr-schedule iwae");
  EXPECT_FALSE(same_parameters(dir / "constant2", dir / "iwae2"));
  EXPECT_NE(iwae.find("the IWAE paper's schedule"), std::string::npos) << iwae;

  // A cosine schedule stopped after one of two epochs and resumed ends where the whole run ends.
  train("cosine", "--epochs 2 --lr-schedule cosine");
  EXPECT_FALSE(same_parameters(dir / "constant2", dir / "cosine"));
  const auto first = run_cli(kTiny + "--epochs 2 --minutes 1e-9 --lr-schedule cosine --output-dir " + (dir / "split"));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  train("split", "--epochs 2 --lr-schedule cosine");
  EXPECT_TRUE(same_parameters(dir / "cosine", dir / "split"));

  // The schedule is part of the run: resuming under another one, or a cosine over more epochs, is
  // refused.
  const auto other = run_cli(kTiny + "--epochs 3 --output-dir " + (dir / "iwae2"));
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_NE(other.output.find("--lr-schedule"), std::string::npos) << other.output;
  const auto longer = run_cli(kTiny + "--epochs 3 --lr-schedule cosine --output-dir " + (dir / "cosine"));
  EXPECT_EQ(longer.exit_code, 1) << longer.output;
  EXPECT_NE(longer.output.find("--epochs"), std::string::npos) << longer.output;
}

TEST(TrainCli, AnIafPosteriorRaisesTheBoundAndResumesBitForBit) {
  const variate::testing::ScratchDir dir("train_iaf");
  const std::string iaf = kTiny + "--posterior iaf --learning-rate 0.003 ";
  const std::string whole = dir / "whole", split = dir / "split";
  const auto r = run_cli(iaf + "--epochs 3 --output-dir " + whole);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("iaf posterior"), std::string::npos) << r.output;
  ASSERT_EQ(run_cli(iaf + "--epochs 1 --output-dir " + split).exit_code, 0);
  const auto resumed = run_cli(iaf + "--epochs 3 --output-dir " + split);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resumed from " + split + "/checkpoint after epoch 1"), std::string::npos)
      << resumed.output;

  const auto a = variate::nn::load_tensors(whole + "/checkpoint"), b = variate::nn::load_tensors(split + "/checkpoint");
  ASSERT_EQ(a.size(), b.size());
  int flow_parameters = 0, context_weights = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].name, b[i].name);
    ASSERT_EQ(a[i].value.shape(), b[i].value.shape()) << a[i].name;
    EXPECT_EQ(std::memcmp(a[i].value.raw(), b[i].value.raw(), a[i].value.nbytes()), 0) << a[i].name << " differs";
    flow_parameters += a[i].name.starts_with("param.encoder.iaf1.") || a[i].name.starts_with("param.encoder.iaf2.");
    context_weights += a[i].name.starts_with("param.") && a[i].name.find(".made.context.") != std::string::npos;
  }
  EXPECT_GE(flow_parameters, 4) << "both flows' MADE weights and biases are trained and saved";
  EXPECT_EQ(context_weights, 6) << "each flow's three layers see the encoder's context";

  // A run of the context-free IAF posterior (earlier versions, whose record lacks the context) is
  // refused, not continued with other parameters.
  auto record = nlohmann::json::parse(variate::testing::read_text(split + "/run.json"));
  ASSERT_EQ(record.erase("posterior context"), 1u);
  std::ofstream(split + "/run.json") << record.dump(2);
  const auto old = run_cli(iaf + "--epochs 4 --output-dir " + split);
  EXPECT_EQ(old.exit_code, 1) << old.output;
  EXPECT_NE(old.output.find("the checkpoint holds the context-free IAF posterior of earlier versions of variate"),
            std::string::npos)
      << old.output;

  // The training bound of the third epoch is above the first's (rows "epoch,train,test,seconds").
  std::istringstream curve(variate::testing::read_text(whole + "/curve.csv"));
  std::string line;
  std::vector<double> train_bounds;
  std::getline(curve, line);  // the header
  while (std::getline(curve, line)) train_bounds.push_back(std::stod(line.substr(line.find(',') + 1)));
  ASSERT_EQ(train_bounds.size(), 3u);
  EXPECT_GT(train_bounds[2], train_bounds[0] + 1.0) << "nats per image";
}

// Issue 22, model parallel: the IAF flow's layers split over 2 thread devices train the same VAE
// as one device (to rounding), each device saving only the parameters it holds.
TEST(TrainCli, AModelParallelRunEqualsTheOneDeviceRun) {
  const variate::testing::ScratchDir dir("train_model_parallel");
  const std::string iaf = kTiny + "--posterior iaf --flow-layers 3 --bound iwae --particles 2 --epochs 2 ";
  const std::string one = dir / "one", two = dir / "two";
  const auto r1 = run_cli(iaf + "--output-dir " + one);
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  const auto r2 = run_cli(iaf + "--flow-devices 2 --placement round-robin --output-dir " + two);
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_NE(r2.output.find("3 flow layers on 2 thread devices (round-robin; encoder and decoder on device 0)"),
            std::string::npos)
      << r2.output;

  std::map<std::string, variate::Tensor> whole;
  for (const auto& t : variate::nn::load_tensors(one + "/checkpoint"))
    if (t.name.starts_with("param.")) whole.emplace(t.name, t.value);
  std::size_t held = 0;
  for (const std::string file : {"/checkpoint", "/checkpoint.device1"}) {
    for (const auto& t : variate::nn::load_tensors(two + file)) {
      if (!t.name.starts_with("param.")) continue;
      ++held;
      // Round-robin: layers 1 and 3 with the encoder and decoder on device 0, layer 2 on device 1.
      EXPECT_EQ(t.name.starts_with("param.encoder.iaf2."), file == "/checkpoint.device1") << t.name << " in " << file;
      ASSERT_TRUE(whole.contains(t.name)) << t.name;
      const variate::Tensor& w = whole.at(t.name);
      ASSERT_EQ(t.value.shape(), w.shape()) << t.name;
      const double* a = t.value.data<double>();
      const double* b = w.data<double>();
      for (std::int64_t i = 0; i < w.numel(); ++i) ASSERT_NEAR(a[i], b[i], 1e-9) << t.name << "[" << i << "]";
    }
  }
  EXPECT_EQ(held, whole.size()) << "every parameter is held by exactly one device";
}

TEST(TrainCli, OnTwoDevicesAndResumedOnOne) {
  const variate::testing::ScratchDir dir("train_devices");
  const std::string out = dir / "out";
  const auto two = run_cli(kTiny + "--epochs 1 --devices 2 --output-dir " + out);
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("batch 50 over 2 devices"), std::string::npos) << two.output;
  // The 2-device checkpoint holds no device count: one device continues it.
  const auto one = run_cli(kTiny + "--epochs 2 --output-dir " + out);
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("resumed from " + out + "/checkpoint after epoch 1"), std::string::npos) << one.output;
  EXPECT_EQ(variate::nn::load_tensors(out + "/checkpoint")[0].value.item(), 12.0);  // 2 epochs of 6 steps
  // Every epoch's bound is finite and better than a coin per pixel (64 log 2 = 44.4 nats).
  const std::string curve = variate::testing::read_text(out + "/curve.csv");
  std::istringstream rows(curve);
  std::string row;
  std::getline(rows, row);  // the header
  int epochs = 0;
  while (std::getline(rows, row)) {
    const double train_bound = std::stod(row.substr(row.find(',') + 1));
    EXPECT_GT(train_bound, -64 * std::log(2.0)) << row;
    ++epochs;
  }
  EXPECT_EQ(epochs, 2) << curve;

  const auto uneven = run_cli(kTiny + "--epochs 1 --devices 3 --output-dir " + (dir / "uneven"));
  EXPECT_EQ(uneven.exit_code, 1) << uneven.output;
  EXPECT_NE(uneven.output.find("--batch 50 does not split evenly over --devices 3"), std::string::npos)
      << uneven.output;
}

TEST(TrainCli, HelpListsThePosteriors) {
  const auto r = run_cli("train --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--posterior"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gaussian (diagonal) or iaf"), std::string::npos) << r.output;
}

TEST(TrainCli, ReportsTheTestNegativeLogLikelihood) {
  const variate::testing::ScratchDir dir("train_nll");
  const auto r = run_cli(
      "train --model vae-digits --train-images 200 --batch 50 --epochs 1 --eval-images 10 --eval-samples 20 "
      "--bound iwae --output-dir " +
      (dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("IWAE bound with 5 particles"), std::string::npos) << r.output;
  const auto at = r.output.find("test NLL (K = 20 importance samples, 10 test images): ");
  ASSERT_NE(at, std::string::npos) << r.output;
  // 64 binary pixels: between 0 and 64 log 2 = 44.4 nats for any model better than a coin per pixel
  // after an epoch; a NaN or a sign error would fall outside.
  const double nll = std::stod(r.output.substr(at + 54));
  EXPECT_GT(nll, 0.0);
  EXPECT_LT(nll, 64 * std::log(2.0));
  EXPECT_TRUE(std::filesystem::exists(dir / "out/test_nll.json"));

  // One line per image, whose mean is the reported estimate.
  std::istringstream rows(variate::testing::read_text(dir / "out/test_nll_images.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(rows, line));
  EXPECT_EQ(line, "image,nll");
  double sum = 0;
  int images = 0;
  while (std::getline(rows, line)) {
    EXPECT_EQ(std::stoi(line), images) << line;
    sum += std::stod(line.substr(line.find(',') + 1));
    ++images;
  }
  EXPECT_EQ(images, 10);
  EXPECT_NEAR(sum / images, nll, 0.01) << "the printed estimate has two decimals";
}

// The bytes of the "tape: N bytes saved ... (linear layers: M)" line of a run's output.
std::pair<double, double> tape_bytes(const std::string& output) {
  const auto at = output.find("tape: ");
  if (at == std::string::npos) return {-1, -1};
  const auto linear = output.find("(linear layers: ", at);
  return {std::stod(output.substr(at + 6)), std::stod(output.substr(linear + 16))};
}

TEST(TrainCli, RandomizedAutodiffShrinksTheVaesTape) {
  const variate::testing::ScratchDir dir("train_rad");
  const auto exact = run_cli(kTiny + "--epochs 1 --output-dir " + (dir / "exact"));
  ASSERT_EQ(exact.exit_code, 0) << exact.output;
  const auto [exact_total, exact_linear] = tape_bytes(exact.output);
  ASSERT_GT(exact_linear, 0) << exact.output;
  for (const std::string rad : {"--rad-fraction 0.1", "--rad-fraction 0.1 --rad-mode projection", "--rad-bits 2"}) {
    const auto r = run_cli(kTiny + "--epochs 1 " + rad + " --output-dir " + (dir / "rad"));
    ASSERT_EQ(r.exit_code, 0) << rad << "\n" << r.output;
    EXPECT_NE(r.output.find(rad.starts_with("--rad-bits") ? "2-bit codes" : "RAD keeping 0.1"), std::string::npos)
        << r.output;
    // The linear layers' inputs shrink, 50 rows of 64 + 200 + 200 + 200 (the encoder's two heads) +
    // 50 + 200 + 200 values in f64, by more than 80%; their weights (the bulk at this size) stay.
    const auto [total, linear] = tape_bytes(r.output);
    EXPECT_LT(exact_linear - linear, exact_total - total + 1) << rad;
    EXPECT_LT(linear, exact_linear - 0.8 * 8 * 50 * 1114) << rad << "\n" << r.output;
    std::filesystem::remove_all(dir / "rad");
  }
  // The checkpoint of an exact run does not resume under RAD.
  const auto resumed = run_cli(kTiny + "--epochs 2 --rad-fraction 0.5 --output-dir " + (dir / "exact"));
  EXPECT_EQ(resumed.exit_code, 1) << resumed.output;
  EXPECT_NE(resumed.output.find("the checkpoint was written with --rad-"), std::string::npos) << resumed.output;
}

TEST(TrainCli, BadInputGivesOneClearError) {
  const variate::testing::ScratchDir dir("train_errors");
  const std::string out = " --output-dir " + (dir / "out");
  struct Case {
    std::string args, expected;
  };
  const Case cases[] = {
      {"train --model vae-mnist --data-dir /no/such/mnist" + out,
       "the MNIST directory '/no/such/mnist' does not exist"},
      {"train --model vae-digits --bound elbow" + out, "elbow"},
      {"train --model vae-digits --particles 0" + out, "--particles"},
      {"train --model vae-digits --batch 0" + out, "--batch"},
      {"train --model vae-digits --learning-rate -1" + out, "--learning-rate"},
      {"train --model vae-mnist2" + out, "vae-mnist2"},
      {"train --model vae-digits --posterior flow" + out, "flow"},
      {"train --model vae-digits --posterior iaf --flow-devices 3" + out,
       "--flow-devices 3 but the IAF posterior has 2 flow layers (--flow-layers); each device must hold at least one"},
      {"train --model vae-digits --flow-devices 2" + out,
       "--flow-devices 2 splits the IAF posterior's flow layers over devices; "
       "it needs --posterior iaf"},
      {"train --model vae-digits --posterior iaf --flow-devices 2 --devices 2" + out,
       "--devices 2 (data parallel) and --flow-devices 2 (model parallel) cannot be combined"},
      {"train --model vae-digits --rad-fraction 0" + out, "--rad-fraction must be in (0, 1], got 0"},
      {"train --model vae-digits --rad-bits 3" + out, "--rad-bits"},
      {"train --model vae-digits --rad-mode sometimes" + out, "--rad-mode"},
      {"train --model vae-digits --lr-schedule linear" + out, "--lr-schedule"},
      {"train --model vae-digits --lr-schedule cosine --epochs 0" + out,
       "--lr-schedule cosine decays over --epochs, which must be >= 1, got 0"},
      {"train --model image-transformer-digits --rad-fraction 0.1" + out,
       "the Image Transformer does not support randomized autodiff"},
      {"train --model vae-digits --posterior iaf --flow-devices 2 --rad-bits 2" + out,
       "--rad-fraction and --rad-bits are not supported with --flow-devices (model parallel)"},
  };
  for (const Case& c : cases) {
    const auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("variate: error: "), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("epoch 1"), std::string::npos) << "trained despite " << c.args;
  }
  const auto bound = run_cli("train --bound elbow" + out);
  EXPECT_NE(bound.output.find("iwae"), std::string::npos) << "lists the valid bounds: " << bound.output;
}

}  // namespace
