#include "support/statistics.hpp"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace variate::test {

std::ostream& operator<<(std::ostream& out, const GoodnessOfFit& g) {
  out << "statistic " << g.statistic << ", p-value " << g.p_value;
  if (g.degrees_of_freedom > 0) out << ", " << g.degrees_of_freedom << " degrees of freedom";
  return out;
}

double kolmogorov_p_value(double d, std::int64_t n) {
  const double rn = std::sqrt(double(n));
  const double lambda = (rn + 0.12 + 0.11 / rn) * d;
  if (lambda < 0.2) return 1.0;  // P(K <= 0.2) is below 1e-50
  // Two series for the same function; each converges in a handful of terms on its side of 1.18.
  if (lambda < 1.18) {
    const double pi2 = std::numbers::pi * std::numbers::pi;
    double cdf = 0.0;
    for (int j = 1; j <= 8; ++j) cdf += std::exp(-(2 * j - 1) * (2 * j - 1) * pi2 / (8 * lambda * lambda));
    return 1.0 - std::sqrt(2 * std::numbers::pi) / lambda * cdf;
  }
  double tail = 0.0;
  for (int j = 1; j <= 8; ++j) tail += (j % 2 == 1 ? 2.0 : -2.0) * std::exp(-2.0 * j * j * lambda * lambda);
  return std::clamp(tail, 0.0, 1.0);
}

GoodnessOfFit ks_test(std::vector<double> draws, const std::function<double(double)>& cdf) {
  if (draws.empty()) throw std::invalid_argument("ks_test: no draws");
  std::sort(draws.begin(), draws.end());
  const double n = double(draws.size());
  double d = 0.0;
  for (std::size_t i = 0; i < draws.size(); ++i) {
    const double f = cdf(draws[i]);
    d = std::max({d, f - double(i) / n, double(i + 1) / n - f});
  }
  return {d, kolmogorov_p_value(d, std::int64_t(draws.size())), 0};
}

GoodnessOfFit chi_square_test(std::span<const double> counts, std::span<const double> probs) {
  if (counts.size() != probs.size()) throw std::invalid_argument("chi_square_test: counts and probs differ in size");
  double n = 0.0;
  for (double c : counts) n += c;
  // Groups expecting at least 5 draws; a short last group joins the one before it.
  struct Group {
    double observed = 0.0, expected = 0.0;
  };
  std::vector<Group> groups;
  Group current;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    current.observed += counts[i];
    current.expected += n * probs[i];
    if (current.expected >= 5.0) {
      groups.push_back(current);
      current = {};
    }
  }
  if (current.observed > 0.0 || current.expected > 0.0) {
    if (groups.empty()) {
      groups.push_back(current);
    } else {
      groups.back().observed += current.observed;
      groups.back().expected += current.expected;
    }
  }
  double statistic = 0.0;
  for (const Group& g : groups) {
    // Only all-zero probabilities leave a group expecting nothing; a draw there is impossible.
    if (g.expected == 0.0) return {std::numeric_limits<double>::infinity(), 0.0, std::int64_t(groups.size()) - 1};
    statistic += (g.observed - g.expected) * (g.observed - g.expected) / g.expected;
  }
  const std::int64_t dof = std::int64_t(groups.size()) - 1;
  if (dof < 1) return {statistic, 1.0, 0};
  return {statistic, boost::math::gamma_q(0.5 * double(dof), 0.5 * statistic), dof};
}

GoodnessOfFit chi_square_test(std::span<const double> draws, const std::function<double(double)>& cdf,
                              std::span<const double> edges) {
  std::vector<double> counts(edges.size() + 1, 0.0), probs(edges.size() + 1, 0.0);
  double below = 0.0;
  for (std::size_t b = 0; b < edges.size(); ++b) {
    const double f = cdf(edges[b]);
    probs[b] = std::max(0.0, f - below);
    below = f;
  }
  probs[edges.size()] = std::max(0.0, 1.0 - below);
  for (double x : draws) ++counts[std::size_t(std::lower_bound(edges.begin(), edges.end(), x) - edges.begin())];
  return chi_square_test(counts, probs);
}

}  // namespace variate::test
