#pragma once
// The memory a sampling run allocates as it goes, estimated before it starts, so that a run the
// machine cannot hold fails at once with the figure, not with std::bad_alloc after minutes of
// sampling.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "variate/inference/fisher_adaptation.hpp"
#include "variate/inference/metric.hpp"

namespace variate::inference {

/// Bytes a run will allocate, by cause.
struct SampleMemory {
  double draws = 0;           // the kept draws every chain holds: positions, statistics and file rows
  double metric = 0;          // per chain the metric's matrix, its Cholesky factor and warm-up's estimate
  double initialization = 0;  // what an initialization holds at its peak (LaplaceApproximation::peak_bytes)
  double total() const { return draws + metric + initialization; }
};

/// The estimate for `chains` chains of `draws` kept draws each on a space of `dimension`
/// coordinates, kept as rows of `columns` values (DrawFile): per draw 8 bytes a coordinate and a
/// column and the sampler's statistics; per chain three vectors of doubles for a diagonal metric,
/// three dimension^2 matrices for a dense one, and for a low-rank one (Fisher adaptation, windows
/// of `fisher.switch_interval` draws) the three vectors and 18 x switch_interval more: the windows'
/// draws and gradients (up to 3 windows' worth), the estimate's scaled copies and basis, and the
/// directions (low_rank_rows).
SampleMemory estimate_sample_memory(std::int64_t chains, std::int64_t draws, std::int64_t dimension,
                                    std::int64_t columns, MetricKind metric, const FisherOptions& fisher = {});

/// The vectors of `dimension` doubles a low-rank Fisher metric's adaptation holds per chain, beyond
/// the three of a diagonal metric.
double low_rank_rows(const FisherOptions& fisher);

/// The memory the machine can give new allocations without swapping: MemAvailable in
/// /proc/meminfo, else the free pages sysconf reports, and no more than the process's cgroups
/// allow (cgroup_memory_headroom); nothing when none of these is known.
std::optional<double> available_memory_bytes();

/// What the memory limits of a process's cgroups leave it: limit minus usage, the least over its
/// cgroup and the cgroup's ancestors, read from cgroup v2 (memory.max, memory.current) or from
/// v1's memory controller (memory.limit_in_bytes, memory.usage_in_bytes). `proc_cgroup` is the
/// text of /proc/self/cgroup and `root` where the cgroup file system is mounted (/sys/fs/cgroup).
/// Nothing when no level sets a limit (a container without one, or a limit of "max").
std::optional<double> cgroup_memory_headroom(const std::string& proc_cgroup, const std::filesystem::path& root);

/// "2.1 GB": a byte count in decimal units, three significant digits at most.
std::string byte_text(double bytes);

}  // namespace variate::inference
