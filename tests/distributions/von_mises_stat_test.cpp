// Draws of VonMises against its circular moments, E cos(j (x - loc)) = I_j(k) / I_0(k) and
// E sin(j (x - loc)) = 0 (Mardia & Jupp, Directional Statistics, 2000, 3.5.4), with Boost.Math's
// Bessel functions, for concentrations from nearly uniform to sharply peaked and a loc whose draws
// wrap around pi. Each mean is checked within 5 Monte Carlo standard errors: 48 checks give a
// false-failure budget of about 3e-5, and the seeds are fixed.
#include <gtest/gtest.h>

#include <boost/math/special_functions/bessel.hpp>
#include <cmath>
#include <numbers>

#include "support/test_seed.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/von_mises.hpp"

namespace variate::dist {
namespace {

TEST(VonMisesDraws, MatchTheCircularMomentsAndStayOnTheCircle) {
  const std::int64_t n = 40000;
  for (const double loc : {0.0, 3.0}) {
    for (const double k : {1e-3, 0.7, 3.0, 40.0}) {
      const Tensor draws = VonMises(loc, k).sample(random::Key(variate::testing::test_seed(17)), Shape{n});
      const double* x = draws.data<double>();
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_GE(x[i], -std::numbers::pi) << "k " << k;
        ASSERT_LT(x[i], std::numbers::pi) << "k " << k;
      }
      for (int j = 1; j <= 3; ++j) {
        double c = 0, c2 = 0, s = 0, s2 = 0;
        for (std::int64_t i = 0; i < n; ++i) {
          const double a = j * (x[i] - loc);
          c += std::cos(a), c2 += std::cos(a) * std::cos(a), s += std::sin(a), s2 += std::sin(a) * std::sin(a);
        }
        c /= double(n), s /= double(n);
        const double c_se = std::sqrt((c2 / double(n) - c * c) / double(n)),
                     s_se = std::sqrt((s2 / double(n) - s * s) / double(n));
        const double want = boost::math::cyl_bessel_i(j, k) / boost::math::cyl_bessel_i(0, k);
        EXPECT_NEAR(c, want, 5 * c_se + 1e-12) << "E cos(" << j << " (x - loc)), loc " << loc << ", k " << k;
        EXPECT_NEAR(s, 0.0, 5 * s_se + 1e-12) << "E sin(" << j << " (x - loc)), loc " << loc << ", k " << k;
      }
    }
  }
}

TEST(VonMisesDraws, CarryLocsGradientAndRefuseConcentrations) {
  const Tensor loc = Tensor::scalar(0.5), k = Tensor::scalar(2.0);
  auto [value, grads] =
      value_and_grad([&](const Tensor& l) { return sum(VonMises(l, k).sample(random::Key(3), Shape{4})); }, loc);
  EXPECT_DOUBLE_EQ(grads[0].item(), 4.0) << "a shift by loc (wrapping is piecewise constant)";
  EXPECT_THROW(value_and_grad([&](const Tensor& c) { return sum(VonMises(loc, c).sample(random::Key(3))); }, k), Error);
}

}  // namespace
}  // namespace variate::dist
