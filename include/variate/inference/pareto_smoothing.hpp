#pragma once
// Pareto smoothed importance sampling (PSIS; Vehtari, Simpson, Gelman, Yao & Gabry 2024, "Pareto
// Smoothed Importance Sampling", JMLR 25): the largest importance ratios are replaced by quantiles
// of a generalized Pareto distribution fitted to them, and the fitted shape k-hat says how far the
// estimates can be trusted. With draws of a variational approximation q, the ratios p/q measure
// how well q covers the posterior p (Yao, Vehtari, Simpson & Gelman 2018, "Yes, but Did It Work?:
// Evaluating Variational Inference").
//
//   std::vector<double> log_ratios = ...;          // log p(theta_s) - log q(theta_s), s = 1..S
//   inference::ParetoSmoothed w = inference::pareto_smooth(log_ratios);
//   if (w.k_hat < inference::pareto_k_threshold(log_ratios.size())) ...  // reliable
#include <cstddef>
#include <vector>

namespace variate::inference {

/// A generalized Pareto distribution with location 0: P(X > x) = (1 + k x / sigma)^(-1/k).
struct GeneralizedPareto {
  double k = 0;      // shape: the tail is heavier the larger k is; k >= 1 has no finite mean
  double sigma = 0;  // scale
};

/// Fits a generalized Pareto distribution to `exceedances` (non-negative, sorted ascending, at
/// least one positive) with the empirical-Bayes estimator of Zhang & Stephens (2009), "A New and
/// Efficient Estimation Method for the Generalized Pareto Distribution", Technometrics 51(3), with
/// their grid of 30 + floor(sqrt(n)) points, and then shrinks k towards 0.5 with PSIS's weakly
/// informative prior, k <- (n k + 10 * 0.5) / (n + 10) (Vehtari et al. 2024). Throws
/// for fewer than 2 exceedances or ones that are unsorted, negative or not finite.
GeneralizedPareto fit_generalized_pareto(const std::vector<double>& exceedances);

/// Pareto-smoothed log importance weights (Vehtari et al. 2024) and the fitted tail shape k-hat.
struct ParetoSmoothed {
  /// The smoothed log weights, in the order of the ratios, on the ratios' scale (not normalized):
  /// the M largest replaced by the fitted distribution's quantiles and every one truncated at the
  /// largest ratio.
  std::vector<double> log_weights;
  /// The fitted shape; NaN when there are too few draws for a tail of 5 (fewer than 21), when every
  /// ratio is -inf or when the fit fails (a quarter of the tail ties with the ratio below it); -inf
  /// when the tail's ratios are all equal (to 1e-10 relatively: q equals p up to a constant there).
  double k_hat = 0;
  std::size_t tail_length = 0;  // M
};

/// PSIS of the log importance ratios of S independent draws: fits the M = ceil(min(0.2 S, 3 sqrt(S)))
/// largest ratios' excess over the next largest. Throws naming the draw for a NaN or +inf ratio;
/// -inf (a draw p gives no mass) is a weight of 0.
ParetoSmoothed pareto_smooth(const std::vector<double>& log_ratios);

/// The k-hat below which PSIS estimates from `draws` draws are reliable: min(1 - 1/log10(S), 0.7)
/// (Vehtari et al. 2024): above it the number of draws a reliable estimate needs grows too fast.
double pareto_k_threshold(std::size_t draws);

}  // namespace variate::inference
