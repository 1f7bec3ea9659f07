// The Hessian of a model's unconstrained log density (what a Laplace approximation needs), against
// central differences of its gradient.
#include <gtest/gtest.h>

#include <cmath>

#include "variate/autodiff/transforms.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate {
namespace {

// A normal model with unknown location and scale: sigma's positive support goes through its
// default bijector, so the Hessian runs through the bijector's forward map and log|det J| too.
void normal_model() {
  auto sigma = Gamma(2.0, 2.0, "sigma");
  auto mu = Normal(0.0, 5.0, "mu");
  tracing::Condition data({{"y", Tensor::vec({0.3, -1.2, 2.5, 0.7, 1.1})}});
  Normal(mu, sigma, "y", {5});
}

TEST(UnconstrainedHessian, MatchesDifferencesOfTheGradient) {
  const inference::Unconstrained space(normal_model);
  ASSERT_EQ(space.dimension(), 2);
  const auto log_density = [&](const Tensor& flat) { return space.log_density(flat); };
  const Tensor at = Tensor::vec({-0.2, 0.6});
  const Tensor h = hessian(log_density, at);
  ASSERT_EQ(h.shape(), (Shape{2, 2}));
  // Step h = 1e-5: truncation h^2/6 |g'''| and rounding eps |g| / h are both below 1e-8 here.
  constexpr double step = 1e-5;
  for (int j = 0; j < 2; ++j) {
    Tensor up = at.clone(), down = at.clone();
    up.data<double>()[j] += step;
    down.data<double>()[j] -= step;
    const Tensor gu = grad(log_density, up), gd = grad(log_density, down);
    for (int i = 0; i < 2; ++i) {
      const double reference = (gu.at(i) - gd.at(i)) / (2 * step);
      EXPECT_NEAR(h.data<double>()[i * 2 + j], reference, 1e-6 * (1 + std::abs(reference)))
          << "entry (" << i << ", " << j << ")";
    }
  }
  EXPECT_NEAR(h.data<double>()[1], h.data<double>()[2], 1e-10);
}

}  // namespace
}  // namespace variate
