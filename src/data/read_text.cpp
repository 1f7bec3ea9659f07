#include "data/read_text.hpp"

#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include "variate/core/error.hpp"

namespace variate::detail {

std::string gunzip(std::span<const unsigned char> bytes, const char* op, const std::string& source) {
  z_stream stream{};
  // 16 + MAX_WBITS: expect a gzip header and trailer rather than a raw zlib stream.
  VARIATE_CHECK(inflateInit2(&stream, 16 + MAX_WBITS) == Z_OK, op, source, ": cannot initialize zlib");
  const std::unique_ptr<z_stream, int (*)(z_stream*)> end(&stream, inflateEnd);
  VARIATE_CHECK(bytes.size() <= UINT_MAX, op, source, ": ", bytes.size(), " bytes is too large to inflate");
  stream.next_in = const_cast<unsigned char*>(bytes.data());  // zlib's API is not const-correct
  stream.avail_in = static_cast<uInt>(bytes.size());

  std::string text;
  int status = Z_OK;
  while (status == Z_OK) {
    const std::size_t done = text.size();
    text.resize(done + (std::size_t(1) << 16));
    stream.next_out = reinterpret_cast<unsigned char*>(text.data() + done);
    stream.avail_out = static_cast<uInt>(text.size() - done);
    status = inflate(&stream, Z_NO_FLUSH);
    text.resize(text.size() - stream.avail_out);
  }
  VARIATE_CHECK(status == Z_STREAM_END, op, source,
                ": corrupt or truncated gzip data (zlib: ", stream.msg ? stream.msg : "unexpected end of input", ")");
  return text;
}

// zlib passes plain files through gzread unchanged and decompresses gzip ones.
std::string read_text_file(const std::string& path, const char* op) {
  errno = 0;
  const std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  VARIATE_CHECK(file != nullptr, op, "cannot open file '", path, "': ", errno ? std::strerror(errno) : "out of memory");
  std::string text;
  constexpr unsigned kChunk = 1u << 16;
  for (;;) {
    const std::size_t done = text.size();
    text.resize(done + kChunk);
    const int n = gzread(file.get(), text.data() + done, kChunk);
    if (n <= 0) {
      // At the end, Z_BUF_ERROR means the file ended inside a gzip stream: it is truncated.
      int code = Z_OK;
      const char* message = gzerror(file.get(), &code);
      if (n < 0 || code == Z_BUF_ERROR) {
        detail::fail(op, ": cannot read file '", path, "': ", code == Z_ERRNO ? std::strerror(errno) : message);
      }
      text.resize(done);
      return text;
    }
    text.resize(done + static_cast<std::size_t>(n));
  }
}

}  // namespace variate::detail
