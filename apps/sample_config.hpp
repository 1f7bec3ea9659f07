#pragma once
// `variate sample`'s options turned into the sampler's, and the configuration each Stan CSV file
// records in its comment lines (CmdStan's keys, so its readers find what they look for).
#include <string>
#include <utility>
#include <vector>

#include "models.hpp"
#include "sample_job.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::cli {

/// The metric --metric names; for `auto`, fisher-low-rank (nutpie's low-rank Fisher adaptation,
/// the more effective draws per gradient on the posteriordb suite, docs/inference.md) where it is
/// supported, and diag (Stan's) with --sampler chees and on a mesh of devices.
std::string chosen_metric(const SampleJobOptions& o);

/// Checks the options and builds the sampler's (with the chosen metric); throws variate::Error
/// naming the bad option.
inference::SamplerOptions sampler_options(const SampleJobOptions& o);

/// Checks --checkpoint-every, --resume and --init-from against the other options.
void check_checkpoint_options(const SampleJobOptions& o);

/// The "# key = value" lines of chain `chain`'s file `path`. `sharded_draws` is the mode in effect
/// (recorded with more than one device); `device` >= 0 marks a device's file of sharded sites.
std::vector<std::pair<std::string, std::string>> config_lines(const SampleJobOptions& o, const Model& m,
                                                              const inference::SamplerOptions& s, int chain,
                                                              const std::string& path, int threads, int devices,
                                                              const std::string& sharded_draws, int device = -1);

}  // namespace variate::cli
