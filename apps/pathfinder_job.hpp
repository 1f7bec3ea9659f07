#pragma once
// `variate pathfinder`: multi-path Pathfinder (inference::pathfinder) on a built-in model or a
// plugin. Prints each path's L-BFGS run and chosen iterate, the draws' summary in `sample`'s table,
// the gradients used and PSIS's k-hat (warning above 0.7); writes the draws as Stan CSV in the layout
// of CmdStan's `pathfinder` method (lp_approx__ = log q of the mixture of the paths' Gaussians,
// lp__ = log p with the Jacobian term, then the parameters and generated quantities) and the full
// summary table next to it.
#include <cstdint>
#include <ostream>
#include <string>

namespace variate::cli {

struct PathfinderJobOptions {
  std::string model = "eight-schools";
  std::string model_file;  // a model plugin instead of `model`
  std::string data;        // empty: the model's embedded data
  int paths = 4;
  int draws = 1000;           // written, resampled from the pool with PSIS weights
  int draws_per_path = 1000;  // each path's draws in the pool
  int elbo_draws = 25;        // per iterate's ELBO estimate
  int history = 5;            // L-BFGS's correction pairs
  std::int64_t iterations = 1000;
  double init = 2;  // each path starts uniform in (-init, init) on the unconstrained space
  std::uint64_t seed = 1;
  std::string output;  // the Stan CSV file; empty: variate-output/<model>-pathfinder.csv
};

/// Runs the job, printing to `out`; returns the exit code (0, also when k-hat warns). Throws
/// variate::Error naming what was wrong for bad options, models or output paths, or a path that
/// fails.
int run_pathfinder_job(const PathfinderJobOptions& options, std::ostream& out);

}  // namespace variate::cli
