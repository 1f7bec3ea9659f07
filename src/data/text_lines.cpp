#include "data/text_lines.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "variate/core/error.hpp"

namespace variate::detail {
namespace {

// Large enough that a read costs little per byte, small enough to stay in the processor's caches.
constexpr unsigned kChunk = 1u << 20;

}  // namespace

TextLines::TextLines(const std::string& path, const char* op, std::size_t max_bytes)
    : path_(path), op_(op), max_bytes_(max_bytes) {
  check_readable_kind(path, op);
  errno = 0;
  file_ = gzopen(path.c_str(), "rb");  // zlib passes plain files through unchanged
  VARIATE_CHECK(file_ != nullptr, op, "cannot open file '", path,
                "': ", errno ? std::strerror(errno) : "out of memory");
}

TextLines::~TextLines() { gzclose(file_); }

bool TextLines::fill() {
  if (at_end_) return false;
  buffer_.erase(0, start_);
  start_ = 0;
  const std::size_t kept = buffer_.size();
  buffer_.resize(kept + kChunk);
  const std::size_t n = read_chunk(file_, buffer_.data() + kept, kChunk, op_, path_);
  buffer_.resize(kept + n);
  read_ += n;
  check_size(read_, max_bytes_, op_, path_);
  if (first_chunk_) {
    first_chunk_ = false;
    // A zip archive is read whole: its directory is at its end.
    if (is_zip(buffer_)) {
      buffer_ = read_text_file(path_, op_, max_bytes_);
      at_end_ = true;
      return true;
    }
    // Editors on Windows start UTF-8 text with a byte-order mark; it is not part of the data.
    if (buffer_.starts_with("\xEF\xBB\xBF")) buffer_.erase(0, 3);
  }
  at_end_ = n == 0;
  return n > 0;
}

bool TextLines::next(std::string_view& line) {
  for (std::size_t from = start_;;) {
    const std::size_t newline = buffer_.find('\n', from);
    if (newline != std::string::npos) {
      line = std::string_view(buffer_).substr(start_, newline - start_);
      start_ = newline + 1;
      ended_ = true;
      return true;
    }
    from = buffer_.size() - start_;  // where the search goes on once fill() has moved the line
    if (!fill()) break;
  }
  if (start_ == buffer_.size()) return false;
  line = std::string_view(buffer_).substr(start_);
  start_ = buffer_.size();
  ended_ = false;
  return true;
}

}  // namespace variate::detail
