#pragma once
// Goodness-of-fit tests for the statistical tests of samplers.
//
// False-failure budget: every statistical check asserts p_value > kFalseFailureRate (1e-4). Draws
// come from fixed keys, so a run is deterministic and a passing check keeps passing; the budget is
// the probability that a correct sampler would fail one check for an arbitrarily chosen key, so a
// suite of N checks fails falsely with probability at most N * 1e-4 when its keys are changed.
// Sample sizes (about 1e5) are large enough that errors of a percent in a CDF or pmf fail.
#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <vector>

namespace variate::test {

inline constexpr double kFalseFailureRate = 1e-4;

struct GoodnessOfFit {
  double statistic = 0.0;
  double p_value = 1.0;
  std::int64_t degrees_of_freedom = 0;  // chi-square tests only
};
std::ostream& operator<<(std::ostream& out, const GoodnessOfFit& g);

/// P(sqrt(n) D_n > sqrt(n) d) under the null, from the asymptotic Kolmogorov distribution with
/// Stephens's small-sample correction (M. A. Stephens, "Use of the Kolmogorov-Smirnov, Cramer-von
/// Mises and related statistics without extensive tables", JRSS B 32, 1970).
double kolmogorov_p_value(double d, std::int64_t n);

/// One-sample Kolmogorov-Smirnov test of draws against a continuous CDF.
GoodnessOfFit ks_test(std::vector<double> draws, const std::function<double(double)>& cdf);

/// Pearson's chi-square test of bin counts against bin probabilities (which sum to 1). Adjacent bins
/// are pooled, in order, until each pooled bin expects at least 5 draws; the pooling depends only on
/// the probabilities, so the test stays valid.
GoodnessOfFit chi_square_test(std::span<const double> counts, std::span<const double> probs);

/// Chi-square test of draws against a CDF over the bins (-inf, e_0], (e_0, e_1], ..., (e_m, inf)
/// given by increasing `edges`. For integer-valued draws, integer edges make each bin a set of
/// whole values (pass a CDF that is right-continuous at the integers).
GoodnessOfFit chi_square_test(std::span<const double> draws, const std::function<double(double)>& cdf,
                              std::span<const double> edges);

}  // namespace variate::test
