#include "run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "variate/core/error.hpp"
#include "variate/inference/sample_model.hpp"

namespace posteriordb {

using namespace variate;

inference::SamplerOptions sampler_options(const RunOptions& options, std::uint64_t seed) {
  const std::string& m = options.metric;
  VARIATE_CHECK(m == "diag" || m == "dense" || m == "fisher-diag" || m == "fisher-low-rank", "posteriordb suite",
                "--metric must be diag, dense, fisher-diag or fisher-low-rank, got '", m, "'");
  inference::SamplerOptions s;
  s.metric = m == "dense"             ? inference::MetricKind::dense
             : m == "fisher-low-rank" ? inference::MetricKind::low_rank
                                      : inference::MetricKind::diagonal;
  if (m.starts_with("fisher-")) s.metric_adaptation = inference::MetricAdaptation::fisher;
  s.chains = options.chains;
  s.num_warmup = options.warmup;
  s.num_draws = options.draws;
  s.threads = options.threads;
  s.vectorized = options.vectorized;
  s.seed = seed;
  return s;
}

namespace {

void count_gradients(const inference::SampleResult& result, RunRecord& r) {
  for (const inference::ChainResult& c : result.chains) {
    r.gradients += c.warmup_leapfrog_steps;
    for (const inference::TransitionStats& s : c.stats) {
      r.sampling_gradients += s.n_leapfrog;
      r.divergences += s.divergent;
    }
  }
  r.gradients += r.sampling_gradients;
  r.target_calls = result.target_calls;
}

void check_means(const inference::ModelSample& fit, const std::vector<Reference>& reference, double z_limit,
                 RunRecord& r) {
  r.has_reference = true;
  for (const Reference& ref : reference) {
    const auto it = std::find_if(fit.summary.begin(), fit.summary.end(),
                                 [&](const inference::ParameterSummary& p) { return p.name == ref.parameter; });
    VARIATE_CHECK(it != fit.summary.end(), "posteriordb suite", r.posterior, ": the reference's parameter '",
                  ref.parameter, "' is no column of the model's draws");
    MeanCheck c{.parameter = ref.parameter,
                .mean = it->mean,
                .mcse = it->mcse,
                .reference_mean = ref.mean,
                .reference_mcse = ref.mcse_mean};
    c.z = std::abs(c.mean - c.reference_mean) / std::hypot(c.mcse, c.reference_mcse);
    if (!(c.z <= z_limit)) ++r.means_off;  // NaN counts as off
    r.max_z = std::max(r.max_z, std::isnan(c.z) ? std::numeric_limits<double>::infinity() : c.z);
    r.checks.push_back(std::move(c));
  }
}

}  // namespace

RunRecord run_posterior(const SuiteModel& model, const models::ModelData& data, const std::vector<Reference>* reference,
                        const RunOptions& options, std::uint64_t seed) {
  RunRecord r;
  r.posterior = model.posterior;
  r.seed = seed;
  try {
    const models::Definition definition = model.function(data);
    inference::ModelSampleOptions o;
    o.sampler = sampler_options(options, seed);
    o.name = model.posterior;
    o.laplace = options.laplace;
    const auto start = std::chrono::steady_clock::now();
    const inference::ModelSample fit = inference::sample(definition.program, {}, o);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.min_ess_bulk = r.min_ess_tail = std::numeric_limits<double>::infinity();
    for (const inference::ParameterSummary& p : fit.summary) {
      if (p.name == "lp__") continue;
      ++r.parameters;
      r.min_ess_bulk = std::min(r.min_ess_bulk, p.ess_bulk);
      r.min_ess_tail = std::min(r.min_ess_tail, p.ess_tail);
      r.max_rhat = std::max(r.max_rhat, p.rhat);
    }
    count_gradients(fit.result, r);
    r.gradients += fit.initialization_gradients;
    if (reference != nullptr) check_means(fit, *reference, options.z_limit, r);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

}  // namespace posteriordb
