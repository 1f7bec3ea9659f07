#pragma once
// `variate optimize`: the posterior mode of a built-in model by L-BFGS on its unconstrained space
// (inference::optimize), as CmdStan's `optimize`: without the Jacobian term by default (the mode
// of the model's density in the constrained space). Prints log p and the mode of each parameter
// and writes them as one row of a Stan CSV file in CmdStan's optimize layout (lp__, then the
// parameters and generated quantities).
#include <cstdint>
#include <ostream>
#include <string>

namespace variate::cli {

struct OptimizeJobOptions {
  std::string model = "eight-schools";
  std::string model_file;  // a model plugin instead of `model`
  std::string data;        // empty: the model's default data
  bool jacobian = false;   // include log|det J|: the mode of the unconstrained point's density
  std::int64_t iterations = 2000;
  // CmdStan's tol_obj, tol_rel_obj (in units of the machine epsilon), tol_grad and tol_param.
  double tol_obj = 1e-12, tol_rel_obj = 1e4, tol_grad = 1e-8, tol_param = 1e-8;
  int history = 5;
  double init = 2;  // the start: uniform in (-init, init) on the unconstrained space; 0: at 0
  std::uint64_t seed = 1;
  std::string output;  // the Stan CSV file; empty: variate-output/<model>-optimize.csv
};

/// Runs the job, printing to `out`; returns the exit code: 0 when a convergence test stopped the
/// search, 0 with a warning when the iteration limit did. Throws variate::Error naming what
/// happened for a discrete latent site, no finite start or a search that fails.
int run_optimize_job(const OptimizeJobOptions& options, std::ostream& out);

}  // namespace variate::cli
