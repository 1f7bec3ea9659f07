#pragma once
// One run of the suite: a model sampled with NUTS under the run's options and seed, and what the
// suite reports of it (min bulk and tail ESS, max R-hat over all parameters, gradients with and
// without warm-up, wall time, divergences, and the means against the reference).
//
//   RunOptions options;             // diag metric, 4 chains, 1000 + 1000
//   RunRecord r = run_posterior(find_suite_model("arK-arK"), data, &table["arK-arK"], options, 1);
#include <cstdint>
#include <string>
#include <vector>

#include "references.hpp"
#include "suite.hpp"
#include "variate/inference/sampler.hpp"

namespace posteriordb {

struct RunOptions {
  std::string metric = "diag";  // diag | dense | fisher-diag | fisher-low-rank, as `variate sample --metric`
  int chains = 4;
  std::int64_t warmup = 1000, draws = 1000;
  int threads = 0;          // 0: one per core
  bool vectorized = false;  // all chains in one batch (a many-chain sampler)
  /// Start at the Laplace approximation and sample the coordinates it whitens (`--init laplace`);
  /// its gradients (L-BFGS's and the Hessian's) count as warm-up.
  bool laplace = false;
  /// A mean is off when it differs from the reference's by more than this many combined MCSEs,
  /// sqrt(MCSE^2 + reference MCSE^2).
  double z_limit = 4;
};

/// The sampler options of `options` with `seed`; throws naming an unknown metric.
variate::inference::SamplerOptions sampler_options(const RunOptions& options, std::uint64_t seed);

/// One parameter's mean against the reference's.
struct MeanCheck {
  std::string parameter;
  double mean = 0, mcse = 0, reference_mean = 0, reference_mcse = 0;
  double z = 0;  // |mean - reference_mean| / sqrt(mcse^2 + reference_mcse^2)
};

struct RunRecord {
  std::string posterior;
  std::uint64_t seed = 0;
  std::string error;            // the exception's message when the run failed; the figures are then unset
  std::int64_t parameters = 0;  // columns summarized: the parameters and generated quantities
  double min_ess_bulk = 0, min_ess_tail = 0, max_rhat = 0;
  /// Gradients: leapfrog steps of all chains with warm-up (and the Laplace start's) and without (the
  /// kept draws' alone), and
  /// every evaluation of the target (initialization and step-size searches too; with vectorized
  /// chains one call evaluates all of them).
  std::int64_t gradients = 0, sampling_gradients = 0, target_calls = 0;
  double seconds = 0;
  int divergences = 0;
  bool has_reference = false;
  std::vector<MeanCheck> checks;  // one per reference parameter
  double max_z = 0;
  int means_off = 0;  // checks with z > z_limit
  /// Whether all means are within z_limit combined MCSEs; false without a reference.
  bool means_ok() const { return has_reference && means_off == 0; }
};

/// Samples `model` on `data` and checks its means against `reference` (null: none). An exception
/// from the model or the sampler is recorded in `error`, not thrown.
RunRecord run_posterior(const SuiteModel& model, const variate::models::ModelData& data,
                        const std::vector<Reference>* reference, const RunOptions& options, std::uint64_t seed);

}  // namespace posteriordb
