#include "data/read_text.hpp"

#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "variate/core/error.hpp"

namespace variate::detail {

void check_size(std::size_t bytes, std::size_t max_bytes, const char* op, const std::string& source) {
  VARIATE_CHECK(bytes <= max_bytes, op, source, ": holds more than ", max_bytes,
                " bytes (after decompression), the limit for an input file; is it the file you meant?");
}

std::size_t read_chunk(gzFile_s* file, char* data, unsigned bytes, const char* op, const std::string& path) {
  const int n = gzread(file, data, bytes);
  if (n > 0) return std::size_t(n);
  // At the end, Z_BUF_ERROR means the file ended inside a gzip stream: it is truncated.
  int code = Z_OK;
  const char* message = gzerror(file, &code);
  if (n < 0 || code == Z_BUF_ERROR) {
    detail::fail(op, ": cannot read file '", path, "': ", code == Z_ERRNO ? std::strerror(errno) : message);
  }
  return 0;
}

namespace {

// window_bits as zlib's inflateInit2 takes them: 16 + MAX_WBITS for gzip, -MAX_WBITS for the raw
// deflate data of a zip member.
std::string inflate_all(std::span<const unsigned char> bytes, int window_bits, const char* format, const char* op,
                        const std::string& source, std::size_t max_bytes) {
  z_stream stream{};
  VARIATE_CHECK(inflateInit2(&stream, window_bits) == Z_OK, op, source, ": cannot initialize zlib");
  const std::unique_ptr<z_stream, int (*)(z_stream*)> end(&stream, inflateEnd);
  VARIATE_CHECK(bytes.size() <= UINT_MAX, op, source, ": ", bytes.size(), " bytes is too large to inflate");
  stream.next_in = const_cast<unsigned char*>(bytes.data());  // zlib's API is not const-correct
  stream.avail_in = static_cast<uInt>(bytes.size());

  std::string text;
  int status = Z_OK;
  while (status == Z_OK) {
    const std::size_t done = text.size();
    check_size(done, max_bytes, op, source);
    text.resize(done + (std::size_t(1) << 16));
    stream.next_out = reinterpret_cast<unsigned char*>(text.data() + done);
    stream.avail_out = static_cast<uInt>(text.size() - done);
    status = inflate(&stream, Z_NO_FLUSH);
    text.resize(text.size() - stream.avail_out);
  }
  VARIATE_CHECK(status == Z_STREAM_END, op, source, ": corrupt or truncated ", format,
                " data (zlib: ", stream.msg ? stream.msg : "unexpected end of input", ")");
  check_size(text.size(), max_bytes, op, source);
  return text;
}

std::uint32_t le16(const std::string& b, std::size_t at) {
  return std::uint32_t(static_cast<unsigned char>(b[at])) | std::uint32_t(static_cast<unsigned char>(b[at + 1])) << 8;
}
std::uint32_t le32(const std::string& b, std::size_t at) { return le16(b, at) | le16(b, at + 2) << 16; }

}  // namespace

std::string gunzip(std::span<const unsigned char> bytes, const char* op, const std::string& source,
                   std::size_t max_bytes) {
  return inflate_all(bytes, 16 + MAX_WBITS, "gzip", op, source, max_bytes);
}

bool is_zip(const std::string& contents) { return contents.rfind(std::string("PK\x03\x04", 4), 0) == 0; }

// The zip layout (PKWARE's APPNOTE.TXT, sections 4.3.7, 4.3.12 and 4.3.16): the end-of-central-
// directory record at the end names the central directory, whose entries give each member's
// method, sizes, CRC-32 and local header; the member's data follow its local header.
std::string unzip_single(const std::string& zip, const char* op, const std::string& path, std::size_t max_bytes) {
  const auto need = [&](bool ok, const char* what) {
    VARIATE_CHECK(ok, op, path, ": not a readable zip archive (", what, ")");
  };
  need(zip.size() >= 22, "too short");
  std::size_t eocd = std::string::npos;
  const std::size_t lowest = zip.size() > 22 + 65535 ? zip.size() - 22 - 65535 : 0;
  for (std::size_t at = zip.size() - 22 + 1; at-- > lowest;)
    if (le32(zip, at) == 0x06054b50) {
      eocd = at;
      break;
    }
  need(eocd != std::string::npos, "no end-of-central-directory record");
  const std::uint32_t entries = le16(zip, eocd + 10), directory = le32(zip, eocd + 16);
  need(entries != 0xFFFF && directory != 0xFFFFFFFF, "zip64 archives are not supported");

  struct Member {
    std::string name;
    std::uint32_t method, crc, compressed, size, local;
  };
  std::vector<Member> members;
  std::size_t at = directory;
  for (std::uint32_t i = 0; i < entries; ++i) {
    need(at + 46 <= zip.size() && le32(zip, at) == 0x02014b50, "a broken central directory");
    const std::size_t name_length = le16(zip, at + 28), extra = le16(zip, at + 30), comment = le16(zip, at + 32);
    need(at + 46 + name_length <= zip.size(), "a broken central directory");
    Member m{zip.substr(at + 46, name_length),
             le16(zip, at + 10),
             le32(zip, at + 16),
             le32(zip, at + 20),
             le32(zip, at + 24),
             le32(zip, at + 42)};
    need(m.compressed != 0xFFFFFFFF && m.size != 0xFFFFFFFF && m.local != 0xFFFFFFFF,
         "zip64 archives are not supported");
    // Folders and the resource forks macOS adds are not members with data.
    if (!m.name.empty() && m.name.back() != '/' && m.name.rfind("__MACOSX/", 0) != 0) members.push_back(std::move(m));
    at += 46 + name_length + extra + comment;
  }
  VARIATE_CHECK(members.size() == 1, op, path, ": a zip archive must hold exactly one file, found ", members.size(),
                [&] {
                  std::string names;
                  for (const Member& m : members) names += (names.empty() ? ": " : ", ") + m.name;
                  return names;
                }());
  const Member& m = members.front();
  const std::string source = path + " (member " + m.name + ")";
  need(std::size_t(m.local) + 30 <= zip.size() && le32(zip, m.local) == 0x04034b50, "a broken local header");
  const std::size_t data = m.local + 30 + le16(zip, m.local + 26) + le16(zip, m.local + 28);
  need(data + m.compressed <= zip.size(), "a member that runs past the end of the file");
  const std::span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(zip.data()) + data, m.compressed);
  check_size(m.size, max_bytes, op, source);
  std::string text;
  if (m.method == 0) {
    text.assign(zip, data, m.compressed);
  } else {
    VARIATE_CHECK(m.method == 8, op, source, ": compression method ", m.method,
                  " is not supported; expected stored (0) or deflate (8)");
    text = inflate_all(bytes, -MAX_WBITS, "zip", op, source, max_bytes);
  }
  VARIATE_CHECK(text.size() == m.size, op, source, ": the member inflates to ", text.size(), " bytes, but ", m.size,
                " are recorded");
  const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  VARIATE_CHECK(crc == m.crc, op, source, ": CRC-32 mismatch: the archive is corrupt");
  return text;
}

void check_readable_kind(const std::string& path, const char* op) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_type type = fs::status(path, ec).type();
  if (ec || type == fs::file_type::not_found) return;  // opening it names the problem
  VARIATE_CHECK(type == fs::file_type::regular || type == fs::file_type::fifo, op, "'", path, "' is ",
                type == fs::file_type::directory ? "a folder" : "not a regular file (a device or a socket)",
                "; expected a data file");
}

// zlib passes plain files through gzread unchanged and decompresses gzip ones.
std::string read_text_file(const std::string& path, const char* op, std::size_t max_bytes) {
  check_readable_kind(path, op);
  errno = 0;
  const std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  VARIATE_CHECK(file != nullptr, op, "cannot open file '", path, "': ", errno ? std::strerror(errno) : "out of memory");
  std::string text;
  constexpr unsigned kChunk = 1u << 16;
  // A plain file's size is its text's: one allocation instead of doublings that copy a large file
  // (chains of draws run to gigabytes) several times over. Compressed files grow from there.
  std::error_code size_error;
  const std::uintmax_t bytes = std::filesystem::file_size(path, size_error);
  if (!size_error && bytes < max_bytes) text.reserve(std::size_t(bytes) + kChunk);
  for (;;) {
    const std::size_t done = text.size();
    check_size(done, max_bytes, op, path);
    text.resize(done + kChunk);
    const std::size_t n = read_chunk(file.get(), text.data() + done, kChunk, op, path);
    if (n == 0) {
      text.resize(done);
      if (is_zip(text)) text = unzip_single(text, op, path, max_bytes);
      // Editors on Windows start UTF-8 text with a byte-order mark; it is not part of the data.
      if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
      return text;
    }
    text.resize(done + n);
  }
}

}  // namespace variate::detail
