#pragma once
// The one generic autodiff checker (Stan's expect_ad): for a function of tensors it checks that
//  1. plain evaluation throws exactly when evaluation under value_and_grad throws;
//  2. the value under value_and_grad equals plain evaluation;
//  3. the gradient of a random projection sum(f(x) * c) equals fourth-order central differences in f64.
// Random projections make one gradient check cover every output element of a non-scalar f.
#include <functional>
#include <span>
#include <vector>

#include "variate/autodiff/ops.hpp"

namespace variate::testing {

using TensorFn = std::function<Tensor(std::span<const Tensor>)>;

struct AdTolerance {
  double abs = 1e-6;
  double rel = 1e-5;
};

/// Runs the three checks with gtest assertions; `inputs` must be f64.
void expect_ad(const TensorFn& f, const std::vector<Tensor>& inputs, AdTolerance tol = {});

/// A tensor of the given shape with standard-normal entries from a fixed-seed generator.
Tensor random_tensor(const Shape& shape, unsigned seed, double scale = 1.0, double shift = 0.0);
/// Uniform entries in (lo, hi).
Tensor uniform_tensor(const Shape& shape, unsigned seed, double lo, double hi);

}  // namespace variate::testing
