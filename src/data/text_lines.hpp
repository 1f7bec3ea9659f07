#pragma once
// A text file read line by line, a chunk at a time, for readers of files too large to hold whole
// (chains of draws run to gigabytes): the file is what read_text_file would return (plain, gzip,
// or a zip archive's one file, without a UTF-8 byte-order mark), cut at each '\n'.
//
//   detail::TextLines lines(path, "read_stan_csv");
//   for (std::string_view line; lines.next(line);)
//     if (!lines.ended()) ...  // the file's last line, without its line end
#include <cstddef>
#include <string>
#include <string_view>

#include "data/read_text.hpp"

namespace variate::detail {

class TextLines {
 public:
  /// Opens `path`; throws variate::Error starting with `op` and naming the file when it cannot be
  /// opened or is not a regular file or a pipe (check_readable_kind).
  TextLines(const std::string& path, const char* op, std::size_t max_bytes = kMaxInputBytes);
  ~TextLines();
  TextLines(const TextLines&) = delete;
  TextLines& operator=(const TextLines&) = delete;

  /// The next line without its '\n' (a '\r' before it stays), valid until the next call; false
  /// after the last line. Throws as read_text_file does for a file that cannot be read, is corrupt
  /// or holds more than `max_bytes` bytes.
  bool next(std::string_view& line);
  /// Whether the line `next` gave ended in '\n'; only a file's last line may not.
  bool ended() const { return ended_; }

 private:
  // Moves the unfinished line to the front of the buffer and reads the next chunk after it; false
  // at the end of the file.
  bool fill();

  std::string path_;
  const char* op_;
  std::size_t max_bytes_;
  gzFile_s* file_ = nullptr;
  std::string buffer_;
  std::size_t start_ = 0;  // of the next line in buffer_
  std::size_t read_ = 0;   // bytes read from the file so far, after decompression
  bool first_chunk_ = true;
  bool at_end_ = false;
  bool ended_ = true;
};

}  // namespace variate::detail
