#pragma once
// Posterior summaries of MCMC draws: per parameter the columns of CmdStan's stansummary (2.33+) and
// posterior's summarise_draws, per chain the sampler's health (divergences, tree depth, E-BFMI),
// and writers for a text table, CSV and JSON.
//
//   std::vector<inference::ParameterSummary> rows;
//   for (const auto& [name, draws] : draws_by_name) rows.push_back(inference::summarize(name, draws));
//   inference::write_summary_table(std::cout, rows);
//   inference::write_sampler_diagnostics(std::cout, sampler);
#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

#include "variate/inference/diagnostics.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::inference {

/// One parameter's row. NaN where a statistic is undefined (diagnostics.hpp says when).
struct ParameterSummary {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::string name;
  double mean = kNaN, mcse = kNaN, sd = kNaN, mad = kNaN, q5 = kNaN, q50 = kNaN, q95 = kNaN, ess_bulk = kNaN,
         ess_tail = kNaN, rhat = kNaN;
};

/// Mean, mcse_mean, sd, mad (median absolute deviation times 1.4826, consistent for the normal sd,
/// as R's and posterior's mad), type-7 quantiles 5/50/95%, ess_bulk, ess_tail and rhat of one
/// scalar quantity. Throws naming "summarize" for no chains, empty chains or unequal lengths.
ParameterSummary summarize(std::string name, const ChainDraws& draws);

/// Per-chain facts the sampler reports; every non-empty vector has one entry per chain.
struct SamplerSummary {
  std::vector<int> divergences;         // divergent transitions after warm-up
  std::vector<int> max_treedepth_hits;  // transitions that stopped at the maximum tree depth
  std::vector<double> ebfmi;
  std::vector<double> step_sizes;
  double sampling_seconds = 0;
  int draws_per_chain = 0;  // for percentages; 0 leaves them out
  int max_treedepth = 0;    // for the message; 0 if unknown
};

/// The sampler's health per chain from a run's kept draws: divergences, transitions that hit
/// `options`' maximum tree depth (NUTS only), E-BFMI and the adapted step size; the longest chain's
/// sampling time.
SamplerSummary summarize_sampler(const SampleResult& result, const SamplerOptions& options);

/// The summary as an aligned text table like stansummary's: names left, the columns Mean MCSE
/// StdDev MAD 5% 50% 95% ESS_bulk ESS_tail R_hat right-aligned, `precision` significant digits
/// (ESS as whole numbers).
void write_summary_table(std::ostream& out, const std::vector<ParameterSummary>& rows, int precision = 3);

/// CSV with the header name,Mean,MCSE,StdDev,MAD,5%,50%,95%,ESS_bulk,ESS_tail,R_hat and every value
/// at max_digits10, so it reads back exactly; NaN as "nan". Names are quoted when they need it.
void write_summary_csv(std::ostream& out, const std::vector<ParameterSummary>& rows);

/// {"parameters": [{"name", "mean", "mcse", "sd", "mad", "q5", "q50", "q95", "ess_bulk", "ess_tail",
/// "rhat"}, ...], "sampler": {...the SamplerSummary fields...}}; NaN and infinities as null.
void write_summary_json(std::ostream& out, const std::vector<ParameterSummary>& rows, const SamplerSummary& sampler);

/// One line per chain (divergences and their share of the draws, tree-depth saturation, E-BFMI,
/// step size) and a warning line for each problem found, following CmdStan's diagnose: any
/// divergence, any saturated tree depth, E-BFMI below 0.3. Throws if the per-chain vectors disagree
/// in length.
void write_sampler_diagnostics(std::ostream& out, const SamplerSummary& sampler);

}  // namespace variate::inference
