#pragma once
// Posterior moments against known values, with tolerances from Monte Carlo standard errors (shared
// by the samplers' statistical tests).
#include <gtest/gtest.h>

#include <string>

#include "variate/inference/diagnostics.hpp"

namespace variate::testing {

inline double mean_of(const inference::ChainDraws& x) {
  double s = 0, n = 0;
  for (const auto& c : x)
    for (double v : c) s += v, ++n;
  return s / n;
}

/// The posterior mean and variance of one quantity within z MCSEs; the variance through the mean
/// of (x - true mean)², whose MCSE comes from its own ESS. R-hat below 1.01.
inline void expect_moments(const inference::ChainDraws& x, double mean, double variance, const std::string& what,
                           double z) {
  EXPECT_NEAR(mean_of(x), mean, z * inference::mcse_mean(x)) << what << " mean";
  inference::ChainDraws sq = x;
  for (auto& c : sq)
    for (auto& v : c) v = (v - mean) * (v - mean);
  EXPECT_NEAR(mean_of(sq), variance, z * inference::mcse_mean(sq)) << what << " variance";
  EXPECT_LT(inference::rhat(x), 1.01) << what;
}

}  // namespace variate::testing
