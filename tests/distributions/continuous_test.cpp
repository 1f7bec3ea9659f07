// Conformance rows for the continuous univariate families. References: Boost.Math 1.74 (Debian
// libboost-dev) log pdfs, evaluated here element by element.
#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numbers>

#include "support/conformance.hpp"
#include "variate/distributions/normal.hpp"

namespace variate {
namespace {

using testing::DistributionCase;
using testing::t;
using S = std::span<const Tensor>;

double boost_log_pdf(const auto& dist, double x) { return std::log(boost::math::pdf(dist, x)); }

std::vector<DistributionCase> cases() {
  return {
      {.name = "Normal_batch",
       .make = [](S p) { return std::make_shared<Normal>(p[0], p[1]); },
       .params = {t({0.0, -1.5, 3.0}), t({1.0, 0.3, 20.0})},
       .value = t({0.5, -1.0, -10.0}),
       .reference = [](const std::vector<double>& p, double x) {
         return boost_log_pdf(boost::math::normal(p[0], p[1]), x);
       },
       .provenance = "Boost.Math normal pdf"},
      {.name = "Normal_extreme_scales",
       .make = [](S p) { return std::make_shared<Normal>(p[0], p[1]); },
       .params = {t({0.0, 1e6}), t({1e-8, 1e8})},
       .value = t({2e-8, 0.0}),
       // Closed form: Boost's pdf underflows for tiny scales, the log density does not.
       .reference = [](const std::vector<double>& p, double x) {
         const double z = (x - p[0]) / p[1];
         return -0.5 * z * z - std::log(p[1]) - 0.5 * std::log(2 * std::numbers::pi);
       },
       .provenance = "closed form -z^2/2 - log(scale) - log(2 pi)/2",
       .gradient_tolerance = 1e-4},
      {.name = "Normal_broadcast_value",
       .make = [](S p) { return std::make_shared<Normal>(p[0], p[1]); },
       .params = {t({0.0, 1.0}), Tensor::scalar(2.0)},
       .value = testing::t2({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, 3, 2),
       .reference = [](const std::vector<double>& p, double x) {
         return boost_log_pdf(boost::math::normal(p[0], p[1]), x);
       },
       .provenance = "Boost.Math normal pdf"},
  };
}

class Continuous : public ::testing::TestWithParam<DistributionCase> {};
TEST_P(Continuous, Conforms) { testing::check_conformance(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Families, Continuous, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(Normal, InvalidParametersNameTheFamilyAndTheParameter) {
  try {
    Normal(0.0, -1.0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Normal: scale must be positive"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Normal(NAN, 1.0), Error);
  EXPECT_THROW(Normal(t({0, 0, 0}), t({1, 1})), Error);  // batch shapes do not broadcast
}

TEST(Normal, CdfAndMoments) {
  const Normal n(1.0, 2.0);
  EXPECT_NEAR(n.cdf(1.0).item(), 0.5, 1e-15);
  EXPECT_NEAR(n.cdf(3.0).item(), boost::math::cdf(boost::math::normal(1.0, 2.0), 3.0), 1e-15);
  EXPECT_DOUBLE_EQ(n.variance().item(), 4.0);
}

}  // namespace
}  // namespace variate
