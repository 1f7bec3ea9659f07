#include "inference/diagnostics/quantile.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <vector>

#include "inference/diagnostics/split_chains.hpp"
#include "variate/core/error.hpp"
#include "variate/inference/diagnostics.hpp"

namespace variate::inference {
namespace detail {

std::pair<std::size_t, double> type7_index(std::size_t size, double p) {
  const double fuzz = 4 * DBL_EPSILON;
  const double h = static_cast<double>(size - 1) * p;
  const double lo = std::floor(h + fuzz);
  return {static_cast<std::size_t>(lo), std::abs(h - lo) < fuzz ? 0.0 : h - lo};
}

double quantile_of_sorted(std::span<const double> sorted, double p) {
  const auto [i, frac] = type7_index(sorted.size(), p);
  if (frac == 0 || i + 1 >= sorted.size()) return sorted[i];
  return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

}  // namespace detail

using detail::kNaN;
using detail::type7_index;

double quantile(std::vector<double> x, double p) {
  VARIATE_CHECK(!x.empty(), "quantile", "expected at least one value, got none");
  VARIATE_CHECK(p >= 0 && p <= 1, "quantile", "expected a probability in [0, 1], got ", p);
  if (std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); })) return kNaN;
  // The two order statistics type 7 interpolates between, found in O(n) rather than by sorting.
  const auto [i, frac] = type7_index(x.size(), p);
  const auto at = x.begin() + static_cast<std::ptrdiff_t>(i);
  std::nth_element(x.begin(), at, x.end());
  if (frac == 0 || i + 1 >= x.size()) return *at;
  return *at + frac * (*std::min_element(at + 1, x.end()) - *at);
}

}  // namespace variate::inference
