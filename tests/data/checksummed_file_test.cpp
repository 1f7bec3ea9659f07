// The framing of variate's binary files: the bytes on disk are the documented ones (so files
// written before keep loading), a round trip keeps the body, and each bad file gives an error
// naming it.
#include "variate/data/checksummed_file.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

constexpr ChecksummedFormat kFormat{
    .magic = {"VARIATE\001TT", 10}, .version = 3, .noun = "test file", .description = "variate test file"};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The documented layout, built here independently of the writer, with zlib's crc32.
std::string framed(std::uint32_t version, const std::string& body) {
  std::string bytes("VARIATE\001TT", 10);
  for (int i = 0; i < 4; ++i) bytes += char((version >> (8 * i)) & 0xff);
  bytes += body;
  const auto crc = std::uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), uInt(bytes.size())));
  for (int i = 0; i < 4; ++i) bytes += char((crc >> (8 * i)) & 0xff);
  return bytes;
}

TEST(ChecksummedFile, Crc32IsZlibsAndContinues) {
  EXPECT_EQ(extend_crc32(0, "123456789", 9), 0xcbf43926u);  // the CRC-32 check value
  EXPECT_EQ(extend_crc32(extend_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
}

TEST(ChecksummedFile, WritesTheDocumentedBytesAndReadsThemBack) {
  const testing::ScratchDir dir("checksummed_round_trip");
  const std::string path = dir / "f.bin";
  const std::string body("body \0 with a zero byte", 23);
  write_checksummed_file(path, kFormat, body);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_EQ(read_bytes(path), framed(3, body));
  EXPECT_EQ(read_checksummed_file(path, kFormat), body);
  write_checksummed_file(path, kFormat, "");  // replaces the file
  EXPECT_EQ(read_checksummed_file(path, kFormat), "");
  EXPECT_EQ(read_checksummed_file(dir.write("by_hand.bin", framed(3, "abc")), kFormat), "abc");
}

TEST(ChecksummedFile, EachBadFileGivesAnErrorNamingIt) {
  const testing::ScratchDir dir("checksummed_errors");
  const std::string good = framed(3, "some body bytes");
  const auto named = [&](const std::string& name) { return "test file '" + (dir / name) + "': "; };

  EXPECT_ERROR(read_checksummed_file(dir / "absent.bin", kFormat), named("absent.bin") + "cannot open the file");
  EXPECT_ERROR(read_checksummed_file(dir.write("other.bin", "VARIATE\001NN and more"), kFormat),
               named("other.bin") + "not a variate test file (bad magic bytes)");
  EXPECT_ERROR(read_checksummed_file(dir.write("short.bin", good.substr(0, 16)), kFormat),
               named("short.bin") + "truncated: 16 bytes, shorter than the header and checksum");
  EXPECT_ERROR(read_checksummed_file(dir.write("newer.bin", framed(4, "x")), kFormat),
               named("newer.bin") + "version 4, but this build reads version 3");
  std::string flipped = good;
  flipped[16] ^= 0x10;
  EXPECT_ERROR(read_checksummed_file(dir.write("flipped.bin", flipped), kFormat),
               named("flipped.bin") + "checksum mismatch (stored ");
  EXPECT_ERROR(read_checksummed_file(dir.write("cut.bin", good.substr(0, good.size() - 3)), kFormat),
               "): the file is truncated or corrupt");
  EXPECT_ERROR(write_checksummed_file(dir / "no/such/folder/f.bin", kFormat, "x"),
               "test file '" + (dir / "no/such/folder/f.bin") + "': cannot open '" + (dir / "no/such/folder/f.bin") +
                   ".tmp' for writing: No such file or directory");
}

TEST(ChecksummedFile, AFailedWriteLeavesNoTemporary) {
  const testing::ScratchDir dir("checksummed_failed_write");
  const std::string path = dir / "taken";
  std::filesystem::create_directories(path);  // a folder, not empty, where the file should go
  dir.write("taken/inside", "x");
  EXPECT_ERROR(write_checksummed_file(path, kFormat, "x"),
               "test file '" + path + "': cannot rename '" + path + ".tmp'");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

}  // namespace
}  // namespace variate::data
