#pragma once
// The memory a sampling run allocates as it goes, estimated before it starts, so that a run the
// machine cannot hold fails at once with the figure, not with std::bad_alloc after minutes of
// sampling.
#include <cstdint>
#include <optional>
#include <string>

namespace variate::inference {

/// Bytes a run will allocate, by cause.
struct SampleMemory {
  double draws = 0;   // the kept draws every chain holds: positions, statistics and file rows
  double metric = 0;  // per chain the metric's matrix, its Cholesky factor and warm-up's estimate
  double total() const { return draws + metric; }
};

/// The estimate for `chains` chains of `draws` kept draws each on a space of `dimension`
/// coordinates, kept as rows of `columns` values (DrawFile): per draw 8 bytes a coordinate and a
/// column and the sampler's statistics; per chain three dimension^2 matrices of doubles for a
/// dense metric, three vectors for a diagonal one.
SampleMemory estimate_sample_memory(std::int64_t chains, std::int64_t draws, std::int64_t dimension,
                                    std::int64_t columns, bool dense_metric);

/// The memory the machine can give new allocations without swapping: MemAvailable in
/// /proc/meminfo, else the free pages sysconf reports; nothing when neither is known.
std::optional<double> available_memory_bytes();

/// "2.1 GB": a byte count in decimal units, three significant digits at most.
std::string byte_text(double bytes);

}  // namespace variate::inference
