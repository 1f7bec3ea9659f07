#pragma once
// `variate gradient`: the main job until the sampler lands. Fits a Bayesian logistic regression's
// posterior mode on the embedded digits data (odd vs even digits) by gradient ascent with Adam,
// timing the gradient evaluations, and reports held-out accuracy.
#include <cstdint>
#include <ostream>

#include "variate/core/dtype.hpp"

namespace variate::cli {

struct GradientJobOptions {
  int steps = 300;
  DType precision = DType::f64;
  std::uint64_t seed = 1;
  double prior_scale = 1.0;
};

/// Runs the job, printing progress and results to `out`; returns the process exit code.
int run_gradient_job(const GradientJobOptions& options, std::ostream& out);

}  // namespace variate::cli
