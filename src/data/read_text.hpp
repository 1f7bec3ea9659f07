#pragma once
// Reading whole text files, plain or gzip-compressed, for the data layer's readers. The helpers
// live in variate::detail (not data::detail) so that `detail::fail` keeps meaning the core one.
#include <cstddef>
#include <span>
#include <string>

struct gzFile_s;  // zlib's file handle (gzFile)

namespace variate::detail {

/// The most bytes an input file may hold, after decompression: 2 GiB, far above any data set a
/// model here reads, and a bound on what /dev/zero, an endless pipe or a gzip bomb can make us read.
inline constexpr std::size_t kMaxInputBytes = std::size_t(1) << 31;

/// Throws variate::Error starting with `op` and naming `source` when `bytes` exceeds `max_bytes`.
void check_size(std::size_t bytes, std::size_t max_bytes, const char* op, const std::string& source);

/// Reads up to `bytes` bytes of `file` (opened with gzopen) into `data`: how many, 0 at the end.
/// Throws variate::Error starting with `op` and naming `path` when it cannot be read or a gzip
/// stream is truncated or corrupt.
std::size_t read_chunk(gzFile_s* file, char* data, unsigned bytes, const char* op, const std::string& path);

/// Throws variate::Error starting with `op` and naming `path` when it exists but is neither a
/// regular file nor a pipe (a device such as /dev/zero, a folder, a socket); symbolic links are
/// followed to what they name.
void check_readable_kind(const std::string& path, const char* op);

/// The contents of `path`; a gzip file, or a zip archive holding one file (detected from the
/// content, whatever the name), comes back decompressed, and a UTF-8 byte-order mark at its start
/// is dropped. Throws variate::Error starting with `op` and naming the file when it cannot be
/// opened or read (check_readable_kind), when it holds more than `max_bytes` bytes (after
/// decompression), when its compressed data is truncated or corrupt, or when a zip archive holds
/// more or less than one file.
std::string read_text_file(const std::string& path, const char* op, std::size_t max_bytes = kMaxInputBytes);

/// Decompresses a whole gzip stream held in memory; `source` names it in errors, which include
/// data that would inflate past `max_bytes`.
std::string gunzip(std::span<const unsigned char> bytes, const char* op, const std::string& source,
                   std::size_t max_bytes = kMaxInputBytes);

/// Whether `contents` are a zip archive, and its one file's contents (as read_text_file).
bool is_zip(const std::string& contents);
std::string unzip_single(const std::string& zip, const char* op, const std::string& path,
                         std::size_t max_bytes = kMaxInputBytes);

}  // namespace variate::detail
