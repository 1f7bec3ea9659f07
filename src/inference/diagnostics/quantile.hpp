#pragma once
// Sample quantiles as R computes them (type 7), on sorted values.
#include <cstddef>
#include <span>
#include <utility>

namespace variate::inference::detail {

// R's quantile(type = 7): h = (n - 1) p, interpolating between the order statistics floor(h) and
// floor(h) + 1 (0-based). R adds a 4 DBL_EPSILON fuzz so that an h meant to be whole is one; so do
// we, to pick the same order statistics. Returns floor(h) and the interpolation weight.
std::pair<std::size_t, double> type7_index(std::size_t size, double p);

// Type-7 quantile of ascending, NaN-free values.
double quantile_of_sorted(std::span<const double> sorted, double p);

}  // namespace variate::inference::detail
