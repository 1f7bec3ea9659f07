#pragma once
// Differentiable cumulative sums from the end of the last axis, shared by the bijectors whose
// inverses need tail sums (StickBreaking, CorrCholesky).
#include <vector>

#include "variate/autodiff/ops.hpp"

namespace variate::detail {

/// out_k = x_k + x_(k+1) + ... + x_n along the last axis. Tail sums are added from the end, not
/// formed as total - prefix, so that small tails keep their precision.
inline Tensor reverse_cumsum(const Tensor& x) {
  const std::int64_t n = x.dim(-1);
  std::vector<std::int64_t> reversed(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) reversed[std::size_t(i)] = n - 1 - i;
  const Tensor index = Tensor::from(reversed, Shape{n});
  return take(cumsum(take(x, index, -1), -1), index, -1);
}

}  // namespace variate::detail
