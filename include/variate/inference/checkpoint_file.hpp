#pragma once
// A checkpoint on disk: one chain's state between two iterations (chain_state.hpp), or a batch's
// whose chains run in lockstep (vectorized chains, ChEES-HMC's among them: they must all restart
// from the same iteration, so one file holds them all), each chain's as every device's part when
// the parameters are sharded over a mesh, and what identifies the run that made it,
// so that a resume with another model, other data or other options is refused instead of
// continuing someone else's chain. docs/inference.md describes it:
//
//   magic "VARIATE\x01CK" (10 bytes), u32 version (3), u64 payload length, the payload, then u32
//   CRC-32 (zlib's crc32) of every byte before it (data/checksummed_file.hpp's framing, whose
//   body is the length and the payload). The payload: the identity and the notes, each a
//   u32 count of (key, value) strings; u32 count of chains, then each chain: i32 chain, i64
//   iteration, f64 log density, f64 step size, u64 step-size searches, f64 warm-up and sampling
//   seconds, the position and the gradient (f64 vectors), the metric (u8 kind: 0 diagonal, 1 dense,
//   2 low-rank; i64 dimension; f64 vector of M⁻¹, or of D for low-rank, which then has f64 vectors
//   of its directions U, k × dimension, and eigenvalues λ), dual averaging (f64 mu, s_bar, x_bar;
//   i64 count), the metric adaptation (u8 tag: 0 Stan's windows, followed by the Welford sums: i64
//   count, f64 vectors mean and m2; 1 Fisher divergence, followed by its foreground then background
//   window, each i64 count and f64 vectors mean and m2 of the draws, mean and m2 of the gradients,
//   the draws and the gradients, count × dimension each for low-rank, else empty), and the
//   sampler's state: u8 tag, 0 for none (NUTS, static HMC) or 1 for ChEES-HMC, followed by its
//   dual averaging, f64 step size, trajectory length, Adam's mean square, the average of log T, i64
//   update count, u8 1 and the pooled Welford sums if it has them (else 0), and f64 trajectory
//   length after warm-up. A string is a u32 length and its bytes, an f64 vector a u64 length and
//   its elements; all little-endian, doubles bit for bit. Older versions (1: one chain, no sampler
//   tag; 2: no metric adaptation tag, no low-rank metric) are refused by their version number.
//
// Files are written atomically (data/checksummed_file.hpp): a reader finds the old checkpoint or
// the new one, never a mixture.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "variate/inference/chain_state.hpp"

namespace variate::inference {

/// (key, value) pairs: what identifies a run (the model, its parameters, the data's fingerprint,
/// the options the draws depend on), or the caller's notes.
using CheckpointEntries = std::vector<std::pair<std::string, std::string>>;

struct Checkpoint {
  CheckpointEntries identity;      // must match the resuming run's (check_identity)
  CheckpointEntries notes;         // the caller's own bookkeeping, not compared
  std::vector<ChainState> chains;  // one, or a lockstep batch's (at least one); a chain's device parts in a row
};

/// Writes `checkpoint` to `path` atomically (see above). Throws variate::Error naming the file and
/// the system's reason when it cannot be written.
void write_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint);

/// Reads a checkpoint; throws variate::Error naming the file when it is missing or unreadable, is
/// not a checkpoint, has a newer version, is truncated, or fails its checksum.
Checkpoint read_checkpoint(const std::filesystem::path& path);

/// A checkpoint's payload (the part between the file's header and its checksum) as bytes, and
/// back: how the devices of a mesh send their chains' states to the device that writes them.
/// decode_checkpoint throws variate::Error naming `source` when the bytes are not such a payload.
std::string encode_checkpoint(const Checkpoint& checkpoint);
Checkpoint decode_checkpoint(std::string_view payload, const std::filesystem::path& source);

/// Throws variate::Error unless `recorded` (a checkpoint's identity) has every entry of
/// `expected` with the same value, naming the file and the first entry that differs, with both values.
void check_identity(const std::filesystem::path& path, const CheckpointEntries& recorded,
                    const CheckpointEntries& expected);

/// The value of `key` in `entries`, or nullptr.
const std::string* find_entry(const CheckpointEntries& entries, const std::string& key);

}  // namespace variate::inference
