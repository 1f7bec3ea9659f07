#pragma once
// Pathfinder (Zhang, Carpenter, Gelman & Vehtari 2022, "Pathfinder: Parallel quasi-Newton
// variational inference", JMLR 23(306)), as in Stan since 2.33: L-BFGS climbs the log density on the
// unconstrained space from a random start; at each iterate the L-BFGS history gives a Gaussian
// approximation (mean one quasi-Newton step ahead, covariance the diagonal-plus-low-rank inverse
// Hessian estimate); the iterate whose approximation has the highest Monte Carlo ELBO wins and its
// approximation is drawn from. Several paths from different starts pool their draws, which are
// then importance-resampled with Pareto-smoothed weights (PSIS) of p over the mixture of the paths'
// approximations; k-hat says how far to trust them.
// It gives starting points and a metric for NUTS in far fewer gradients than a warm-up.
//
//   inference::PathfinderResult r = inference::pathfinder(model, {.paths = 4, .draws = 1000});
//   r.draws.at("theta");  // the resampled draws, constrained
//   r.k_hat;              // above 0.7: the draws are not a reliable stand-in for the posterior
#include <cstdint>
#include <string>
#include <vector>

#include "variate/inference/unconstrained.hpp"

namespace variate::inference {

/// Options of Pathfinder (Zhang et al. 2022): paths, L-BFGS, draws per path, PSIS resampling.
struct PathfinderOptions {
  /// Independent paths, each from its own random start; their draws are pooled.
  int paths = 4;
  /// Draws returned: resampled from the pool when psis_resample, else the pool itself.
  int draws = 1000;
  /// Draws of each path's chosen approximation that go into the pool (Stan's num_single_draws).
  int draws_per_path = 1000;
  /// Draws per iterate for its ELBO estimate (K in the paper; Stan's num_elbo_draws).
  int elbo_draws = 25;
  /// L-BFGS's correction pairs (J in the paper; Stan's history_size) and iteration limit.
  int history = 5;
  std::int64_t iterations = 1000;
  /// L-BFGS's convergence tests, as inference::OptimizeOptions (Stan's defaults).
  double loss = 1e-12, relative_loss = 1e4, gradient = 1e-8, parameter = 1e-8;
  /// Each path starts uniform in (-init_radius, init_radius) on the unconstrained space.
  double init_radius = 2;
  /// Importance-resample the pooled draws with PSIS weights (with replacement, as the paper's
  /// multi-path Algorithm 5); false returns the pool as drawn.
  bool psis_resample = true;
  /// Run the paths on their own threads; the result is the same either way.
  bool parallel = true;
  random::Key key = random::Key(0);
};

/// One path: its L-BFGS trajectory and the approximation it chose.
struct PathfinderPath {
  std::int64_t iterations = 0;               // L-BFGS iterations (iterates after the start)
  std::int64_t best_iteration = 0;           // the iterate whose approximation was chosen (1 = first step)
  std::vector<double> elbo;                  // the ELBO estimate of each iterate's approximation, from 1
  std::vector<double> mean;                  // (d): the chosen approximation's mean
  std::vector<double> variance;              // (d): its covariance's diagonal
  std::int64_t gradients = 0;                // evaluations of log p with its gradient (L-BFGS)
  std::int64_t log_density_evaluations = 0;  // of log p alone (the ELBO draws and the pool's draws)
  std::string message;                       // why L-BFGS stopped, in words
};

/// Pathfinder's draws (unconstrained and constrained), their densities, each path, the PSIS k-hat
/// and the gradients used.
struct PathfinderResult {
  std::vector<LatentSite> sites;  // the layout of the unconstrained vectors
  Tensor unconstrained_draws;     // (draws, d)
  tracing::Values draws;          // the same draws, constrained
  /// Per returned draw: log p (Jacobian included) and log q, q the equal mixture of the paths'
  /// approximations that the pool is drawn from (normalized), so p / q is the draw's importance ratio.
  std::vector<double> log_p, log_q;
  std::vector<int> path_of_draw;
  std::vector<PathfinderPath> paths;
  /// PSIS's k-hat of the pool's importance ratios p/q (NaN below 21 draws in the pool).
  double k_hat = 0;
  /// The marginal variances of the equal mixture of the paths' approximations: a metric for NUTS.
  std::vector<double> variance;
  std::int64_t gradients = 0;                // all paths
  std::int64_t log_density_evaluations = 0;  // all paths
};

/// Runs Pathfinder on the posterior of `model` (its data conditioned inside it). A path whose log p
/// throws at a point L-BFGS tries ends there and keeps its iterates so far. Throws for invalid
/// options (naming them), a model without continuous latent sites or with a discrete one (naming the
/// site), when a path finds no finite start, or when no iterate of a path has an approximation with
/// a finite ELBO (its L-BFGS made no step, say).
PathfinderResult pathfinder(const tracing::Program& model, const PathfinderOptions& options = {});

}  // namespace variate::inference
