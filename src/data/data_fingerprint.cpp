#include "variate/data/data_fingerprint.hpp"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "data/read_text.hpp"
#include "variate/core/error.hpp"

namespace variate::data {

namespace {

constexpr const char* kOp = "data_fingerprint";

void add_bytes(uLong& crc, std::uint64_t& count, const char* bytes, std::size_t n) {
  crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes), uInt(n));
  count += n;
}

void add_file(uLong& crc, std::uint64_t& count, const std::string& path) {
  detail::check_readable_kind(path, kOp);
  std::ifstream in(path, std::ios::binary);
  VARIATE_CHECK(in.is_open(), kOp, "cannot open file '", path, "'");
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), std::streamsize(buffer.size()));
    add_bytes(crc, count, buffer.data(), std::size_t(in.gcount()));
    VARIATE_CHECK(count <= detail::kMaxInputBytes, kOp, path, ": holds more than ", detail::kMaxInputBytes,
                  " bytes, the limit for an input file");
  }
  VARIATE_CHECK(in.eof(), kOp, "cannot read file '", path, "'");
}

}  // namespace

std::uint64_t data_fingerprint(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return 0;
  std::error_code ec;
  VARIATE_CHECK(fs::exists(path, ec), kOp, "no file or folder '", path, "'");
  uLong crc = crc32(0L, Z_NULL, 0);
  std::uint64_t count = 0;
  if (!fs::is_directory(path, ec)) {
    add_file(crc, count, path);
  } else {
    std::vector<fs::path> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(path, ec))
      if (entry.is_regular_file(ec)) files.push_back(entry.path());
    VARIATE_CHECK(!ec, kOp, "cannot list the folder '", path, "': ", ec.message());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      const std::string name = file.filename().string();
      add_bytes(crc, count, name.data(), name.size());
      add_file(crc, count, file.string());
    }
  }
  return (count << 32) ^ std::uint64_t(crc);
}

}  // namespace variate::data
