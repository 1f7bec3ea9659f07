#pragma once
// Reading whole text files, plain or gzip-compressed, for the data layer's readers. The helpers
// live in variate::detail (not data::detail) so that `detail::fail` keeps meaning the core one.
#include <span>
#include <string>

namespace variate::detail {

/// The contents of `path`; a gzip file (detected from its content, whatever its name) comes back
/// decompressed. Throws variate::Error starting with `op` and naming the file when it cannot be
/// opened or read, or when its gzip data is truncated or corrupt.
std::string read_text_file(const std::string& path, const char* op);

/// Decompresses a whole gzip stream held in memory; `source` names it in errors.
std::string gunzip(std::span<const unsigned char> bytes, const char* op, const std::string& source);

}  // namespace variate::detail
