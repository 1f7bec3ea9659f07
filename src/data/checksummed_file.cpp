#include "variate/data/checksummed_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "variate/core/error.hpp"

namespace variate::data {

namespace {

constexpr std::size_t kMagicBytes = 10;
constexpr std::size_t kHeaderBytes = kMagicBytes + sizeof(std::uint32_t);
constexpr std::size_t kFramingBytes = kHeaderBytes + sizeof(std::uint32_t);

std::string to_hex(std::uint32_t x) {
  std::ostringstream text;
  text << std::hex << x;
  return text.str();
}

class TemporaryFile {
 public:
  TemporaryFile(const std::filesystem::path& path, const ChecksummedFormat& format)
      : path_(path), format_(format), temporary_(path.string() + ".tmp") {
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("cannot open '" + temporary_.string() + "' for writing");
  }
  // A write that failed leaves no half-written temporary behind.
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_) ::unlink(temporary_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  void write(const void* data, std::size_t size) {
    const char* bytes = static_cast<const char*>(data);
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(fd_, bytes + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("writing '" + temporary_.string() + "' failed");
      done += std::size_t(n);
    }
  }
  // Flushes the file and renames it over the path; fsync of the folder makes the rename durable.
  void commit() {
    if (::fsync(fd_) != 0) fail("flushing '" + temporary_.string() + "' failed");
    ::close(fd_);
    fd_ = -1;
    std::error_code error;
    std::filesystem::rename(temporary_, path_, error);
    if (error)
      fail_checksummed_file(path_, format_, "cannot rename '" + temporary_.string() + "' to it: " + error.message());
    renamed_ = true;
    const std::filesystem::path folder = path_.has_parent_path() ? path_.parent_path() : ".";
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) fail("cannot open its folder to flush it");
    const int rc = ::fsync(fd);
    const int saved = errno;
    ::close(fd);
    errno = saved;
    if (rc != 0) fail("flushing its folder failed");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    fail_checksummed_file(path_, format_, what + ": " + std::strerror(errno));
  }
  const std::filesystem::path& path_;
  const ChecksummedFormat& format_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  bool renamed_ = false;
};

}  // namespace

void fail_checksummed_file(const std::filesystem::path& path, const ChecksummedFormat& format,
                           const std::string& what) {
  variate::detail::fail(format.noun, " '", path.string(), "': ", what);
}

void write_checksummed_file(const std::filesystem::path& path, const ChecksummedFormat& format, std::string_view body) {
  VARIATE_CHECK(format.magic.size() == kMagicBytes, "write_checksummed_file", "the magic of ", format.description,
                " has ", format.magic.size(), " bytes; expected ", kMagicBytes);
  std::string header(format.magic);
  header.append(reinterpret_cast<const char*>(&format.version), sizeof(format.version));
  const std::uint32_t crc = extend_crc32(extend_crc32(0, header.data(), header.size()), body.data(), body.size());
  TemporaryFile file(path, format);
  file.write(header.data(), header.size());
  file.write(body.data(), body.size());
  file.write(&crc, sizeof(crc));
  file.commit();
}

std::string read_checksummed_file(const std::filesystem::path& path, const ChecksummedFormat& format) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail_checksummed_file(path, format, "cannot open the file for reading");
  std::ostringstream buffer;
  buffer << file.rdbuf();
  std::string bytes = std::move(buffer).str();
  if (bytes.size() < kMagicBytes || !std::equal(format.magic.begin(), format.magic.end(), bytes.begin()))
    fail_checksummed_file(path, format, "not a " + std::string(format.description) + " (bad magic bytes)");
  if (bytes.size() < kFramingBytes)
    fail_checksummed_file(
        path, format, "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the header and checksum");
  std::uint32_t version, stored;
  std::memcpy(&version, bytes.data() + kMagicBytes, sizeof(version));
  if (version != format.version)
    fail_checksummed_file(
        path, format,
        "version " + std::to_string(version) + ", but this build reads version " + std::to_string(format.version));
  const std::size_t checked = bytes.size() - sizeof(stored);
  std::memcpy(&stored, bytes.data() + checked, sizeof(stored));
  if (const std::uint32_t crc = extend_crc32(0, bytes.data(), checked); crc != stored)
    fail_checksummed_file(path, format,
                          "checksum mismatch (stored " + to_hex(stored) + ", computed " + to_hex(crc) +
                              "): the file is truncated or corrupt");
  bytes.resize(checked);
  bytes.erase(0, kHeaderBytes);
  return bytes;
}

std::uint32_t extend_crc32(std::uint32_t crc, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const Bytef*>(data);
  for (std::size_t done = 0; done < bytes;) {  // zlib takes at most 4 GiB per call
    const std::size_t part = std::min<std::size_t>(bytes - done, std::size_t(1) << 30);
    crc = std::uint32_t(crc32(crc, p + done, uInt(part)));
    done += part;
  }
  return crc;
}

}  // namespace variate::data
