// Draws per gradient of NUTS under three warm-ups (issue 27): Stan's windowed diagonal adaptation,
// and nutpie's Fisher-divergence adaptation with a diagonal and with a low-rank plus diagonal
// metric. For each model and seed: min and median bulk ESS over the unconstrained coordinates,
// divided by every gradient the run evaluated (all chains, warm-up included), and the ratio of the
// min to Stan-style's with the same seed; then the median ratio over the seeds.
//
// Models: a correlated Gaussian in 100 dimensions with standard deviations from 0.1 to 10 along a
// random rotation (condition number 1e4), eight schools (non-centered), and two posteriors of the
// posteriordb suite (bench/posteriordb) when ../shared/data/posteriordb is present: arK-arK (AR(5),
// correlated coefficients) and kidiq-kidscore_interaction (a regression on uncentred predictors
// and their product, strongly correlated). The suite's runner (posteriordb_suite --metric ...)
// compares the metrics on all of its posteriors.
//
//   build/bench/metric_adaptation [gauss-100|eight-schools|arK|kidiq ...] [--seeds=K]   (default 3 seeds)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "args.hpp"
#include "posteriordb/suite.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/target.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace {

using namespace variate;

struct Adaptation {
  const char* label;
  inference::MetricKind metric;
  inference::MetricAdaptation how;
};
const Adaptation kAdaptations[] = {
    {"stan-diag", inference::MetricKind::diagonal, inference::MetricAdaptation::stan_windows},
    {"fisher-diag", inference::MetricKind::diagonal, inference::MetricAdaptation::fisher},
    {"fisher-low-rank", inference::MetricKind::low_rank, inference::MetricAdaptation::fisher},
};

struct Figures {
  double min_per_grad, median_per_grad;
  int divergences;
};

Figures run_once(const inference::Target& target, const Adaptation& a, std::uint64_t seed) {
  inference::SamplerOptions o;
  o.metric = a.metric;
  o.metric_adaptation = a.how;
  o.seed = seed;
  o.threads = 2;
  const inference::SampleResult r = inference::sample(target, o);
  std::vector<double> ess;
  for (std::int64_t i = 0; i < r.dimension; ++i) ess.push_back(inference::ess_bulk(inference::coordinate_draws(r, i)));
  std::sort(ess.begin(), ess.end());
  int divergences = 0;
  for (const auto& c : r.chains)
    for (const auto& s : c.stats) divergences += s.divergent;
  const double grads = double(r.target_calls);
  return {ess.front() / grads, ess[ess.size() / 2] / grads, divergences};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void run(const char* name, const inference::Target& target, int seeds) {
  std::vector<std::vector<double>> ratios(std::size(kAdaptations));
  for (int s = 0; s < seeds; ++s) {
    const std::uint64_t seed = 20261202 + std::uint64_t(s);
    double stan_min = 0;
    for (std::size_t k = 0; k < std::size(kAdaptations); ++k) {
      const Figures f = run_once(target, kAdaptations[k], seed);
      if (k == 0) stan_min = f.min_per_grad;
      ratios[k].push_back(f.min_per_grad / stan_min);
      std::printf("%-14s %-16s %4d %14.5f %14.5f %6d %8.2fx\n", name, kAdaptations[k].label, s, f.min_per_grad,
                  f.median_per_grad, f.divergences, f.min_per_grad / stan_min);
      std::fflush(stdout);
    }
  }
  for (std::size_t k = 1; k < std::size(kAdaptations); ++k)
    std::printf("%-14s %-16s median over %d seeds: %.2fx Stan-style's min ESS per gradient\n", name,
                kAdaptations[k].label, seeds, median(ratios[k]));
}

inference::Target gaussian_100() {
  const std::size_t d = 100;
  std::vector<double> s(d);
  for (std::size_t i = 0; i < d; ++i) s[i] = 0.1 * std::pow(100.0, double(i) / double(d - 1));
  const Tensor z = random::normal(random::Key(27), Shape{std::int64_t(d), std::int64_t(d)});
  std::vector<double> q(z.data<double>(), z.data<double>() + d * d);
  for (std::size_t j = 0; j < d; ++j) {  // Gram–Schmidt: a random rotation, column j at q[j*d ..]
    double* v = q.data() + j * d;
    for (std::size_t l = 0; l < j; ++l) {
      double dot = 0;
      for (std::size_t i = 0; i < d; ++i) dot += v[i] * q[l * d + i];
      for (std::size_t i = 0; i < d; ++i) v[i] -= dot * q[l * d + i];
    }
    double norm = 0;
    for (std::size_t i = 0; i < d; ++i) norm += v[i] * v[i];
    for (std::size_t i = 0; i < d; ++i) v[i] /= std::sqrt(norm);
  }
  std::vector<double> precision(d * d, 0.0);
  for (std::size_t j = 0; j < d; ++j)
    for (std::size_t r = 0; r < d; ++r)
      for (std::size_t c = 0; c < d; ++c) precision[r * d + c] += q[j * d + r] * q[j * d + c] / (s[j] * s[j]);
  inference::Target t;
  t.dimension = std::int64_t(d);
  t.evaluate = [precision, d](std::span<const double> x, std::int64_t batch, std::span<double> lp,
                              std::span<double> grad) {
    for (std::int64_t b = 0; b < batch; ++b) {
      const double* xb = x.data() + std::size_t(b) * d;
      double* gb = grad.data() + std::size_t(b) * d;
      double quad = 0;
      for (std::size_t r = 0; r < d; ++r) {
        double px = 0;
        for (std::size_t c = 0; c < d; ++c) px += precision[r * d + c] * xb[c];
        gb[r] = -px;
        quad += xb[r] * px;
      }
      lp[std::size_t(b)] = -0.5 * quad;
    }
  };
  return t;
}

tracing::Program eight_schools() {
  const Tensor y = Tensor::vec({28, 8, -3, 7, -1, 1, 18, 12});
  const Tensor sigma = Tensor::vec({15, 10, 16, 11, 9, 11, 10, 18});
  return [=] {
    auto mu = Normal(0.0, 5.0, "mu");
    auto tau = HalfCauchy(0.0, 5.0, "tau");
    auto theta_tilde = Normal(0.0, 1.0, "theta_tilde", {8});
    tracing::Condition data({{"y", y}});
    Normal(expand_dims(mu, -1) + expand_dims(tau, -1) * theta_tilde, sigma, "y");
  };
}

void run_model(const char* name, const tracing::Program& model, int seeds) {
  const inference::Unconstrained space(model);
  run(name, inference::make_target(space), seeds);
}

// A posteriordb suite model (bench/posteriordb), when its data are present.
void run_suite_model(const char* name, const std::string& posterior, int seeds) {
  const posteriordb::SuiteModel& m = posteriordb::find_suite_model(posterior);
  const std::string folder = posteriordb::default_data_folder();
  if (!std::filesystem::exists(folder + "/" + m.data + ".json.zip")) {
    std::printf("%-14s skipped: %s/%s.json.zip not found\n", name, folder.c_str(), m.data.c_str());
    return;
  }
  run_model(name, models::define(m.function, posteriordb::read_suite_data(m, folder)).program, seeds);
}

}  // namespace

int main(int argc, char** argv) {
  const int seeds = bench::seed_count(argc, argv, "metric_adaptation", 3);
  std::printf(
      "NUTS, 4 chains x (1000 warm-up + 1000 draws); ESS/grad: bulk ESS over all gradients, warm-up included\n");
  std::printf("%-14s %-16s %4s %14s %14s %6s %9s\n", "model", "adaptation", "seed", "min ESS/grad", "med ESS/grad",
              "div", "min vs Stan");
  if (bench::wanted(argc, argv, "gauss-100")) run("gauss-100", gaussian_100(), seeds);
  if (bench::wanted(argc, argv, "eight-schools")) run_model("eight-schools", eight_schools(), seeds);
  if (bench::wanted(argc, argv, "arK")) run_suite_model("arK", "arK-arK", seeds);
  if (bench::wanted(argc, argv, "kidiq")) run_suite_model("kidiq", "kidiq-kidscore_interaction", seeds);
}
