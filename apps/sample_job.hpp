#pragma once
// `variate sample`, the main job: draws from a named model's posterior with NUTS or static HMC,
// streams the draws to Stan CSV files (one per chain, readable by CmdStan's tools and ArviZ) as
// they are made, and prints the summary of the main parameters, the sampler's diagnostics and,
// for classifiers, held-out accuracy.
#include <cstdint>
#include <ostream>
#include <string>

namespace variate::cli {

struct SampleJobOptions {
  std::string model = "digits-softmax";
  std::string model_file;  // a model plugin instead of `model`
  std::string data;        // empty: the model's default data
  int chains = 4;
  std::int64_t warmup = 1000;
  std::int64_t draws = 1000;
  std::int64_t thin = 1;  // write every thin-th kept draw (CmdStan's thin)
  std::uint64_t seed = 1;
  int threads = 0;                // 0: one per core
  std::string sampler = "nuts";   // nuts | hmc | chees
  std::string metric = "auto";    // auto | diag | dense | fisher-diag | fisher-low-rank | unit (chosen_metric)
  std::string precision = "f64";  // f64 | f32
  std::string output = "variate-output";
  // csv | netcdf | both: netCDF is one file <output>/<model>.nc (netcdf_draws.hpp)
  std::string output_format = "csv";
  bool overwrite = false;  // replace an earlier run's files in `output` instead of refusing
  int max_depth = 10;
  double adapt_delta = 0.8;
  int leapfrog_steps = 0;        // static HMC: 0 = trajectory_length / step size
  double trajectory_length = 0;  // static HMC: Stan's int_time; 0 = not given, Stan's 2 pi
  double trajectory_jitter = 0;  // static HMC: StaticHmcOptions::jitter
  bool vectorize = false;        // all chains in one lockstep batch
  int devices = 1;               // thread devices the data (and sharded latents) are split over
  // gather: device 0 writes every column; per-device: each device writes its rows of the sharded
  // sites to files of its own, listed in a manifest (shard_output.hpp)
  std::string sharded_draws = "gather";
  bool predictive = false;  // a posterior predictive draw of each observed site per draw, as <site>_rep
  bool log_lik = false;     // the pointwise log-likelihood per draw, as log_lik.1 ... log_lik.N
  bool report = false;      // also write the HTML report (report/report_job.hpp) to output/report.html
  bool save_all = false;    // write every latent site, also those the model leaves out (Model::saved_sites)

  std::string progress = "auto";  // auto | bars | lines | json (progress.hpp)
  bool quiet = false;             // no progress at all
  std::string init = "random";    // random | pathfinder (pathfinder_init.hpp)
  // Checkpoints (sample_checkpoints.hpp): every N iterations (0: none, or on --resume the
  // interval the run recorded); the output folder of a run to continue; a run to warm-start from.
  std::int64_t checkpoint_every = 0;
  std::string resume;
  std::string init_from;
};

/// Runs the job: results to `out`, progress to `progress` (`terminal`: whether it is one, for
/// --progress auto). Returns the exit code: 0, or 130 when interrupted by SIGINT (the files then hold
/// every draw made). Throws variate::Error for bad options, data or output folders.
int run_sample_job(const SampleJobOptions& options, std::ostream& out, std::ostream& progress, bool terminal);

}  // namespace variate::cli
