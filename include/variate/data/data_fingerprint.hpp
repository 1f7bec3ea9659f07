#pragma once
// A fingerprint of the data a run reads, so that processes that must read the same data (the ranks
// of an MPI job) can check that they do before they compute with it.
#include <cstdint>
#include <string>

namespace variate::data {

/// The CRC-32 of the bytes at `path` (as stored, compressed or not), in the low 32 bits, and their
/// count in the high ones. A folder's fingerprint covers the name and bytes of each regular file in
/// it, in name order (subfolders are not read); an empty path gives 0. Throws variate::Error naming
/// the path when it does not exist or cannot be read.
std::uint64_t data_fingerprint(const std::string& path);

}  // namespace variate::data
