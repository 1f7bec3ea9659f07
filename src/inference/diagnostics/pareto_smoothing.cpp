#include "variate/inference/pareto_smoothing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "variate/core/error.hpp"

namespace variate::inference {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Zhang & Stephens parameterize by theta = -k / sigma; for a given theta the profile maximum of k
// is the mean of log(1 - theta x), and the profile log-likelihood is n (log(-theta / k) - k - 1).
double profile_k(double theta, const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += std::log1p(-theta * v);
  return s / double(x.size());
}

// The generalized Pareto quantile at probability p.
double quantile(const GeneralizedPareto& g, double p) {
  if (g.k == 0) return -g.sigma * std::log1p(-p);
  return g.sigma * std::expm1(-g.k * std::log1p(-p)) / g.k;
}

}  // namespace

GeneralizedPareto fit_generalized_pareto(const std::vector<double>& x) {
  const char* op = "fit_generalized_pareto";
  const std::size_t n = x.size();
  VARIATE_CHECK(n >= 2, op, "needs at least 2 exceedances, got ", n);
  for (std::size_t i = 0; i < n; ++i) {
    VARIATE_CHECK(std::isfinite(x[i]) && x[i] >= 0, op, "exceedance ", i, " is ", x[i],
                  "; expected a finite non-negative number");
    VARIATE_CHECK(i == 0 || x[i - 1] <= x[i], op, "the exceedances must be sorted ascending; ", i - 1, " is ", x[i - 1],
                  " and ", i, " is ", x[i]);
  }
  VARIATE_CHECK(x[n - 1] > 0, op, "all exceedances are 0; expected at least one positive");

  // The grid of theta values: quantiles of the prior Zhang & Stephens centre on the data's first
  // quartile x_star, shifted so that 1 - theta x stays positive for every x.
  const std::size_t m = 30 + std::size_t(std::sqrt(double(n)));
  const double x_star = x[std::size_t(double(n) / 4 + 0.5) - 1];
  std::vector<double> theta(m), log_lik(m);
  for (std::size_t j = 0; j < m; ++j) {
    theta[j] = 1 / x[n - 1] + (1 - std::sqrt(double(m) / (double(j) + 0.5))) / (3 * x_star);
    const double k = profile_k(theta[j], x);
    log_lik[j] = double(n) * (std::log(-theta[j] / k) - k - 1);
    if (!std::isfinite(log_lik[j])) log_lik[j] = -std::numeric_limits<double>::infinity();
  }
  // The posterior mean of theta over the grid: weight_j = 1 / sum_i exp(l_i - l_j), computed so
  // that no exponential overflows.
  double weight_sum = 0, theta_hat = 0;
  for (std::size_t j = 0; j < m; ++j) {
    if (log_lik[j] == -std::numeric_limits<double>::infinity()) continue;
    double s = 0;
    for (std::size_t i = 0; i < m; ++i) s += std::exp(log_lik[i] - log_lik[j]);
    const double w = 1 / s;
    weight_sum += w;
    theta_hat += w * theta[j];
  }
  if (!(weight_sum > 0)) return {kNaN, kNaN};
  theta_hat /= weight_sum;
  const double k = profile_k(theta_hat, x);
  const double prior_draws = 10, prior_k = 0.5;
  return {(double(n) * k + prior_draws * prior_k) / (double(n) + prior_draws), -k / theta_hat};
}

ParetoSmoothed pareto_smooth(const std::vector<double>& log_ratios) {
  const std::size_t s = log_ratios.size();
  for (std::size_t i = 0; i < s; ++i)
    VARIATE_CHECK(!std::isnan(log_ratios[i]) && log_ratios[i] != std::numeric_limits<double>::infinity(),
                  "pareto_smooth", "log ratio ", i, " is ", log_ratios[i], "; expected a number or -inf");
  ParetoSmoothed out;
  out.log_weights = log_ratios;
  out.tail_length = std::size_t(std::ceil(std::min(0.2 * double(s), 3 * std::sqrt(double(s)))));
  if (out.tail_length < 5) {
    out.k_hat = kNaN;
    return out;
  }
  // Shifted so that the largest is 0: the exponentials below cannot overflow.
  const double shift = *std::max_element(log_ratios.begin(), log_ratios.end());
  if (shift == -std::numeric_limits<double>::infinity()) {  // every weight is 0: nothing to fit
    out.k_hat = kNaN;
    return out;
  }
  std::vector<std::size_t> order(s);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return log_ratios[a] < log_ratios[b]; });
  const std::size_t first_tail = s - out.tail_length;
  const double cutoff = log_ratios[order[first_tail - 1]] - shift;
  if (-cutoff <= 1e-10) {
    out.k_hat = -std::numeric_limits<double>::infinity();
    return out;
  }
  const double exp_cutoff = std::exp(cutoff);
  std::vector<double> exceedances;
  for (std::size_t i = first_tail; i < s; ++i)
    exceedances.push_back(std::max(0.0, std::exp(log_ratios[order[i]] - shift) - exp_cutoff));
  const GeneralizedPareto fit = fit_generalized_pareto(exceedances);
  out.k_hat = fit.k;
  if (std::isfinite(fit.k)) {
    // The tail's ratios, in their order, replaced by the fitted quantiles at (i - 1/2) / M.
    for (std::size_t i = 0; i < out.tail_length; ++i) {
      const double p = (double(i) + 0.5) / double(out.tail_length);
      out.log_weights[order[first_tail + i]] = std::log(exp_cutoff + quantile(fit, p)) + shift;
    }
  }
  for (double& w : out.log_weights) w = std::min(w, shift);
  return out;
}

double pareto_k_threshold(std::size_t draws) {
  return std::min(1 - 1 / std::log10(double(std::max<std::size_t>(draws, 2))), 0.7);
}

}  // namespace variate::inference
