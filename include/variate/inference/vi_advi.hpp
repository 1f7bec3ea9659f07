#pragma once
// Automatic differentiation variational inference (ADVI; Kucukelbir et al. 2017, "Automatic
// Differentiation Variational Inference", JMLR 18): a Gaussian q on the unconstrained space of any
// model (inference::Unconstrained), fitted by stochastic gradient ascent on the ELBO with pathwise
// gradients and nn::Adam.
//
//   inference::AdviResult fit = inference::fit_advi(model, {.family = inference::AdviFamily::full_rank});
//   fit.draws.at("sigma");          // draws of q, constrained back to the model's space
//   fit.elbo_trace.back();          // the last step's ELBO estimate
//
// q = N(loc, L L^T) over the flat unconstrained vector: L is diagonal with a positive diagonal
// (mean-field) or lower triangular with a positive diagonal (full rank), each positive entry kept
// as exp of a free parameter. A draw is loc + L eps with eps ~ N(0, I), and the ELBO is
// E[log p(T(zeta)) + log|det J_T(zeta)|] + H[q], the entropy H[q] = d/2 (1 + log 2 pi) + sum log L_ii
// in closed form.
#include <functional>
#include <vector>

#include "variate/inference/unconstrained.hpp"

namespace variate::inference {

enum class AdviFamily { mean_field, full_rank };

/// Options of automatic differentiation variational inference (Kucukelbir et al. 2017).
struct AdviOptions {
  AdviFamily family = AdviFamily::mean_field;
  /// Optimizer steps, each on an ELBO estimate from `particles` draws of q.
  int steps = 2000;
  int particles = 1;
  /// Adam's rate, decayed to 0 by a cosine schedule over the steps, so that the last iterates settle
  /// instead of moving with the gradient noise.
  double learning_rate = 0.05;
  /// Draws of the fitted q returned in AdviResult::draws.
  int draws = 1000;
  random::Key key = random::Key(0);
  /// Called after each step with its index (from 0) and ELBO estimate, when set: a progress display.
  std::function<void(int step, double elbo)> on_step = nullptr;
};

/// The fitted Gaussian q on the unconstrained space, the ELBO trace and draws of q.
struct AdviResult {
  std::vector<LatentSite> sites;  // the layout of the flat unconstrained vector
  Tensor loc;                     // (d): q's mean on the unconstrained space
  /// q's covariance is L L^T: full rank, L itself (d, d), lower triangular; mean field, L's
  /// diagonal (d), the standard deviations.
  Tensor scale;
  std::vector<double> elbo_trace;  // each step's ELBO estimate
  tracing::Values draws;           // options.draws draws of q constrained to the model's space
  Tensor unconstrained_draws;      // (draws, d): the same draws on the unconstrained space
  /// (draws): log q at each draw less q's normalizing constant, -|eps|^2 / 2 for the draw
  /// loc + L eps (CmdStan's log_g__). The constant is the same for every draw, so log p - log_g
  /// are the draws' log importance ratios up to a constant.
  Tensor log_g;
};

/// Fits q to the posterior of `model` (its data conditioned inside it). Throws naming the site if
/// a latent site is discrete (as inference::Unconstrained does).
AdviResult fit_advi(const tracing::Program& model, const AdviOptions& options = {});

}  // namespace variate::inference
