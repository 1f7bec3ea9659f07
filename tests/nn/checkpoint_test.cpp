// Checkpoint files: a round trip restores every parameter bit for bit, and each kind of bad file
// gives one error naming the file and what is wrong.
#include "variate/nn/checkpoint.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"
#include "variate/nn/layers.hpp"
#include "variate/nn/linear.hpp"
#include "variate/nn/sequential.hpp"

namespace variate::nn {
namespace {

Sequential small_net(random::Key key, std::int64_t hidden = 3) {
  Sequential net;
  net.push(Linear(4, hidden, random::split_at(key, 0)));
  net.push(Activation(ActivationKind::relu));
  net.push(Linear(hidden, 2, random::split_at(key, 1), DType::f64, /*bias=*/false));
  net.push(LayerNorm(2, 1e-5, DType::f32));
  return net;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

TEST(Checkpoint, RoundTripRestoresEveryParameter) {
  testing::ScratchDir dir("nn_checkpoint_round_trip");
  const std::string path = dir / "net.ckpt";
  Sequential saved = small_net(random::Key(1)), loaded = small_net(random::Key(2));
  auto& norm = dynamic_cast<LayerNorm&>(saved[3]);
  norm.weight = prim::cast(Tensor::vec({0.25, -3.5}), DType::f32);
  save(saved, path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  load(loaded, path);
  const auto a = named_parameters(saved), b = named_parameters(loaded);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    ASSERT_EQ(a[i].value.shape(), b[i].value.shape());
    ASSERT_EQ(a[i].value.dtype(), b[i].value.dtype());
    for (std::int64_t k = 0; k < a[i].value.numel(); ++k) EXPECT_EQ(a[i].value.at(k), b[i].value.at(k));
  }
  // The file's size is what the documented format says.
  const std::size_t expected = 10 + 4 + 8 + (4 + 8 + 2 + 16 + 12 * 8) + (4 + 6 + 2 + 8 + 3 * 8) +
                               (4 + 8 + 2 + 16 + 6 * 8) + (4 + 8 + 2 + 8 + 2 * 4) + (4 + 6 + 2 + 8 + 2 * 4) + 4;
  EXPECT_EQ(read_bytes(path).size(), expected);
}

TEST(Checkpoint, TensorsOfEveryDtype) {
  testing::ScratchDir dir("nn_checkpoint_dtypes");
  const std::vector<NamedTensor> tensors = {
      {"step", Tensor::from(std::vector<std::int64_t>{12345}, Shape{})},
      {"flags", prim::cast(Tensor::vec({1, 0, 1}), DType::boolean)},
      {"counts", Tensor::from(std::vector<std::int32_t>{-1, 7}, Shape{1, 2})},
  };
  save_tensors(dir / "t.ckpt", tensors);
  const std::vector<NamedTensor> back = load_tensors(dir / "t.ckpt");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].value.dtype(), DType::i64);
  EXPECT_EQ(back[0].value.item(), 12345);
  EXPECT_EQ(back[1].value.to_vector<double>(), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(back[2].value.shape(), (Shape{1, 2}));
  EXPECT_EQ(back[2].value.at(0), -1);
}

TEST(Checkpoint, EachBadFileGivesAnErrorNamingIt) {
  testing::ScratchDir dir("nn_checkpoint_errors");
  const std::string path = dir / "net.ckpt";
  Sequential net = small_net(random::Key(1));
  save(net, path);
  const std::string good = read_bytes(path);
  const std::string named = "checkpoint '" + path + "': ";

  EXPECT_ERROR(load(net, dir / "absent.ckpt"), "checkpoint '" + (dir / "absent.ckpt") + "': cannot open the file");

  std::string bad_magic = good;
  bad_magic[0] = 'X';
  write_bytes(path, bad_magic);
  EXPECT_ERROR(load(net, path), named + "not a variate checkpoint (bad magic bytes)");

  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  write_bytes(path, flipped);
  EXPECT_ERROR(load(net, path), named + "checksum mismatch");

  write_bytes(path, good.substr(0, good.size() - 20));
  EXPECT_ERROR(load(net, path), named + "checksum mismatch");
  write_bytes(path, good.substr(0, 12));
  EXPECT_ERROR(load(net, path), named + "truncated");

  write_bytes(path, good);
  Sequential wider = small_net(random::Key(1), 5);
  EXPECT_ERROR(load(wider, path),
               named + "parameter '0.weight' is f64 [3, 4] in the file but f64 [5, 4] in Sequential(");

  Sequential other;
  other.push(Linear(4, 3, random::Key(1)));
  other.push(Activation(ActivationKind::relu));
  other.push(Linear(3, 2, random::Key(1)));
  EXPECT_ERROR(load(other, path), named + "does not match Sequential(");
  EXPECT_ERROR(load(other, path), "missing parameters [2.bias], unexpected parameters [3.bias, 3.weight]");

  // A failed load leaves the module as it was.
  const Tensor before = dynamic_cast<Linear&>(wider[0]).weight;
  EXPECT_ERROR(load(wider, path), "in the file but");
  EXPECT_EQ(dynamic_cast<Linear&>(wider[0]).weight.shape(), before.shape());
}

}  // namespace
}  // namespace variate::nn
