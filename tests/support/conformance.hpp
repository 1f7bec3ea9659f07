#pragma once
// The table-driven conformance suite for distributions (Stan's test/prob, NumPyro's
// test_distributions): adding a family adds rows. Each row gives a way to build the distribution from
// f64 parameter tensors, the parameters, points in the support, and an independent reference log
// density with its provenance. `check_conformance` then checks shapes, log_prob against the
// reference, gradients (value and parameters) with the generic autodiff checker, sample moments
// against the closed-form mean and variance with Monte Carlo tolerances, and the support.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "variate/distributions/distribution.hpp"

namespace variate::testing {

using Factory = std::function<DistributionPtr(std::span<const Tensor> params)>;
/// Reference log density at one element: the parameters' values at that element, then x.
using ScalarReference = std::function<double(const std::vector<double>& params, double x)>;

struct DistributionCase {
  std::string name{};
  Factory make{};
  std::vector<Tensor> params{};              // f64
  Tensor value{};                            // points in the support (broadcast against the batch shape)
  ScalarReference reference{};               // for families with scalar events; or give `reference_values`
  Tensor reference_values{};                 // log densities shaped like log_prob(value)
  std::string provenance{};                  // where the reference comes from ("Boost.Math 1.74 pdf", ...)
  Tensor outside{};                          // a value outside the support (undefined: the support is everything)
  bool differentiable_value = true;          // false for discrete families
  std::vector<int> differentiable_params{};  // indices of parameters to check gradients for (all if empty)
  bool check_mean = true;                    // false where the mean does not exist (Cauchy)
  bool check_variance = true;                // false where the variance or the 4th moment does not exist
  double reference_tolerance = 1e-10;        // relative
  double gradient_tolerance = 1e-5;          // relative, against central differences
};

/// Runs every check for one row with gtest assertions.
void check_conformance(const DistributionCase& c);

/// Helpers for rows.
Tensor t(std::initializer_list<double> values);                                         // a 1-d f64 tensor
Tensor t2(std::initializer_list<double> values, std::int64_t rows, std::int64_t cols);  // 2-d

}  // namespace variate::testing
