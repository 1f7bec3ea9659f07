#include "variate/inference/pathfinder.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <span>
#include <thread>

#include "pathfinder_path.hpp"
#include "variate/inference/pareto_smoothing.hpp"
#include "variate/random/samplers.hpp"

namespace variate::inference {
namespace {

void check_options(const PathfinderOptions& o) {
  const char* op = "pathfinder";
  VARIATE_CHECK(o.paths >= 1, op, "paths must be >= 1, got ", o.paths);
  VARIATE_CHECK(o.draws >= 1, op, "draws must be >= 1, got ", o.draws);
  VARIATE_CHECK(o.draws_per_path >= 1, op, "draws_per_path must be >= 1, got ", o.draws_per_path);
  VARIATE_CHECK(o.elbo_draws >= 1, op, "elbo_draws must be >= 1, got ", o.elbo_draws);
  VARIATE_CHECK(o.history >= 1, op, "history must be >= 1, got ", o.history);
  VARIATE_CHECK(o.iterations >= 1, op, "iterations must be >= 1, got ", o.iterations);
  VARIATE_CHECK(o.init_radius >= 0 && std::isfinite(o.init_radius), op, "the init radius must be finite and >= 0, got ",
                o.init_radius);
  VARIATE_CHECK(o.loss >= 0 && o.relative_loss >= 0 && o.gradient >= 0 && o.parameter >= 0, op,
                "tolerances must be >= 0, got loss ", o.loss, ", relative loss ", o.relative_loss, ", gradient ",
                o.gradient, ", parameter ", o.parameter);
}

// Every path, each on its own thread when asked; the first path's exception, if any, is rethrown.
std::vector<detail::PathDraws> run_paths(const Unconstrained& space, const PathfinderOptions& o) {
  std::vector<detail::PathDraws> runs(std::size_t(o.paths));
  std::vector<std::exception_ptr> errors(std::size_t(o.paths));
  const auto run = [&](int p) {
    try {
      runs[std::size_t(p)] = detail::run_pathfinder_path(space, o, random::split_at(o.key, std::uint64_t(p)));
    } catch (...) {
      errors[std::size_t(p)] = std::current_exception();
    }
  };
  if (o.parallel && o.paths > 1) {
    std::vector<std::jthread> threads;
    for (int p = 0; p < o.paths; ++p) threads.emplace_back(run, p);
  } else {
    for (int p = 0; p < o.paths; ++p) run(p);
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return runs;
}

// log q of the equal mixture of the paths' approximations at each pooled draw. Every path puts the
// same number of draws in the pool, so the pool is drawn from that mixture, and weighing a draw by p
// over the mixture (the balance heuristic of multiple importance sampling, Veach & Guibas 1995)
// rather than over its own path's q keeps the weights bounded where another path covers the draw:
// a path narrower than the posterior in one direction otherwise gives its outermost draws weights
// with a heavy tail, and the pool's k-hat exceeds 0.7 where each path's approximation is close.
std::vector<double> mixture_log_q(const std::vector<detail::PathDraws>& runs, std::int64_t d) {
  const double log_paths = std::log(double(runs.size()));
  std::vector<double> out;
  std::vector<double> terms(runs.size());
  for (std::size_t p = 0; p < runs.size(); ++p) {
    const detail::PathDraws& r = runs[p];
    for (std::size_t s = 0; s < r.log_q.size(); ++s) {
      const std::span<const double> x(r.draws.data() + s * std::size_t(d), std::size_t(d));
      for (std::size_t k = 0; k < runs.size(); ++k)
        terms[k] = k == p ? r.log_q[s] : runs[k].approximation->log_density(x);
      const double top = *std::max_element(terms.begin(), terms.end());
      double sum = 0;
      for (double t : terms) sum += std::exp(t - top);
      out.push_back(top + std::log(sum) - log_paths);
    }
  }
  return out;
}

// `count` indices drawn with replacement with probabilities proportional to exp(log_weights).
std::vector<std::size_t> resample(const std::vector<double>& log_weights, int count, random::Key key) {
  const double top = *std::max_element(log_weights.begin(), log_weights.end());
  std::vector<double> cumulative(log_weights.size());
  double total = 0;
  for (std::size_t i = 0; i < log_weights.size(); ++i) cumulative[i] = total += std::exp(log_weights[i] - top);
  const Tensor u = random::uniform(key, Shape{count});
  std::vector<std::size_t> out;
  for (int s = 0; s < count; ++s) {
    const auto at = std::upper_bound(cumulative.begin(), cumulative.end(), u.at(s) * total);
    out.push_back(std::min(std::size_t(at - cumulative.begin()), cumulative.size() - 1));
  }
  return out;
}

// The marginal variances of the equal mixture of the paths' approximations:
// E[var | path] + var(E[x | path]).
std::vector<double> mixture_variance(const std::vector<PathfinderPath>& paths) {
  const std::size_t d = paths.front().mean.size();
  std::vector<double> out(d);
  for (std::size_t i = 0; i < d; ++i) {
    double variance = 0, mean = 0, square = 0;
    for (const PathfinderPath& p : paths) {
      variance += p.variance[i];
      mean += p.mean[i];
      square += p.mean[i] * p.mean[i];
    }
    const double n = double(paths.size());
    out[i] = variance / n + std::max(0.0, square / n - (mean / n) * (mean / n));
  }
  return out;
}

}  // namespace

PathfinderResult pathfinder(const tracing::Program& model, const PathfinderOptions& o) {
  check_options(o);
  const Unconstrained space(model, random::fold_in(o.key, "trace"));
  const std::int64_t d = space.dimension();
  VARIATE_CHECK(d > 0, "pathfinder", "the model has no continuous latent site to approximate");
  std::vector<detail::PathDraws> runs = run_paths(space, o);

  PathfinderResult out;
  out.sites = space.sites();
  const std::vector<double> log_q = mixture_log_q(runs, d);
  std::vector<double> pool, log_p, log_ratios;
  std::vector<int> path_of;
  for (std::size_t p = 0; p < runs.size(); ++p) {
    detail::PathDraws& r = runs[p];
    pool.insert(pool.end(), r.draws.begin(), r.draws.end());
    log_p.insert(log_p.end(), r.log_p.begin(), r.log_p.end());
    path_of.insert(path_of.end(), r.log_p.size(), int(p));
    out.gradients += r.path.gradients;
    out.log_density_evaluations += r.path.log_density_evaluations;
    out.paths.push_back(std::move(r.path));
  }
  for (std::size_t s = 0; s < log_p.size(); ++s) log_ratios.push_back(log_p[s] - log_q[s]);
  VARIATE_CHECK(std::any_of(log_p.begin(), log_p.end(), [](double v) { return std::isfinite(v); }), "pathfinder",
                "log p is not finite at any of the ", log_p.size(), " draws of the approximations");
  const ParetoSmoothed psis = pareto_smooth(log_ratios);
  out.k_hat = psis.k_hat;

  std::vector<std::size_t> chosen(log_p.size());
  for (std::size_t s = 0; s < chosen.size(); ++s) chosen[s] = s;
  if (o.psis_resample) chosen = resample(psis.log_weights, o.draws, random::fold_in(o.key, "resample"));
  std::vector<double> draws;
  for (std::size_t s : chosen) {
    draws.insert(draws.end(), pool.begin() + std::ptrdiff_t(s * std::size_t(d)),
                 pool.begin() + std::ptrdiff_t((s + 1) * std::size_t(d)));
    out.log_p.push_back(log_p[s]);
    out.log_q.push_back(log_q[s]);
    out.path_of_draw.push_back(path_of[s]);
  }
  out.unconstrained_draws = Tensor::from(draws, Shape{std::int64_t(chosen.size()), d});
  out.draws = space.constrain(out.unconstrained_draws);
  out.variance = mixture_variance(out.paths);
  return out;
}

}  // namespace variate::inference
