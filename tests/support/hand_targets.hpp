#pragma once
// Log densities written by hand, row by row, for sampler tests that need many fast target calls:
// a batched call gives bitwise the same values as the rows evaluated alone.
#include <cmath>
#include <cstdint>
#include <vector>

#include "variate/inference/target.hpp"

namespace variate::testing {

/// N(0, Σ) given the precision Σ⁻¹ (row-major, dimension²).
inline inference::Target gaussian_target_with_precision(std::vector<double> precision, std::int64_t dimension) {
  inference::Target t;
  t.dimension = dimension;
  t.evaluate = [precision, d = std::size_t(dimension)](std::span<const double> q, std::int64_t batch,
                                                       std::span<double> lp, std::span<double> g) {
    for (std::size_t c = 0; c < std::size_t(batch); ++c) {
      double s = 0;
      for (std::size_t i = 0; i < d; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < d; ++j) row += precision[i * d + j] * q[c * d + j];
        g[c * d + i] = -row;
        s -= 0.5 * q[c * d + i] * row;
      }
      lp[c] = s;
    }
  };
  return t;
}

/// Neal's funnel, centered: v ~ N(0, 3), x_i ~ N(0, exp(v/2)), coordinates (v, x_1, ..., x_k).
inline inference::Target funnel_target(std::int64_t k) {
  inference::Target t;
  t.dimension = k + 1;
  t.evaluate = [k](std::span<const double> q, std::int64_t batch, std::span<double> lp, std::span<double> g) {
    const std::size_t d = std::size_t(k + 1);
    for (std::size_t c = 0; c < std::size_t(batch); ++c) {
      const double v = q[c * d], inverse_variance = std::exp(-v);
      double s = -v * v / 18 - 0.5 * double(k) * v, dv = -v / 9 - 0.5 * double(k);
      for (std::size_t i = 1; i < d; ++i) {
        const double x = q[c * d + i];
        s -= 0.5 * x * x * inverse_variance;
        dv += 0.5 * x * x * inverse_variance;
        g[c * d + i] = -x * inverse_variance;
      }
      g[c * d] = dv;
      lp[c] = s;
    }
  };
  return t;
}

}  // namespace variate::testing
