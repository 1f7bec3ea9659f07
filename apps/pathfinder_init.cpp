#include "pathfinder_init.hpp"

#include <algorithm>
#include <iomanip>

#include "variate/inference/pathfinder.hpp"

namespace variate::cli {
namespace {

// The rows of `draws` (n, d) without repeats, in order: resampling with replacement repeats draws.
std::vector<std::vector<double>> distinct_rows(const Tensor& draws) {
  const std::int64_t n = draws.shape()[0], d = draws.shape()[1];
  const double* v = draws.data<double>();
  std::vector<std::vector<double>> out;
  for (std::int64_t s = 0; s < n; ++s) {
    std::vector<double> row(v + s * d, v + (s + 1) * d);
    if (std::find(out.begin(), out.end(), row) == out.end()) out.push_back(std::move(row));
  }
  return out;
}

// The metric of `kind` with the approximation's variances on its diagonal.
inference::Metric metric_of_variances(inference::MetricKind kind, const std::vector<double>& variance) {
  if (kind == inference::MetricKind::diagonal) return inference::Metric::diagonal(variance);
  const std::size_t d = variance.size();
  std::vector<double> dense(d * d, 0.0);
  for (std::size_t i = 0; i < d; ++i) dense[i * d + i] = variance[i];
  return inference::Metric::dense(std::move(dense), std::int64_t(d));
}

}  // namespace

void init_from_pathfinder(const Model& model, std::uint64_t seed, inference::SamplerOptions& sampler,
                          std::ostream& out) {
  const inference::PathfinderOptions options{.key = random::fold_in(random::Key(seed), "pathfinder init")};
  // Its paths print nothing until they end, which takes minutes on a large model.
  out << "init: running Pathfinder (" << options.paths << " paths of up to " << options.iterations
      << " L-BFGS iterations, an ELBO of " << options.elbo_draws << " draws at each)" << std::endl;
  const inference::PathfinderResult r = inference::pathfinder(model.program, options);
  const std::vector<std::vector<double>> starts = distinct_rows(r.unconstrained_draws);
  sampler.initial_positions.clear();
  for (int c = 0; c < sampler.chains; ++c) {
    const std::vector<double>& start = starts[std::size_t(c) % starts.size()];
    sampler.initial_positions.insert(sampler.initial_positions.end(), start.begin(), start.end());
  }
  // Fisher-divergence adaptation starts from the gradient at each chain's start instead, and
  // --metric unit keeps the identity.
  const bool windows = sampler.metric_adaptation == inference::MetricAdaptation::stan_windows;
  if (windows) sampler.initial_metric = metric_of_variances(sampler.metric, r.variance);
  out << "init: Pathfinder, " << r.paths.size() << " paths, " << r.gradients << " gradients, k-hat "
      << std::setprecision(3) << r.k_hat << "; each chain starts at a resampled draw"
      << (windows ? ", the metric at the approximation's variances" : "") << '\n';
  if (starts.size() < std::size_t(sampler.chains))
    out << "note: only " << starts.size() << " distinct Pathfinder draws for " << sampler.chains
        << " chains, so some chains share a start (k-hat is high: the approximation fits poorly)\n";
}

}  // namespace variate::cli
