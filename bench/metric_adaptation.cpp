// Draws per gradient of NUTS under three warm-ups (issue 27): Stan's windowed diagonal adaptation,
// and nutpie's Fisher-divergence adaptation with a diagonal and with a low-rank plus diagonal
// metric. For each model and seed: min and median bulk ESS over the unconstrained coordinates,
// divided by every gradient the run evaluated (all chains, warm-up included), and the ratio of the
// min to Stan-style's with the same seed; then the median ratio over the seeds.
//
// Models: a correlated Gaussian in 100 dimensions with standard deviations from 0.1 to 10 along a
// random rotation (condition number 1e4), eight schools (non-centered), and two posteriordb
// posteriors when ../shared/data/posteriordb is present: arK-arK (AR(5), correlated coefficients)
// and kidiq-kidscore_interaction (a regression on uncentred predictors and their product, strongly
// correlated; posteriordb's flat priors on the coefficients written as N(0, 1000)).
//
//   build/bench/metric_adaptation [gauss-100|eight-schools|arK|kidiq ...] [--seeds=K]   (default 3 seeds)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "variate/data/data_file.hpp"
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
  for (std::int64_t i = 0; i < r.dimension; ++i) {
    inference::ChainDraws x;
    for (const auto& c : r.chains) {
      std::vector<double> v;
      for (std::int64_t t = 0; t < c.draw_count(); ++t) v.push_back(c.draws[std::size_t(t * r.dimension + i)]);
      x.push_back(std::move(v));
    }
    ess.push_back(inference::ess_bulk(x));
  }
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

std::optional<data::DataFile> posteriordb(const std::string& name) {
  const std::string file = "../shared/data/posteriordb/data/" + name + ".json.zip";
  if (!std::filesystem::exists(file)) {
    std::printf("%-14s skipped: %s not found (run from the repository root)\n", name.c_str(), file.c_str());
    return std::nullopt;
  }
  return data::read_data_file(file);
}

// arK-arK: alpha, beta_k ~ N(0, 10), sigma ~ HalfCauchy(0, 2.5), y_t ~ N(alpha + Σ beta_k y_{t-k}, sigma).
tracing::Program autoregressive(const data::DataFile& f) {
  const std::vector<double>& y = f.at("y").values;
  const auto K = std::size_t(f.at("K").values[0]), n = y.size() - K, p = K + 1;
  std::vector<double> lags(n * p), target(n);
  for (std::size_t t = K; t < y.size(); ++t) {
    lags[(t - K) * p] = 1;
    for (std::size_t k = 1; k <= K; ++k) lags[(t - K) * p + k] = y[t - k];
    target[t - K] = y[t];
  }
  const Tensor x = Tensor::from(lags, Shape{std::int64_t(n), std::int64_t(p)});
  const Tensor observed = Tensor::from(target, Shape{std::int64_t(n)});
  return [=] {
    auto alpha = Normal(0.0, 10.0, "alpha");
    auto beta = Normal(0.0, 10.0, "beta", {std::int64_t(K)});
    auto sigma = HalfCauchy(0.0, 2.5, "sigma");
    const Tensor coefficients = concat({expand_dims(alpha, -1), beta}, -1);
    const Tensor mean = sum(expand_dims(coefficients, -2) * x, std::vector<int>{-1});
    tracing::Condition data({{"y", observed}});
    Normal(mean, expand_dims(sigma, -1), "y");
  };
}

// kidiq-kidscore_interaction: kid_score ~ N(b0 + b1 mom_hs + b2 mom_iq + b3 mom_hs mom_iq, sigma),
// sigma ~ HalfCauchy(0, 2.5).
tracing::Program kidiq_interaction(const data::DataFile& f) {
  const std::vector<double>&hs = f.at("mom_hs").values, &iq = f.at("mom_iq").values;
  const std::size_t n = hs.size();
  std::vector<double> design(n * 4);
  for (std::size_t i = 0; i < n; ++i) {
    design[i * 4] = 1;
    design[i * 4 + 1] = hs[i];
    design[i * 4 + 2] = iq[i];
    design[i * 4 + 3] = hs[i] * iq[i];
  }
  const Tensor x = Tensor::from(design, Shape{std::int64_t(n), 4});
  const Tensor score = Tensor::from(f.at("kid_score").values, Shape{std::int64_t(n)});
  return [=] {
    auto beta = Normal(0.0, 1000.0, "beta", {4});
    auto sigma = HalfCauchy(0.0, 2.5, "sigma");
    const Tensor mean = sum(expand_dims(beta, -2) * x, std::vector<int>{-1});
    tracing::Condition data({{"kid_score", score}});
    Normal(mean, expand_dims(sigma, -1), "kid_score");
  };
}

void run_model(const char* name, const tracing::Program& model, int seeds) {
  const inference::Unconstrained space(model);
  run(name, inference::make_target(space), seeds);
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
  if (bench::wanted(argc, argv, "arK"))
    if (const auto f = posteriordb("arK")) run_model("arK", autoregressive(*f), seeds);
  if (bench::wanted(argc, argv, "kidiq"))
    if (const auto f = posteriordb("kidiq")) run_model("kidiq", kidiq_interaction(*f), seeds);
}
