#pragma once
// L-BFGS for full-batch problems (a MAP estimate, a small network on all its data): Nocedal &
// Wright, Numerical Optimization (2nd ed.), Algorithm 7.4 (the two-loop recursion) for the
// direction and Algorithms 3.5 and 3.6 (a line search for the strong Wolfe conditions, with cubic
// interpolation in the zoom) for the step. The parameters are updated in place and, on return,
// hold the best point found.
//
//   nn::Parameters params(model);
//   nn::LbfgsResult r = nn::minimize_lbfgs(params, [&] { return -log_posterior(model); });
//   if (r.status == nn::LbfgsStatus::line_search_failed) std::cerr << r.message << '\n';
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "variate/nn/module.hpp"

namespace variate::nn {

/// Options of L-BFGS with a line search satisfying the strong Wolfe conditions.
struct LbfgsOptions {
  std::int64_t max_iterations = 100;
  /// The number of correction pairs (s, y) kept: m in Nocedal & Wright.
  int history = 10;
  /// Converged when the gradient's L2 norm is at most this.
  double gradient_tolerance = 1e-6;
  /// Also converged when an iteration lowers the loss by at most `loss_tolerance`, or by at most
  /// `relative_loss_tolerance` times max(|loss before|, |loss after|, 1), or moves the parameters
  /// by at most `parameter_tolerance` (L2 norm): the further tests of Stan's optimizer, which stop
  /// a search whose loss is flat at the working precision. 0 turns a test off.
  double loss_tolerance = 0;
  double relative_loss_tolerance = 0;
  double parameter_tolerance = 0;
  /// Sufficient decrease (c1) and curvature (c2) constants of the strong Wolfe conditions.
  double c1 = 1e-4;
  double c2 = 0.9;
  /// Loss evaluations one line search may make before it gives up.
  int max_line_search_evaluations = 25;
  /// When set, called with the parameters (all elements end to end), the loss and its gradient at
  /// the start and after each accepted iteration: the trajectory, which Pathfinder's approximations
  /// are built from.
  std::function<void(std::span<const double> x, double loss, std::span<const double> gradient)> on_iterate = nullptr;
};

enum class LbfgsStatus { converged, max_iterations, line_search_failed };

/// Where L-BFGS stopped, why, and how many iterations and evaluations it took.
struct LbfgsResult {
  LbfgsStatus status = LbfgsStatus::max_iterations;
  std::int64_t iterations = 0;
  std::int64_t evaluations = 0;  // of the loss and its gradient
  double loss = 0;
  double gradient_norm = 0;
  /// What happened, in words: which iteration's line search failed and why, say.
  std::string message;
};

/// Minimizes loss() (a one-element tensor computed from the parameters, which must be f32 or f64)
/// over the parameters. Throws if the loss or its gradient is not finite at the starting point; a
/// non-finite value met during a line search counts as too large a step. If loss() throws during a
/// line search, the parameters are set back to the best point before the exception propagates.
LbfgsResult minimize_lbfgs(Parameters& params, const std::function<Tensor()>& loss, LbfgsOptions options = {});

}  // namespace variate::nn
