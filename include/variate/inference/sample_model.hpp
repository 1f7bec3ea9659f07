#pragma once
// From a model to draws on disk in a few lines: NUTS (or static HMC) with Stan's warm-up on the
// model's unconstrained space, every kept draw streamed to one Stan CSV file per chain as it is
// made (CmdStan's layout, which stansummary, CmdStanPy, CmdStanR and ArviZ's from_cmdstan read),
// and returned in memory with the summary of every column.
//
//   auto model = [&] {
//     auto mu = variate::Normal(0.0, 5.0, "mu");
//     auto tau = variate::HalfCauchy(0.0, 5.0, "tau");
//     auto theta_tilde = variate::Normal(0.0, 1.0, "theta_tilde", {8});
//     variate::Normal(mu + tau * theta_tilde, sigma, "y");
//   };
//   inference::ModelSampleOptions options;
//   options.sampler.chains = 4;                       // warm-up, draws, seed, threads, vectorized, ...
//   options.output = "out";                           // out/eight_schools-1.csv ... -4.csv
//   options.name = "eight_schools";
//   inference::ModelSample fit = inference::sample(model, {{"y", y}}, options);
//   inference::write_summary_table(std::cout, fit.summary);
//   inference::ChainDraws mu = fit.column("mu");     // [chain][draw]
#include <string>
#include <string_view>
#include <vector>

#include "variate/core/dtype.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/summary.hpp"
#include "variate/tracing/program.hpp"

namespace variate::inference {

/// Options of sampling a traced program: the sampler's, the dtype and the extra output columns.
struct ModelSampleOptions {
  /// Chains, warm-up and kept draws, seed, threads or vectorized chains, NUTS or static HMC, metric.
  SamplerOptions sampler;
  /// The dtype the log density computes in; f32 needs the model's data and constants in f32 too.
  DType precision = DType::f64;
  /// The folder the files go to (created if missing), as `<name>-<chain>.csv` with chains numbered
  /// from 1; empty: no files, the draws are only returned.
  std::string output;
  std::string name = "model";
  /// Chain files `<name>-<chain>.csv` of an earlier run in `output` are an error, or deleted first
  /// when this is set (so that no earlier chain is left beside the new ones).
  bool overwrite = false;
  /// Where the data came from, recorded in the files.
  std::string data_file = "(in memory)";
  /// Columns after the parameters and generated quantities (predictive_columns.hpp): a posterior
  /// predictive draw of each observed site as `<site>_rep`, the pointwise log-likelihood as `log_lik`.
  bool predictive = false;
  bool log_likelihood = false;
  /// Find the mode by L-BFGS and run the chains on the coordinates that the Laplace approximation
  /// there whitens (laplace.hpp), each starting at its own draw from it; the draws are mapped back.
  /// Needs precision f64 (the Hessian's differences) and no checkpoints.
  bool laplace = false;
};

/// A program's draws in Stan's column layout, their summary and the sampler's result.
struct ModelSample {
  /// The files' columns: the sampler's (lp__ ... energy__), the parameters' in program order with
  /// Stan's names (`theta.1`), the generated quantities' (Deterministic sites), then the
  /// predictive columns.
  std::vector<std::string> columns;
  /// values[j][chain][draw]: column j's kept draws.
  std::vector<ChainDraws> values;
  /// lp__ and every column after the sampler's; empty when the run was interrupted (the chains may
  /// then have kept different numbers of draws).
  std::vector<ParameterSummary> summary;
  SamplerSummary sampler;
  /// The unconstrained draws, the adapted step sizes and metrics, the timings.
  SampleResult result;
  /// The files written, one per chain (empty without `output`).
  std::vector<std::string> files;
  /// Gradients used before the chains started: L-BFGS's evaluations and the Hessian's (laplace).
  std::int64_t initialization_gradients = 0;

  /// The kept draws of the column named `name` ("mu", "theta.3"); throws variate::Error naming it
  /// if there is no such column.
  const ChainDraws& column(std::string_view name) const;
};

/// Samples `model` with `data` given to its sites by name (tracing::Condition: every name must be a
/// site of the model; empty when the model conditions on its data itself). The same options and
/// seed give the same draws, written and returned, whatever the thread count. Throws variate::Error
/// for invalid options, a model with no continuous latent variables, a log density that does not
/// compute in `precision`, a model with sharded sites, an output path that is not a folder, and
/// whatever inference::sample throws.
ModelSample sample(const tracing::Program& model, const tracing::Values& data, const ModelSampleOptions& options);

}  // namespace variate::inference
