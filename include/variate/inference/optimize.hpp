#pragma once
// The posterior mode (MAP) of a model by L-BFGS on its unconstrained space, as CmdStan's
// `optimize`: by default the mode of the model's density in the constrained space (no Jacobian
// term), or with Jacobian::included the mode of the density of the unconstrained point (what
// Laplace approximations around it need).
//
//   inference::OptimizeResult r = inference::optimize(model, {.iterations = 500});
//   r.mode.at("theta");  // the constrained value at the mode
//   r.log_density;       // log p there (without the Jacobian unless asked)
#include <cstdint>
#include <string>
#include <vector>

#include "variate/inference/unconstrained.hpp"

namespace variate::inference {

/// Options of finding a posterior mode (or MAP estimate with the Jacobian) by L-BFGS.
struct OptimizeOptions {
  Jacobian jacobian = Jacobian::excluded;
  std::int64_t iterations = 2000;
  int history = 5;  // L-BFGS's correction pairs, Stan's default
  /// Stan's convergence tests (CmdStan's defaults): the change of log p in one iteration, absolute
  /// and relative (`relative_loss` is in units of the machine epsilon, as Stan's tol_rel_obj),
  /// the gradient's norm and the step's length.
  double loss = 1e-12, relative_loss = 1e4, gradient = 1e-8, parameter = 1e-8;
  /// The start: uniform in (-init_radius, init_radius) on the unconstrained space, drawn from `key`
  /// and redrawn (up to 100 times) until log p and its gradient are finite; 0 starts at 0.
  double init_radius = 2;
  random::Key key = random::Key(0);
};

/// The mode found, unconstrained and constrained, its log density and how the optimizer stopped.
struct OptimizeResult {
  std::vector<LatentSite> sites;  // the layout of `point`
  Tensor point;                   // (d): the mode on the unconstrained space
  tracing::Values mode;           // the latent sites' values there, constrained
  double log_density = 0;         // log p at the mode, with the Jacobian term only if asked
  bool converged = false;         // false: stopped at the iteration limit
  std::int64_t iterations = 0, evaluations = 0;
  std::string message;  // which test stopped it, in words
};

/// Maximizes the log density of `model` (its data conditioned inside it). Throws naming the site
/// for a discrete latent site (as inference::Unconstrained does), and naming what happened when no
/// finite start is found, or when the search makes no progress (its line search fails, say at a
/// NaN or an unbounded density).
OptimizeResult optimize(const tracing::Program& model, const OptimizeOptions& options = {});

}  // namespace variate::inference
