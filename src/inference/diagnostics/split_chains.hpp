#pragma once
// Chains, split chains and the checks that R-hat and ESS share.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "variate/inference/diagnostics.hpp"

namespace variate::inference::detail {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The number of draws per chain; throws unless there is a chain and all have the same length.
std::size_t draws_per_chain(const char* op, const ChainDraws& draws);

// R-hat needs two draws per split chain, ESS three (posterior's .ess): 4 and 6 per chain.
inline constexpr std::size_t kMinDrawsRhat = 4, kMinDrawsEss = 6;

// posterior's should_return_NA: R-hat and ESS are undefined when a value is not finite or all
// values are equal within DBL_EPSILON.
struct Spread {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  bool finite = true;
  void add(std::span<const double> values) {
    for (double v : values) {
      finite = finite && std::isfinite(v);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  bool undefined() const { return !finite || !(hi - lo >= DBL_EPSILON); }
};

// Whether R-hat and ESS of `draws` are undefined (Spread).
bool undefined(const ChainDraws& draws);

double mean_of(std::span<const double> x);
// Sample variance with the n - 1 denominator.
double variance_of(std::span<const double> x);

// Chains stored in one array, chain j at [j * n, (j + 1) * n): the split chains that R-hat and ESS
// work on, without a vector per chain.
struct Flat {
  std::size_t chains = 0, n = 0;
  std::vector<double> data;
  std::span<const double> chain(std::size_t j) const { return {data.data() + j * n, n}; }
};

// f of every draw, laid out as split chains: first halves, then second halves; the middle draw of
// an odd length is dropped (split_chains documents why).
Flat split_flat(const ChainDraws& draws, auto f) {
  const std::size_t chains = draws.size(), n = draws[0].size(), half = n / 2;
  Flat out{2 * chains, half, std::vector<double>(2 * chains * half)};
  for (std::size_t c = 0; c < chains; ++c)
    for (std::size_t i = 0; i < half; ++i) {
      out.data[c * half + i] = f(draws[c][i]);
      out.data[(chains + c) * half + i] = f(draws[c][n - half + i]);
    }
  return out;
}

// The draws themselves as split chains.
inline Flat split_flat(const ChainDraws& draws) {
  return split_flat(draws, [](double v) { return v; });
}

// Where draw i of chain c lands in split_flat's layout; -1 for a dropped middle draw.
std::int64_t split_position(std::size_t chains, std::size_t n, std::size_t c, std::size_t i);

}  // namespace variate::inference::detail
