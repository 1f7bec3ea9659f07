#pragma once
// The framing of variate's binary files (chain checkpoints, inference/checkpoint_file.hpp; module
// and training checkpoints, nn/checkpoint.hpp), in one place:
//
//   magic (10 bytes), u32 version, the body (the format's own), then u32 CRC-32 (zlib's crc32) of
//   every byte before it; little-endian.
//
// A file is written to "<path>.tmp", flushed to the disk (fsync), renamed over `path` and its
// folder flushed, so that a reader finds the old file or the new one, never a mixture, even after
// a crash or a SIGKILL. Every error names the file.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace variate::data {

static_assert(std::endian::native == std::endian::little,
              "variate's binary files store little-endian numbers as they are in memory");

/// What tells one format from another, and how errors name its files.
struct ChecksummedFormat {
  std::string_view magic;        // exactly 10 bytes
  std::uint32_t version;         // the one this build writes and reads
  std::string_view noun;         // errors start "<noun> '<path>': ", such as "checkpoint"
  std::string_view description;  // a file without the magic is "not a <description>"
};

/// Writes `body` framed as above to `path`, atomically. Throws variate::Error naming the file and
/// the system's reason when it cannot be written.
void write_checksummed_file(const std::filesystem::path& path, const ChecksummedFormat& format, std::string_view body);

/// The body of the file at `path`. Throws variate::Error naming the file when it cannot be read,
/// lacks the format's magic, is shorter than the framing, has another version, or fails its
/// checksum (a truncated file does).
std::string read_checksummed_file(const std::filesystem::path& path, const ChecksummedFormat& format);

/// Throws variate::Error "<noun> '<path>': <what>": what a format's reader says of a bad body.
[[noreturn]] void fail_checksummed_file(const std::filesystem::path& path, const ChecksummedFormat& format,
                                        const std::string& what);

/// The CRC-32 (zlib's) of `bytes` bytes at `data`, continuing `crc` (0 to start).
std::uint32_t extend_crc32(std::uint32_t crc, const void* data, std::size_t bytes);

}  // namespace variate::data
