#include "pathfinder_path.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "lbfgs_start.hpp"
#include "pathfinder_approximation.hpp"
#include "variate/nn/lbfgs.hpp"
#include "variate/random/samplers.hpp"

namespace variate::inference::detail {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// The positions and gradients of log p along the L-BFGS path, the start first.
struct Trajectory {
  std::vector<std::vector<double>> x, g;
  std::int64_t evaluations = 0;  // of log p and its gradient
  std::string message;           // why L-BFGS stopped
};

Trajectory climb(const Unconstrained& space, const PathfinderOptions& o, random::Key key) {
  UnconstrainedPoint point(finite_start_point(space, Jacobian::included, o.init_radius, key, "pathfinder"));
  nn::Parameters params(point);
  Trajectory t;
  const auto record = [&](std::span<const double> x, double, std::span<const double> loss_gradient) {
    t.x.emplace_back(x.begin(), x.end());
    t.g.emplace_back(loss_gradient.begin(), loss_gradient.end());
    for (double& v : t.g.back()) v = -v;  // L-BFGS minimizes -log p
  };
  try {
    const nn::LbfgsResult r =
        nn::minimize_lbfgs(params,
                           [&] {
                             ++t.evaluations;
                             return -space.log_density(point.point);
                           },
                           {.max_iterations = o.iterations,
                            .history = o.history,
                            .gradient_tolerance = o.gradient,
                            .loss_tolerance = o.loss,
                            .relative_loss_tolerance = o.relative_loss * std::numeric_limits<double>::epsilon(),
                            .parameter_tolerance = o.parameter,
                            .on_iterate = record});
    t.message = r.message;
  } catch (const Error& e) {
    // The model refused a point the line search tried (a scale that underflowed to 0 deep in a
    // funnel's neck, say): the path ends there, and its iterates so far still give approximations.
    t.message = "stopped after " + std::to_string(t.x.size() - 1) +
                " iterations: log p could not be evaluated at a point the line search tried: " + e.what();
  }
  return t;
}

// log p at an unconstrained point; -inf where the model gives no finite density or refuses the
// point (a scale that underflows to 0 in a funnel's neck): a draw there gets no weight, and an
// iterate whose ELBO draws meet one is not chosen.
double log_p_at(const Unconstrained& space, std::span<const double> point) {
  try {
    const double lp = space.log_density(Tensor::from(point, Shape{std::int64_t(point.size())})).item();
    return std::isfinite(lp) ? lp : kMinusInfinity;
  } catch (const Error&) {
    return kMinusInfinity;
  }
}

// The draws of q for `count` standard normal vectors from `key`: positions, log q and log p.
void draw(const Unconstrained& space, const PathfinderGaussian& q, int count, random::Key key, PathDraws& out) {
  const std::int64_t d = q.dimension();
  const Tensor normals = random::normal(key, Shape{count, d});
  const double* u = normals.data<double>();
  out.draws.resize(std::size_t(count * d));
  for (int s = 0; s < count; ++s) {
    const std::span<double> x(out.draws.data() + s * d, std::size_t(d));
    out.log_q.push_back(q.draw({u + s * d, std::size_t(d)}, x));
    out.log_p.push_back(log_p_at(space, x));
  }
}

// The Monte Carlo ELBO of q, E_q[log p - log q], from `count` draws; -inf if log p is not finite at
// one of them (q puts mass where the posterior has none).
double elbo(const Unconstrained& space, const PathfinderGaussian& q, int count, random::Key key) {
  PathDraws d;
  draw(space, q, count, key, d);
  double sum = 0;
  for (int s = 0; s < count; ++s) sum += d.log_p[std::size_t(s)] - d.log_q[std::size_t(s)];
  return sum / count;
}

}  // namespace

PathDraws run_pathfinder_path(const Unconstrained& space, const PathfinderOptions& o, random::Key key) {
  const Trajectory t = climb(space, o, random::fold_in(key, "init"));
  PathDraws out;
  PathfinderPath& path = out.path;
  path.iterations = std::int64_t(t.x.size()) - 1;
  path.gradients = t.evaluations;
  path.message = t.message;
  InverseHessianEstimate h(space.dimension(), o.history);
  std::optional<PathfinderGaussian> best;
  double best_elbo = kMinusInfinity;
  for (std::size_t l = 1; l < t.x.size(); ++l) {
    h.add_step(t.x[l - 1], t.g[l - 1], t.x[l], t.g[l]);
    double value = kMinusInfinity;
    std::optional<PathfinderGaussian> q;
    if (!h.empty()) {
      try {
        q.emplace(h, t.x[l], t.g[l]);
      } catch (const Error&) {  // an estimate that round-off left indefinite: no approximation here
      }
    }
    if (q) {
      value = elbo(space, *q, o.elbo_draws, random::fold_in(random::fold_in(key, "elbo"), l));
      path.log_density_evaluations += o.elbo_draws;
    }
    path.elbo.push_back(value);
    if (value > best_elbo) {
      best_elbo = value;
      best = std::move(q);
      path.best_iteration = std::int64_t(l);
    }
  }
  VARIATE_CHECK(best.has_value(), "pathfinder",
                "no iterate of the L-BFGS path has an approximation with a finite ELBO (L-BFGS: ", t.message, "; ",
                t.x.size() - 1,
                " iterates); the log density may be non-finite around its mode, or the start "
                "may already be the mode");
  path.mean = best->mean();
  path.variance = best->variance();
  draw(space, *best, o.draws_per_path, random::fold_in(key, "draws"), out);
  path.log_density_evaluations += o.draws_per_path;
  out.approximation = std::move(best);
  return out;
}

}  // namespace variate::inference::detail
