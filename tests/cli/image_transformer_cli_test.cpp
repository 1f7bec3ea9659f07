// End-to-end tests of `variate train --model image-transformer-digits` (issue 24) with a small
// network on the embedded 8 x 8 digits: training lowers the exact test NLL and the model beats a
// coin per pixel; the report and the files; data parallel on 2 thread devices equals one device;
// a resumed run ends with the parameters of an uninterrupted one; bad options give one clear error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/nn/checkpoint.hpp"

namespace {

using variate::testing::run_cli;

// 2 Transformer blocks of width 16 with 2 heads, attention in blocks of 2 image rows; 600 images in minibatches of 50;
// 100 test images scored.
const std::string kSmall =
    "train --model image-transformer-digits --layers 2 --embed-dim 16 --heads 2 --train-images 600 --batch 50 "
    "--eval-images 100 --seed 3 ";

// The test column of curve.csv (the mean log-likelihood per test image), one entry per epoch.
std::vector<double> test_log_likelihoods(const std::string& curve_path) {
  std::istringstream rows(variate::testing::read_text(curve_path));
  std::string row;
  std::getline(rows, row);  // the header
  std::vector<double> out;
  while (std::getline(rows, row)) {
    const std::size_t second = row.find(',', row.find(',') + 1);
    out.push_back(std::stod(row.substr(second + 1)));
  }
  return out;
}

std::map<std::string, variate::Tensor> parameters(const std::string& checkpoint) {
  std::map<std::string, variate::Tensor> out;
  for (const auto& t : variate::nn::load_tensors(checkpoint))
    if (t.name.starts_with("param.")) out.emplace(t.name, t.value);
  return out;
}

TEST(ImageTransformerCli, TrainingLowersTheTestNegativeLogLikelihood) {
  const variate::testing::ScratchDir dir("image_transformer_train");
  const std::string out = dir / "out";
  const auto r = run_cli(kSmall + "--epochs 3 --output-dir " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Image Transformer over 64 pixels: 2 layers, embedding 16, 2 heads, local attention in "
                          "blocks of 16 pixels"),
            std::string::npos)
      << r.output;
  const std::vector<double> test = test_log_likelihoods(out + "/curve.csv");
  ASSERT_EQ(test.size(), 3u);
  EXPECT_GT(test[2], test[0] + 1.0) << "nats per image";

  const auto at = r.output.find("test NLL (exact, 100 test images): ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const double nll = std::stod(r.output.substr(at + 35));
  EXPECT_NEAR(nll, -test[2], 0.01) << "the last epoch's score";
  EXPECT_LT(nll, 64 * std::log(2.0)) << "better than a coin per pixel";
  const auto bits = r.output.find(" bits per dimension");
  ASSERT_NE(bits, std::string::npos) << r.output;
  // Both printed with 2 and 4 decimals: the NLL's rounding moves the bits by at most 1.2e-4.
  EXPECT_NEAR(std::stod(r.output.substr(r.output.rfind(", ", bits) + 2)), nll / (64 * std::log(2.0)), 2e-4);
  for (const char* file : {"samples.png", "run.json", "test_nll.json", "checkpoint"})
    EXPECT_TRUE(std::filesystem::exists(out + "/" + file)) << file;
}

TEST(ImageTransformerCli, TwoDevicesTrainTheOneDeviceModel) {
  const variate::testing::ScratchDir dir("image_transformer_devices");
  const std::string one = dir / "one", two = dir / "two";
  const auto r1 = run_cli(kSmall + "--epochs 1 --output-dir " + one);
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  const auto r2 = run_cli(kSmall + "--epochs 1 --devices 2 --output-dir " + two);
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_NE(r2.output.find("batch 50 over 2 devices (data parallel)"), std::string::npos) << r2.output;
  // The same binarized minibatches and no other draws: equal to rounding (the sums over the batch
  // are split at the devices' boundary), after 12 Adam steps.
  const auto a = parameters(one + "/checkpoint"), b = parameters(two + "/checkpoint");
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, value] : a) {
    ASSERT_TRUE(b.contains(name)) << name;
    const variate::Tensor& other = b.at(name);
    ASSERT_EQ(value.shape(), other.shape()) << name;
    for (std::int64_t i = 0; i < value.numel(); ++i)
      ASSERT_NEAR(value.at(i), other.at(i), 1e-9) << name << "[" << i << "]";
  }

  const auto uneven = run_cli(kSmall + "--epochs 1 --devices 3 --output-dir " + (dir / "uneven"));
  EXPECT_EQ(uneven.exit_code, 1) << uneven.output;
  EXPECT_NE(uneven.output.find("--batch 50 does not split evenly over --devices 3"), std::string::npos)
      << uneven.output;
}

TEST(ImageTransformerCli, AResumedRunEndsWithTheParametersOfAnUninterruptedOne) {
  const variate::testing::ScratchDir dir("image_transformer_resume");
  const std::string whole = dir / "whole", split = dir / "split";
  ASSERT_EQ(run_cli(kSmall + "--epochs 2 --output-dir " + whole).exit_code, 0);
  ASSERT_EQ(run_cli(kSmall + "--epochs 1 --devices 2 --output-dir " + split).exit_code, 0);
  const auto second = run_cli(kSmall + "--epochs 2 --output-dir " + split);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("resumed from " + split + "/checkpoint after epoch 1"), std::string::npos)
      << second.output;
  const auto a = parameters(whole + "/checkpoint"), b = parameters(split + "/checkpoint");
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, value] : a)
    for (std::int64_t i = 0; i < value.numel(); ++i) ASSERT_NEAR(value.at(i), b.at(name).at(i), 1e-9) << name;

  const auto other = run_cli(kSmall + "--epochs 3 --block-length 32 --output-dir " + split);
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_NE(other.output.find("the checkpoint was written with --block-length 0, this run has --block-length 32"),
            std::string::npos)
      << other.output;
}

TEST(ImageTransformerCli, BadOptionsGiveOneClearError) {
  const variate::testing::ScratchDir dir("image_transformer_errors");
  const std::string out = " --epochs 1 --output-dir " + (dir / "out");
  struct Case {
    std::string args, expected;
  };
  const Case cases[] = {
      {"train --model image-transformer-digits --embed-dim 30 --heads 4" + out,
       "--embed-dim 30 must be a positive multiple of --heads 4"},
      {"train --model image-transformer-digits --block-length 5" + out,
       "block_length 5 must be 0 (no blocks) or divide the length 64"},
      {"train --model image-transformer-digits --flow-devices 2" + out, "trains data parallel with --devices"},
      {"train --model image-transformer --data-dir /no/such/mnist" + out,
       "the MNIST directory '/no/such/mnist' does not exist"},
  };
  for (const Case& c : cases) {
    const auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("variate: error: "), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("epoch 1"), std::string::npos) << "trained despite " << c.args;
  }
}

}  // namespace
