#include "variate/data/data_fingerprint.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

TEST(DataFingerprint, TellsFilesAndFoldersApartByContent) {
  const testing::ScratchDir dir("data_fingerprint");
  const std::uint64_t a = data_fingerprint(dir.write("a.csv", "y\n0\n1\n"));
  EXPECT_EQ(data_fingerprint(dir.write("same.csv", "y\n0\n1\n")), a) << "the name of a file is not part of it";
  EXPECT_NE(data_fingerprint(dir.write("other.csv", "y\n1\n1\n")), a) << "the same size, other values";
  EXPECT_EQ(a >> 32, 6u) << "the byte count";
  EXPECT_EQ(data_fingerprint(""), 0u);

  std::filesystem::create_directories(dir.path() / "one");
  std::filesystem::create_directories(dir.path() / "two");
  dir.write("one/u.data", "1\t1\t5\t0\n");
  dir.write("one/u.item", "1|Toy Story\n");
  dir.write("two/u.item", "1|Toy Story\n");
  dir.write("two/u.data", "1\t1\t5\t0\n");
  EXPECT_EQ(data_fingerprint(dir / "one"), data_fingerprint(dir / "two")) << "files are taken in name order";
  dir.write("two/u.data", "1\t1\t4\t0\n");
  EXPECT_NE(data_fingerprint(dir / "one"), data_fingerprint(dir / "two"));

  EXPECT_ERROR(data_fingerprint(dir / "absent.csv"), "data_fingerprint: no file or folder '" + (dir / "absent.csv"));
  EXPECT_ERROR(data_fingerprint("/dev/zero"), "'/dev/zero' is not a regular file");
}

}  // namespace
}  // namespace variate::data
