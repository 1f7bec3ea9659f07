#include "variate/data/idx.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "support/heap_allocations.hpp"
#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

// An IDX file's bytes: the magic number (0, 0, type, rank), big-endian sizes, then `data`.
std::string idx_bytes(std::uint8_t type, const std::vector<std::uint32_t>& dims, const std::string& data) {
  std::string bytes{'\0', '\0', char(type), char(dims.size())};
  for (const std::uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes += char((d >> shift) & 0xFF);
  }
  return bytes + data;
}

std::string u8_data(std::size_t n, int first = 0) {
  std::string data;
  for (std::size_t i = 0; i < n; ++i) data += char((first + int(i)) % 256);
  return data;
}

std::string gzip(const std::string& contents) {
  std::string out(compressBound(uLong(contents.size())) + 64, '\0');
  z_stream stream{};
  // 16 + MAX_WBITS: a gzip header and trailer, as the gzip tool writes.
  EXPECT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(contents.data()));
  stream.avail_in = uInt(contents.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = uInt(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// Each test writes its files into its own directory, removed afterwards.
class IdxFile : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& contents) const { return dir_.write(name, contents); }
  const variate::testing::ScratchDir dir_{"idx_" + variate::testing::current_test_name()};
};

TEST_F(IdxFile, ReadsPlainAndGzipU8Arrays) {
  const std::string file = idx_bytes(0x08, {2, 2, 3}, u8_data(12, 250));
  // The compressed copy has no .gz in its name: gzip is recognized from the content.
  for (const std::string& path : {write("a.idx", file), write("a_compressed.idx", gzip(file))}) {
    SCOPED_TRACE(path);
    const IdxArray a = read_idx(path);
    EXPECT_EQ(a.type, IdxType::u8);
    EXPECT_EQ(a.dims, (std::vector<std::int64_t>{2, 2, 3}));
    EXPECT_EQ(a.file_items, 2);
    EXPECT_EQ(a.bytes, (std::vector<std::uint8_t>{250, 251, 252, 253, 254, 255, 0, 1, 2, 3, 4, 5}));
  }
}

TEST_F(IdxFile, ConvertsMultiByteElementsFromBigEndian) {
  // int16 {258, -2}, int32 {-16909061}, double {1.5}, written big-endian as IDX requires.
  const IdxArray shorts = read_idx(write("s.idx", idx_bytes(0x0B, {2}, std::string("\x01\x02\xFF\xFE", 4))));
  std::array<std::int16_t, 2> s{};
  ASSERT_EQ(shorts.bytes.size(), sizeof s);
  std::memcpy(s.data(), shorts.bytes.data(), sizeof s);
  EXPECT_EQ(s, (std::array<std::int16_t, 2>{258, -2}));

  const IdxArray ints = read_idx(write("i.idx", idx_bytes(0x0C, {1, 1}, "\xFE\xFD\xFC\xFB")));
  std::int32_t i = 0;
  std::memcpy(&i, ints.bytes.data(), sizeof i);
  EXPECT_EQ(i, -16909061);  // 0xFEFDFCFB
  EXPECT_STREQ(name(ints.type), "int");

  const IdxArray doubles = read_idx(write("d.idx", idx_bytes(0x0E, {1}, std::string("\x3F\xF8\0\0\0\0\0\0", 8))));
  double d = 0;
  std::memcpy(&d, doubles.bytes.data(), sizeof d);
  EXPECT_EQ(d, 1.5);
  EXPECT_EQ(element_size(doubles.type), 8);
}

TEST_F(IdxFile, MaxItemsReadsOnlyAPrefix) {
  const std::string file = idx_bytes(0x08, {5, 2}, u8_data(10));
  for (const std::string& path : {write("p.idx", file), write("p.idx.gz", gzip(file))}) {
    SCOPED_TRACE(path);
    const IdxArray two = read_idx(path, 2);
    EXPECT_EQ(two.dims, (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(two.file_items, 5);
    EXPECT_EQ(two.bytes, (std::vector<std::uint8_t>{0, 1, 2, 3}));
    EXPECT_EQ(read_idx(path, 0).bytes.size(), 0u);
    EXPECT_EQ(read_idx(path, 99).dims, (std::vector<std::int64_t>{5, 2}));
  }
  // The prefix is all that is read, so damage after it goes unnoticed (as documented).
  EXPECT_EQ(read_idx(write("short.idx", idx_bytes(0x08, {5, 2}, u8_data(4))), 2).bytes.size(), 4u);
}

TEST_F(IdxFile, EmptyArraysAreAllowed) {
  const IdxArray a = read_idx(write("e.idx", idx_bytes(0x08, {0, 28, 28}, "")));
  EXPECT_EQ(a.dims, (std::vector<std::int64_t>{0, 28, 28}));
  EXPECT_TRUE(a.bytes.empty());
}

TEST_F(IdxFile, ErrorsNameTheFileAndWhatWasExpected) {
  const std::string missing = dir_ / "missing.idx";
  EXPECT_ERROR(read_idx(missing), "read_idx: cannot open file '" + missing + "'");

  const std::string empty = write("empty.idx", "");
  EXPECT_ERROR(read_idx(empty), empty + ": the file holds 0 bytes, expected at least the 4-byte IDX magic number");

  // A text file, an unknown type code and zero dimensions are not IDX.
  const std::string text = write("text.idx", "hello world");
  EXPECT_ERROR(read_idx(text), text + ": magic number 0x68656C6C is not IDX: expected 0x0000TTNN");
  EXPECT_ERROR(read_idx(write("type.idx", idx_bytes(0x0A, {1}, "x"))), "magic number 0x00000A01 is not IDX");
  EXPECT_ERROR(read_idx(write("rank0.idx", std::string("\0\0\x08\0", 4))), "magic number 0x00000800 is not IDX");

  const std::string header = write("header.idx", std::string("\0\0\x08\x03\0\0\0\x02", 8));
  EXPECT_ERROR(read_idx(header), header +
                                     ": truncated header: magic number 0x00000803 declares 3 dimensions, "
                                     "expected 12 bytes of sizes after it, found 4");

  EXPECT_ERROR(read_idx(write("negative.idx", idx_bytes(0x08, {2, 0xFFFFFFFF}, ""))),
               "dimension 1 has size -1, expected a non-negative int32");
  EXPECT_ERROR(read_idx(write("huge.idx", idx_bytes(0x0E, {1, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF}, ""))),
               "more than 2^62 bytes");

  const std::string truncated = write("truncated.idx", idx_bytes(0x08, {3, 2, 2}, u8_data(11)));
  EXPECT_ERROR(read_idx(truncated), truncated +
                                        ": truncated data: the header (0x00000803, 3 dimensions) promises 12 "
                                        "bytes of data, found 11");

  const std::string trailing = write("trailing.idx", idx_bytes(0x08, {3}, u8_data(4)));
  EXPECT_ERROR(read_idx(trailing), trailing + ": the file goes on after the 3 bytes of data its header promises");
}

// A header is not trusted with memory: a 22-byte file whose header promises 64 MiB makes read_idx
// allocate about what the file holds before it finds the truncation (it allocated the 64 MiB,
// which made the IDX fuzzer crawl at a few inputs a second).
TEST_F(IdxFile, TruncatedDataCostsWhatTheFileHolds) {
  const std::string truncated = write("truncated.idx", idx_bytes(0x08, {std::uint32_t(1) << 26}, u8_data(14)));
  variate::testing::reset_largest_heap_allocation();
  EXPECT_ERROR(read_idx(truncated), "promises 67108864 bytes of data, found 14");
  EXPECT_LE(variate::testing::largest_heap_allocation(), std::size_t(1) << 20);
}

TEST_F(IdxFile, DamagedGzipFilesAreErrors) {
  // Half of a compressed file: zlib reports the stream cut short, which read_idx passes on.
  std::string data;
  for (int i = 0; i < 20000; ++i) data += char((i * 7919) % 251);  // poorly compressible
  const std::string compressed = gzip(idx_bytes(0x08, {20000}, data));
  const std::string cut = write("cut.idx.gz", compressed.substr(0, compressed.size() / 2));
  EXPECT_ERROR(read_idx(cut), "read_idx: " + cut + ": truncated data");
  EXPECT_ERROR(read_idx(cut), "(the gzip stream is cut short)");

  // A gzip header followed by an invalid deflate block (0xFF: final block of reserved type 3).
  const std::string corrupt = write("corrupt.idx.gz", std::string("\x1F\x8B\x08\0\0\0\0\0\0\x03\xFF\xFF\xFF\xFF", 14));
  EXPECT_ERROR(read_idx(corrupt), "read_idx: cannot read file '" + corrupt + "': invalid block type");
}

// ---------------------------------------------------------------------------------------------
// load_mnist on small files laid out like LeCun's

class MnistFiles : public IdxFile {
 protected:
  // Three 2x2 images with pixels 0, 51, ..., 255 and labels 7, 0, 9 as split "train".
  void write_train(bool compressed) const {
    const auto put = [&](const std::string& name, const std::string& file) {
      if (compressed) {
        write(name + ".gz", gzip(file));
      } else {
        write(name, file);
      }
    };
    put("train-images-idx3-ubyte",
        idx_bytes(0x08, {3, 2, 2}, std::string("\0\x33\x66\x99\xCC\xFF\0\0\0\0\xFF\xFF", 12)));
    put("train-labels-idx1-ubyte", idx_bytes(0x08, {3}, std::string("\x07\x00\x09", 3)));
  }
  std::string dir() const { return dir_.path().string(); }
};

TEST_F(MnistFiles, LoadsScaledImagesAndLabels) {
  for (const bool compressed : {false, true}) {
    SCOPED_TRACE(compressed ? "gzip" : "plain");
    std::filesystem::remove_all(dir_.path());
    std::filesystem::create_directories(dir_.path());
    write_train(compressed);
    const MnistSplit train = load_mnist(dir(), "train");
    EXPECT_EQ(train.rows, 2);
    EXPECT_EQ(train.cols, 2);
    EXPECT_EQ(train.images.shape(), (Shape{3, 4}));
    EXPECT_EQ(train.images.dtype(), DType::f64);
    EXPECT_EQ(train.images.to_vector<double>(), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1, 0, 0, 0, 0, 1, 1}));
    EXPECT_EQ(train.labels.dtype(), DType::i64);
    EXPECT_EQ(train.labels.to_vector<std::int64_t>(), (std::vector<std::int64_t>{7, 0, 9}));
  }
}

TEST_F(MnistFiles, F32AndLimit) {
  write_train(true);
  const MnistSplit two = load_mnist(dir(), "train", DType::f32, 2);
  EXPECT_EQ(two.images.dtype(), DType::f32);
  EXPECT_EQ(two.images.shape(), (Shape{2, 4}));
  EXPECT_EQ(two.images.to_vector<float>(), (std::vector<float>{0, 0.2f, 0.4f, 0.6f, 0.8f, 1, 0, 0}));
  EXPECT_EQ(two.labels.to_vector<std::int64_t>(), (std::vector<std::int64_t>{7, 0}));
  EXPECT_EQ(load_mnist(dir(), "train", DType::f32, 0).images.shape(), (Shape{0, 4}));
  EXPECT_EQ(load_mnist(dir(), "train", DType::f32, 10).labels.shape(), (Shape{3}));
}

TEST_F(MnistFiles, PrefersTheGzipFileWhenBothExist) {
  write_train(true);
  write("train-labels-idx1-ubyte", idx_bytes(0x08, {3}, "\x01\x01\x01"));  // would give other labels
  EXPECT_EQ(load_mnist(dir(), "train").labels.to_vector<std::int64_t>(), (std::vector<std::int64_t>{7, 0, 9}));
}

TEST_F(MnistFiles, ArgumentErrors) {
  write_train(false);
  EXPECT_ERROR(load_mnist(dir(), "test"), "load_mnist: unknown split 'test'; expected \"train\"");
  EXPECT_ERROR(load_mnist(dir(), "train", DType::i64), "load_mnist: dtype i64 for the images; expected f64 or f32");
  EXPECT_ERROR(load_mnist(dir(), "train", DType::f64, -2), "load_mnist: limit -2; expected -1 (all examples)");
  const std::string images = dir_ / "t10k-images-idx3-ubyte";
  EXPECT_ERROR(load_mnist(dir(), "t10k"), "load_mnist: no file '" + images + ".gz' or '" + images + "'");
}

TEST_F(MnistFiles, FileErrors) {
  write_train(false);
  const std::string images = dir_ / "train-images-idx3-ubyte";
  const std::string labels = dir_ / "train-labels-idx1-ubyte";

  // The labels file in place of the images file (and the reverse).
  write("train-images-idx3-ubyte", idx_bytes(0x08, {3}, std::string("\x07\x00\x09", 3)));
  EXPECT_ERROR(load_mnist(dir(), "train"),
               "load_mnist: " + images +
                   ": magic number 0x00000801 (unsigned byte, 1 "
                   "dimensions), expected 0x00000803 (unsigned byte images: count, rows, cols)");
  write("train-labels-idx1-ubyte", idx_bytes(0x08, {3, 2, 2}, u8_data(12)));
  EXPECT_ERROR(load_mnist(dir(), "train"), "load_mnist: " + labels + ": magic number 0x00000803");
  EXPECT_ERROR(load_mnist(dir(), "train"), "expected 0x00000801 (unsigned byte labels: count)");
  // Float images are not MNIST's.
  write_train(false);
  write("train-images-idx3-ubyte", idx_bytes(0x0D, {1, 1, 1}, std::string(4, '\0')));
  EXPECT_ERROR(load_mnist(dir(), "train"), "magic number 0x00000D03 (float, 3 dimensions)");

  write_train(false);
  write("train-labels-idx1-ubyte", idx_bytes(0x08, {4}, std::string("\x07\x00\x09\x01", 4)));
  EXPECT_ERROR(load_mnist(dir(), "train"), "load_mnist: " + images + " holds 3 images but " + labels +
                                               " holds 4 labels; expected one label per image");
  // The counts in the headers are compared, not those read, so a limit does not hide a mismatch.
  EXPECT_ERROR(load_mnist(dir(), "train", DType::f64, 1), "holds 3 images but");

  write("train-labels-idx1-ubyte", idx_bytes(0x08, {3}, "\x07\x0A\x09"));
  EXPECT_ERROR(load_mnist(dir(), "train"),
               "load_mnist: " + labels + ": label 10 for item 1 (from 0); expected a digit 0..9");

  write("train-labels-idx1-ubyte", idx_bytes(0x08, {3}, "\x07\x00"));
  EXPECT_ERROR(load_mnist(dir(), "train"), "load_mnist: read_idx: " + labels + ": truncated data");

  write_train(false);
  write("train-images-idx3-ubyte", idx_bytes(0x08, {3, 0, 2}, ""));
  EXPECT_ERROR(load_mnist(dir(), "train"), images + ": images of 0 x 2 pixels; expected at least one pixel");
}

// ---------------------------------------------------------------------------------------------
// The real MNIST files, where the shared data folder is present (see its README.md)

const std::string kMnistDir = VARIATE_SOURCE_DIR "/../shared/data/mnist";

std::array<std::int64_t, 10> label_counts(const Tensor& labels) {
  std::array<std::int64_t, 10> counts{};
  for (const std::int64_t y : labels.to_vector<std::int64_t>()) ++counts.at(std::size_t(y));
  return counts;
}

TEST(Mnist, TrainAndTestSetsHaveLeCunsSizesAndLabelCounts) {
  if (!std::filesystem::exists(kMnistDir)) GTEST_SKIP() << "no MNIST files in " << kMnistDir;
  // f32 keeps the training images at 188 MB.
  const MnistSplit train = load_mnist(kMnistDir, "train", DType::f32);
  EXPECT_EQ(train.images.shape(), (Shape{60000, 784}));
  EXPECT_EQ(train.labels.shape(), (Shape{60000}));
  // Counts per digit as listed in the data folder's README.md.
  EXPECT_EQ(label_counts(train.labels),
            (std::array<std::int64_t, 10>{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}));
  const float* pixels = train.images.data<float>();
  const auto [low, high] = std::minmax_element(pixels, pixels + train.images.numel());
  EXPECT_EQ(*low, 0.0f);
  EXPECT_EQ(*high, 1.0f);

  const MnistSplit test = load_mnist(kMnistDir, "t10k");
  EXPECT_EQ(test.images.shape(), (Shape{10000, 784}));
  EXPECT_EQ(test.rows, 28);
  EXPECT_EQ(label_counts(test.labels),
            (std::array<std::int64_t, 10>{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}));

  // A limit gives the first examples of the full set.
  const MnistSplit first = load_mnist(kMnistDir, "t10k", DType::f64, 100);
  EXPECT_EQ(first.images.shape(), (Shape{100, 784}));
  const std::vector<double> all = test.images.to_vector<double>();
  EXPECT_EQ(first.images.to_vector<double>(), std::vector<double>(all.begin(), all.begin() + 100 * 784));
  EXPECT_EQ(first.labels.at(0), 7);  // the famous first test image is a 7
}

}  // namespace
}  // namespace variate::data
