#pragma once
// Reducing log densities, log determinants and support masks over trailing event axes, shared by
// the wrappers and Chain.
#include <vector>

#include "variate/autodiff/ops.hpp"

namespace variate::detail {

/// The axes -1, ..., -n.
inline std::vector<int> rightmost_axes(int n) {
  std::vector<int> axes;
  for (int i = 1; i <= n; ++i) axes.push_back(-i);
  return axes;
}

/// Sums the last `n` axes of x (returns x when n is 0).
inline Tensor sum_rightmost(const Tensor& x, int n) { return n == 0 ? x : sum(x, rightmost_axes(n)); }

}  // namespace variate::detail
