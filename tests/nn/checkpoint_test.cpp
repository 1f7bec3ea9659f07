// Checkpoint files: a round trip restores every parameter bit for bit, and each kind of bad file
// gives one error naming the file and what is wrong.
#include "variate/nn/checkpoint.hpp"

#include <gtest/gtest.h>

#include <cstring>
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

// CRC-32 (the reflected polynomial 0xEDB88320 of zlib, PNG and gzip), bit by bit: an independent
// check that the file's trailer is the standard checksum the format documents.
std::uint32_t reference_crc32(std::string_view bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// `bytes` with its last four bytes replaced by the CRC-32 of the rest.
std::string with_valid_crc(std::string bytes) {
  const std::uint32_t crc = reference_crc32(std::string_view(bytes).substr(0, bytes.size() - 4));
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
  return bytes;
}

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
  const std::string bytes = read_bytes(path);
  EXPECT_EQ(bytes.size(), expected);
  EXPECT_EQ(with_valid_crc(bytes), bytes);
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

  std::string later_version = good;
  later_version[10] = 2;  // the u32 version after the 10 magic bytes
  write_bytes(path, with_valid_crc(later_version));
  EXPECT_ERROR(load(net, path), named + "version 2, but this build reads version 1");

  std::string bad_dtype = good;
  bad_dtype[10 + 4 + 8 + 4 + 8] = 9;  // the first record's dtype code, after its 8-byte name "0.weight"
  write_bytes(path, with_valid_crc(bad_dtype));
  EXPECT_ERROR(load(net, path), named + "'0.weight' has unknown dtype code 9");

  std::string long_count = good;
  long_count[14] = 6;  // six records announced, five present
  write_bytes(path, with_valid_crc(long_count));
  EXPECT_ERROR(load(net, path), named + "truncated: the file ends inside a name's length");

  std::string huge_dim = good;
  huge_dim[10 + 4 + 8 + 4 + 8 + 2 + 7] = 0x40;  // the first record's first dim becomes about 2^62
  write_bytes(path, with_valid_crc(huge_dim));
  EXPECT_ERROR(load(net, path), named + "truncated: the file ends inside the elements of '0.weight'");

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
