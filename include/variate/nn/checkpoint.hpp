#pragma once
// Named tensors on disk: a module's parameters, or any state a training loop keeps (an optimizer's
// moments), in one binary file with a checksum. docs/nn.md describes the format:
//
//   magic "VARIATE\x01NN" (10 bytes), u32 version (1), u64 count, then count records
//     u32 name length, name (UTF-8), u8 dtype (0 bool, 1 i32, 2 i64, 3 f32, 4 f64), u8 rank,
//     i64 dims[rank], the elements (row-major, numel * itemsize bytes),
//   then u32 CRC-32 (zlib's crc32) of every byte before it (data/checksummed_file.hpp's framing,
//   whose body is the count and the records).
//
// All integers and elements little-endian. Files are written atomically (checksummed_file.hpp), so
// a reader never sees a half-written checkpoint. Every error names the file and what is wrong.
#include <filesystem>
#include <span>
#include <vector>

#include "variate/nn/module.hpp"

namespace variate::nn {

void save_tensors(const std::filesystem::path& path, std::span<const NamedTensor> tensors);
/// Reads every record; throws on a missing or unreadable file, bad magic, an unknown version, a
/// checksum mismatch or a truncated record.
std::vector<NamedTensor> load_tensors(const std::filesystem::path& path);

/// Writes the module's parameters.
void save(const Module& module, const std::filesystem::path& path);
/// Replaces the module's parameters by the file's. The file must hold exactly the module's
/// parameter names, each with the module's shape and dtype; otherwise it throws, listing the
/// missing and extra names or the mismatched parameter, and leaves the module unchanged.
void load(Module& module, const std::filesystem::path& path);

}  // namespace variate::nn
