// PSIS's k-hat recovers the shape of generalized Pareto draws. Ratios whose exponentials are
// generalized Pareto (k, 1) have exceedances over any threshold u that are generalized Pareto
// (k, 1 + k u) (threshold stability), so k-hat estimates k, shrunk by the prior to
// (M k + 5) / (M + 10). One fit's error has sd about (1 + k) / sqrt(M), the maximum-likelihood
// estimator's asymptotic sd (Smith 1985), which Zhang & Stephens' estimator nearly attains. The
// mean over R independent data sets is checked against that centre at 4 standard errors (a
// false-failure rate of 6e-5 per shape), using the larger of the asymptotic and the observed sd.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "support/test_seed.hpp"
#include "variate/inference/pareto_smoothing.hpp"

namespace variate::inference {
namespace {

std::vector<double> log_generalized_pareto(double k, int draws, std::uint64_t seed) {
  std::mt19937_64 rng(variate::testing::test_seed(seed));
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> r;
  for (int s = 0; s < draws; ++s) {
    const double survival = 1 - uniform(rng);  // in (0, 1]
    const double x = k == 0 ? -std::log(survival) : std::expm1(-k * std::log(survival)) / k;
    r.push_back(std::log(x));
  }
  return r;
}

TEST(ParetoSmoothingStat, KHatRecoversTheShapeOfGeneralizedParetoDraws) {
  constexpr int kDraws = 4000, kRepeats = 40;
  for (double k : {0.0, 0.3, 0.7, 1.0}) {
    double sum = 0, sum_sq = 0;
    std::size_t m = 0;
    for (int rep = 0; rep < kRepeats; ++rep) {
      const ParetoSmoothed w = pareto_smooth(log_generalized_pareto(k, kDraws, 1000 * std::uint64_t(k * 10) + rep));
      m = w.tail_length;
      sum += w.k_hat;
      sum_sq += w.k_hat * w.k_hat;
    }
    const double mean = sum / kRepeats, sd = std::sqrt((sum_sq - kRepeats * mean * mean) / (kRepeats - 1));
    const double centre = (double(m) * k + 5) / (double(m) + 10);
    const double asymptotic_sd = (1 + k) / std::sqrt(double(m));
    // The observed sd agrees with the asymptotic one (a broken fit is far more or far less variable).
    EXPECT_GT(sd, 0.5 * asymptotic_sd) << "k = " << k;
    EXPECT_LT(sd, 2.0 * asymptotic_sd) << "k = " << k;
    EXPECT_NEAR(mean, centre, 4 * std::max(sd, asymptotic_sd) / std::sqrt(double(kRepeats)))
        << "k = " << k << ", sd " << sd << ", asymptotic " << asymptotic_sd;
  }
}

}  // namespace
}  // namespace variate::inference
