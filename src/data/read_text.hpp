#pragma once
// Reading whole text files, plain or gzip-compressed, for the data layer's readers. The helpers
// live in variate::detail (not data::detail) so that `detail::fail` keeps meaning the core one.
#include <span>
#include <string>

namespace variate::detail {

/// The contents of `path`; a gzip file, or a zip archive holding one file (detected from the
/// content, whatever the name), comes back decompressed. Throws variate::Error starting with `op`
/// and naming the file when it cannot be opened or read, when its compressed data is truncated or
/// corrupt, or when a zip archive holds more or less than one file.
std::string read_text_file(const std::string& path, const char* op);

/// Decompresses a whole gzip stream held in memory; `source` names it in errors.
std::string gunzip(std::span<const unsigned char> bytes, const char* op, const std::string& source);

/// Whether `contents` are a zip archive, and its one file's contents (as read_text_file).
bool is_zip(const std::string& contents);
std::string unzip_single(const std::string& zip, const char* op, const std::string& path);

}  // namespace variate::detail
