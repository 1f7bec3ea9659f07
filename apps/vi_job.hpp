#pragma once
// `variate vi`: ADVI (inference::fit_advi) on a built-in model. Prints the ELBO as it is fitted, the
// approximate posterior's summary in `sample`'s table and the Pareto k-hat of the draws' importance
// ratios p/q (how far q can be trusted); writes the draws as Stan CSV in the layout of CmdStan's
// `variational` method (the first row q's mean, then the draws, with lp__ = 0, log_p__ and
// log_g__), the ELBO of every step and the full summary table next to it.
#include <cstdint>
#include <ostream>
#include <string>

namespace variate::cli {

struct ViJobOptions {
  std::string model = "eight-schools";
  std::string model_file;            // a model plugin instead of `model`
  std::string data;                  // empty: the model's default data
  std::string family = "meanfield";  // meanfield | fullrank
  int steps = 2000;                  // Adam steps
  int particles = 1;                 // draws of q per ELBO estimate
  double learning_rate = 0.05;       // Adam's, decayed to 0 over the steps (cosine)
  int draws = 1000;                  // of the fitted q, written and summarized
  std::uint64_t seed = 1;
  std::string output;  // the Stan CSV file; empty: variate-output/<model>-vi.csv
};

/// Runs the job, printing to `out`; returns the exit code (0). Throws variate::Error for bad
/// options, models or output paths, naming them.
int run_vi_job(const ViJobOptions& options, std::ostream& out);

}  // namespace variate::cli
