#include "sample_timing.hpp"

#include <algorithm>
#include <iomanip>

#include "netcdf_draws.hpp"
#include "shard_output.hpp"

namespace variate::cli {

void print_timing(std::ostream& out, const SampleContext& job, const inference::SampleResult& result,
                  std::chrono::steady_clock::time_point wall_start, bool per_device, const std::filesystem::path& dir) {
  double longest_sampling = 0, longest_warmup = 0;
  std::int64_t leapfrogs = 0;
  for (const inference::ChainResult& r : result.chains) {
    for (const inference::TransitionStats& s : r.stats) leapfrogs += s.n_leapfrog;
    longest_sampling = std::max(longest_sampling, r.sampling_seconds);
    longest_warmup = std::max(longest_warmup, r.warmup_seconds);
  }
  const SampleJobOptions& o = job.options;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  out << std::fixed << std::setprecision(1) << "\ntime: " << wall << " s wall; slowest chain " << longest_warmup
      << " s warm-up + " << longest_sampling << " s sampling; " << result.target_calls
      << " gradient evaluations (target calls" << (o.vectorize ? ", each for all chains" : "")
      << (job.at.devices > 1 ? ", each on every device" : "") << "), " << leapfrogs << " leapfrog steps after warm-up\n"
      << "wrote " << (writes_csv(o.output_format) ? std::to_string(o.chains) + " Stan CSV files, " : "")
      << (writes_netcdf(o.output_format) ? netcdf_file_name(job.model.name) + ", " : "")
      << (per_device ? "the devices' files of the sharded sites, " + manifest_file_name(job.model.name) + ", " : "")
      << "summary.csv and summary.json to " << dir.string() << '\n'
      << std::defaultfloat;
}

}  // namespace variate::cli
