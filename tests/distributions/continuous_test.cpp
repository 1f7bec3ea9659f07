// Conformance rows for the continuous univariate families, and per-family tests of parameter
// checks, cdfs and moments. References: Boost.Math 1.74 (Debian libboost-dev) pdfs and cdfs,
// evaluated here element by element; where a pdf would underflow, the row says which closed form
// it uses instead.
#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/cauchy.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/extreme_value.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/inverse_gamma.hpp>
#include <boost/math/distributions/laplace.hpp>
#include <boost/math/distributions/logistic.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/pareto.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/distributions/uniform.hpp>
#include <boost/math/distributions/weibull.hpp>
#include <boost/math/special_functions/bessel.hpp>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "support/ad_check.hpp"
#include "support/conformance.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/beta.hpp"
#include "variate/distributions/cauchy.hpp"
#include "variate/distributions/chi2.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/gamma.hpp"
#include "variate/distributions/gaussian_random_walk.hpp"
#include "variate/distributions/gumbel.hpp"
#include "variate/distributions/half_cauchy.hpp"
#include "variate/distributions/half_normal.hpp"
#include "variate/distributions/inverse_gamma.hpp"
#include "variate/distributions/laplace.hpp"
#include "variate/distributions/log_normal.hpp"
#include "variate/distributions/logistic.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/pareto.hpp"
#include "variate/distributions/student_t.hpp"
#include "variate/distributions/truncated.hpp"
#include "variate/distributions/uniform.hpp"
#include "variate/distributions/von_mises.hpp"
#include "variate/distributions/weibull.hpp"

namespace variate {
using namespace dist;  // the families under test
namespace {

namespace bm = boost::math;
using testing::DistributionCase;
using testing::t;
using S = std::span<const Tensor>;
using P = const std::vector<double>&;

double boost_log_pdf(const auto& dist, double x) { return std::log(bm::pdf(dist, x)); }

template <class D>
DistributionPtr make1(S p) {
  return std::make_shared<D>(p[0]);
}
template <class D>
DistributionPtr make2(S p) {
  return std::make_shared<D>(p[0], p[1]);
}
template <class D>
DistributionPtr make3(S p) {
  return std::make_shared<D>(p[0], p[1], p[2]);
}

std::vector<DistributionCase> cases() {
  return {
      // Normal: the worked example.
      {.name = "Normal_batch",
       .make = make2<Normal>,
       .params = {t({0.0, -1.5, 3.0}), t({1.0, 0.3, 20.0})},
       .value = t({0.5, -1.0, -10.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::normal(p[0], p[1]), x); },
       .provenance = "Boost.Math normal pdf"},
      {.name = "Normal_extreme_scales",
       .make = make2<Normal>,
       .params = {t({0.0, 1e6}), t({1e-8, 1e8})},
       .value = t({2e-8, 0.0}),
       // Closed form: Boost's pdf underflows for tiny scales, the log density does not.
       .reference =
           [](P p, double x) {
             const double z = (x - p[0]) / p[1];
             return -0.5 * z * z - std::log(p[1]) - 0.5 * std::log(2 * std::numbers::pi);
           },
       .provenance = "closed form -z^2/2 - log(scale) - log(2 pi)/2",
       .gradient_tolerance = 1e-4},
      // Constant scalars 0 and 1, for which the density leaves out x - 0 and x / 1; the gradient
      // check tracks them, which takes the general path at the same point.
      {.name = "Normal_standard",
       .make = make2<Normal>,
       .params = {Tensor::scalar(0.0), Tensor::scalar(1.0)},
       .value = t({0.5, -1.0, -10.0, 37.0, 0.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::normal(p[0], p[1]), x); },
       .provenance = "Boost.Math normal pdf"},
      {.name = "Normal_broadcast_value",
       .make = make2<Normal>,
       .params = {t({0.0, 1.0}), Tensor::scalar(2.0)},
       .value = testing::t2({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, 3, 2),
       .reference = [](P p, double x) { return boost_log_pdf(bm::normal(p[0], p[1]), x); },
       .provenance = "Boost.Math normal pdf"},

      // HalfNormal(scale): 2 * Normal(0, scale) pdf on x > 0.
      {.name = "HalfNormal_batch",
       .make = make1<HalfNormal>,
       .params = {t({1.0, 0.3, 20.0})},
       .value = t({0.5, 1e-3, 35.0}),
       .reference = [](P p, double x) { return std::log(2 * bm::pdf(bm::normal(0, p[0]), x)); },
       .provenance = "log(2 * Boost.Math normal pdf)",
       .outside = Tensor::scalar(-1.0)},
      {.name = "HalfNormal_extreme_scales",
       .make = make1<HalfNormal>,
       .params = {t({1e-8, 1e8})},
       .value = testing::t2({2e-8, 3e8, 1e-9, 1.0}, 2, 2),
       .reference = [](P p, double x) { return std::log(2 * bm::pdf(bm::normal(0, p[0]), x)); },
       .provenance = "log(2 * Boost.Math normal pdf)",
       .outside = t({-1e-9, -1e9}),
       .gradient_tolerance = 1e-4},

      // LogNormal(loc, scale).
      {.name = "LogNormal_batch",
       .make = make2<LogNormal>,
       .params = {t({0.0, -1.5, 3.0}), t({0.25, 0.3, 0.5})},
       .value = t({0.5, 0.2, 30.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::lognormal(p[0], p[1]), x); },
       .provenance = "Boost.Math lognormal pdf",
       .outside = Tensor::scalar(0.0)},
      {.name = "LogNormal_extreme",
       .make = make2<LogNormal>,
       .params = {t({-30.0, 30.0}), t({1e-6, 0.5})},
       .value = t({std::exp(-30.0) * (1 + 3e-6), 2e13}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::lognormal(p[0], p[1]), x); },
       .provenance = "Boost.Math lognormal pdf",
       .outside = Tensor::scalar(-1.0),
       .gradient_tolerance = 1e-4},

      // StudentT(df, loc, scale): Boost's standard students_t at z, divided by scale.
      {.name = "StudentT_batch",
       .make = make3<StudentT>,
       .params = {t({12.0, 30.0, 100.0}), t({0.0, -1.5, 3.0}), t({1.0, 0.3, 20.0})},
       .value = t({0.5, -1.0, -10.0}),
       .reference = [](P p,
                       double x) { return boost_log_pdf(bm::students_t(p[0]), (x - p[1]) / p[2]) - std::log(p[2]); },
       .provenance = "Boost.Math students_t pdf of (x - loc) / scale, over scale"},
      // The mean does not exist for df <= 1, nor the variance for df <= 2; the variance test needs
      // the fourth moment (df > 4).
      {.name = "StudentT_heavy_tails",
       .make = make3<StudentT>,
       .params = {t({0.1, 1.5, 4.0}), t({2e-8, 1.0, -1.0}), t({1e-8, 1.0, 1e8})},
       .value = t({5e-8, 100.0, 5e8}),
       .reference = [](P p,
                       double x) { return boost_log_pdf(bm::students_t(p[0]), (x - p[1]) / p[2]) - std::log(p[2]); },
       .provenance = "Boost.Math students_t pdf of (x - loc) / scale, over scale",
       .check_mean = false,
       .check_variance = false,
       .gradient_tolerance = 1e-4},

      // Cauchy(loc, scale): no mean, no variance.
      {.name = "Cauchy_batch",
       .make = make2<Cauchy>,
       .params = {t({0.0, -1.5, 3.0}), t({1.0, 0.3, 20.0})},
       .value = t({0.5, -1.0, -10.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::cauchy(p[0], p[1]), x); },
       .provenance = "Boost.Math cauchy pdf",
       .check_mean = false,
       .check_variance = false},
      {.name = "Cauchy_extreme_scales",
       .make = make2<Cauchy>,
       .params = {t({2e-8, 1e6}), t({1e-8, 1e8})},
       .value = t({1e-7, -3e8}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::cauchy(p[0], p[1]), x); },
       .provenance = "Boost.Math cauchy pdf",
       .check_mean = false,
       .check_variance = false,
       .gradient_tolerance = 1e-4},

      // HalfCauchy(loc, scale): 2 * Cauchy(loc, scale) pdf on x > loc; no mean, no variance.
      {.name = "HalfCauchy_batch",
       .make = make2<HalfCauchy>,
       .params = {t({0.0, -2.0, 5.0}), t({1.0, 0.5, 1e-3})},
       .value = t({0.5, 1.5, 5.002}),
       .reference = [](P p, double x) { return std::log(2 * bm::pdf(bm::cauchy(p[0], p[1]), x)); },
       .provenance = "log(2 * Boost.Math cauchy pdf)",
       .outside = t({-1.0, -3.0, 4.0}),
       .check_mean = false,
       .check_variance = false},
      {.name = "HalfCauchy_extreme_scales",
       .make = make2<HalfCauchy>,
       .params = {t({-1e-9, 1e6}), t({1e-8, 1e8})},
       .value = t({2e-8, 1e6 + 5e8}),
       .reference = [](P p, double x) { return std::log(2 * bm::pdf(bm::cauchy(p[0], p[1]), x)); },
       .provenance = "log(2 * Boost.Math cauchy pdf)",
       .outside = t({-1e-8, 1e6}),
       .check_mean = false,
       .check_variance = false,
       .gradient_tolerance = 1e-4},

      // Laplace(loc, scale).
      {.name = "Laplace_batch",
       .make = make2<Laplace>,
       .params = {t({0.0, -1.5, 3.0}), t({1.0, 0.3, 20.0})},
       .value = t({0.5, -1.0, -10.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::laplace(p[0], p[1]), x); },
       .provenance = "Boost.Math laplace pdf"},
      {.name = "Laplace_extreme_scales",
       .make = make2<Laplace>,
       .params = {t({2e-8, 1e6}), t({1e-8, 1e8})},
       .value = t({5e-8, -2e8}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::laplace(p[0], p[1]), x); },
       .provenance = "Boost.Math laplace pdf",
       .gradient_tolerance = 1e-4},

      // Logistic(loc, scale).
      {.name = "Logistic_batch",
       .make = make2<Logistic>,
       .params = {t({0.0, -1.5, 3.0}), t({1.0, 0.3, 20.0})},
       .value = t({0.5, -1.0, -10.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::logistic(p[0], p[1]), x); },
       .provenance = "Boost.Math logistic pdf"},
      {.name = "Logistic_extreme",
       .make = make2<Logistic>,
       .params = {t({2e-8, 1e6}), t({1e-8, 1e8})},
       .value = t({5.2e-7, 1e6 - 8e10}),  // z = 50 and z = -800
       // Closed form: at z = -800 Boost's pdf (exp(-800) / scale) underflows to 0.
       .reference =
           [](P p, double x) {
             const double z = std::abs((x - p[0]) / p[1]);
             return -z - 2 * std::log1p(std::exp(-z)) - std::log(p[1]);
           },
       .provenance = "closed form -|z| - 2 log1p(exp(-|z|)) - log(scale) (Boost's pdf underflows at z = -800)",
       .gradient_tolerance = 1e-4},

      // Exponential(rate).
      {.name = "Exponential_batch",
       .make = make1<Exponential>,
       .params = {t({1.0, 0.01, 100.0})},
       .value = t({0.5, 100.0, 0.003}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::exponential(p[0]), x); },
       .provenance = "Boost.Math exponential pdf",
       .outside = Tensor::scalar(-1.0)},
      {.name = "Exponential_extreme_rates",
       .make = make1<Exponential>,
       .params = {t({1e-8, 1e8})},
       .value = t({3e7, 3e-9}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::exponential(p[0]), x); },
       .provenance = "Boost.Math exponential pdf",
       .outside = Tensor::scalar(0.0),
       .gradient_tolerance = 1e-4},

      // Gamma(concentration, rate); Boost's gamma_distribution takes the scale 1 / rate.
      {.name = "Gamma_batch",
       .make = make2<Gamma>,
       .params = {t({0.1, 1.0, 100.0}), t({1.0, 0.5, 100.0})},
       .value = t({0.01, 2.0, 1.1}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::gamma_distribution(p[0], 1 / p[1]), x); },
       .provenance = "Boost.Math gamma_distribution pdf",
       .outside = Tensor::scalar(-1.0)},
      {.name = "Gamma_extreme",
       .make = make2<Gamma>,
       .params = {t({0.5, 1000.0}), t({1e-6, 1e6})},
       .value = t({1e5, 1e-3}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::gamma_distribution(p[0], 1 / p[1]), x); },
       .provenance = "Boost.Math gamma_distribution pdf",
       .outside = Tensor::scalar(0.0),
       .gradient_tolerance = 1e-4},

      // InverseGamma(concentration, scale).
      {.name = "InverseGamma_batch",
       .make = make2<InverseGamma>,
       .params = {t({12.0, 20.0, 100.0}), t({1.0, 0.5, 100.0})},
       .value = t({0.1, 0.05, 1.1}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::inverse_gamma_distribution(p[0], p[1]), x); },
       .provenance = "Boost.Math inverse_gamma_distribution pdf",
       .outside = Tensor::scalar(-1.0)},
      // The mean does not exist for concentration <= 1, the variance for <= 2, and the variance
      // test needs the fourth moment (concentration > 4).
      {.name = "InverseGamma_heavy_tails",
       .make = make2<InverseGamma>,
       .params = {t({0.1, 3.0}), t({1e-6, 1e6})},
       .value = t({1e-3, 3e5}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::inverse_gamma_distribution(p[0], p[1]), x); },
       .provenance = "Boost.Math inverse_gamma_distribution pdf",
       .outside = Tensor::scalar(0.0),
       .check_mean = false,
       .check_variance = false,
       .gradient_tolerance = 1e-4},

      // Beta(concentration1, concentration0).
      {.name = "Beta_batch",
       .make = make2<Beta>,
       .params = {t({0.1, 1.0, 100.0}), t({0.1, 2.0, 100.0})},
       .value = t({0.01, 0.3, 0.45}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::beta_distribution(p[0], p[1]), x); },
       .provenance = "Boost.Math beta_distribution pdf",
       .outside = Tensor::scalar(1.5)},
      {.name = "Beta_extreme",
       .make = make2<Beta>,
       .params = {t({0.5, 1000.0}), t({1000.0, 0.5})},
       .value = t({1e-4, 0.9999}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::beta_distribution(p[0], p[1]), x); },
       .provenance = "Boost.Math beta_distribution pdf",
       .outside = t({0.0, 1.0}),
       .gradient_tolerance = 1e-4},

      // Uniform(low, high).
      {.name = "Uniform_batch",
       .make = make2<Uniform>,
       .params = {t({0.0, -2.0, 1e6}), t({1.0, 3.0, 1e6 + 1000})},
       .value = t({0.25, 0.5, 1e6 + 500}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::uniform(p[0], p[1]), x); },
       .provenance = "Boost.Math uniform pdf",
       .outside = Tensor::scalar(-1e9)},
      {.name = "Uniform_extreme_widths",
       .make = make2<Uniform>,
       .params = {t({-1e8, 1e-9}), t({1e8, 2e-8})},
       .value = t({5.0, 5e-9}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::uniform(p[0], p[1]), x); },
       .provenance = "Boost.Math uniform pdf",
       .outside = t({1e8, 1e-9}),
       .gradient_tolerance = 1e-4},

      // Chi2(df).
      {.name = "Chi2_batch",
       .make = make1<Chi2>,
       .params = {t({0.5, 3.0, 100.0})},
       .value = t({0.1, 2.0, 90.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::chi_squared(p[0]), x); },
       .provenance = "Boost.Math chi_squared pdf",
       .outside = Tensor::scalar(-1.0)},
      {.name = "Chi2_extreme_df",
       .make = make1<Chi2>,
       .params = {t({0.1, 1e4})},
       .value = t({1e-3, 1.01e4}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::chi_squared(p[0]), x); },
       .provenance = "Boost.Math chi_squared pdf",
       .outside = Tensor::scalar(0.0),
       .gradient_tolerance = 1e-4},

      // Weibull(concentration, scale).
      {.name = "Weibull_batch",
       .make = make2<Weibull>,
       .params = {t({0.5, 1.5, 10.0}), t({1.0, 0.3, 20.0})},
       .value = t({0.5, 0.2, 19.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::weibull(p[0], p[1]), x); },
       .provenance = "Boost.Math weibull pdf",
       .outside = Tensor::scalar(-1.0)},
      {.name = "Weibull_extreme",
       .make = make2<Weibull>,
       .params = {t({0.8, 100.0}), t({1e-8, 1e8})},
       .value = t({3e-8, 1.01e8}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::weibull(p[0], p[1]), x); },
       .provenance = "Boost.Math weibull pdf",
       .outside = Tensor::scalar(0.0),
       .gradient_tolerance = 1e-4},
      // At concentration 0.1 the moments exist but the kurtosis is about 1e11 (Gamma(41) /
      // Gamma(21)^2), so 20000 draws cannot estimate their standard errors.
      {.name = "Weibull_tiny_concentration",
       .make = make2<Weibull>,
       .params = {t({0.1}), t({2.0})},
       .value = t({1e-5, 3.0, 1e8}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::weibull(p[0], p[1]), x); },
       .provenance = "Boost.Math weibull pdf",
       .outside = Tensor::scalar(-1.0),
       .check_mean = false,
       .check_variance = false},
  };
}

class Continuous : public ::testing::TestWithParam<DistributionCase> {};
TEST_P(Continuous, Conforms) { testing::check_conformance(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Families, Continuous, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// Issue 20: Gumbel, Pareto, Truncated and GaussianRandomWalk.
// log of Boost's pdf divided by the window's mass F(high) - F(low).
double truncated_log_pdf(const auto& d, double x, double low, double high) {
  return std::log(bm::pdf(d, x)) - std::log(bm::cdf(d, high) - bm::cdf(d, low));
}

DistributionPtr truncated_normal(S p) {
  return std::make_shared<Truncated>(std::make_shared<Normal>(p[0], p[1]), p[2], p[3]);
}

// The path's log density as the sum of Boost's normal log pdfs of its increments (x_0 = 0).
Tensor random_walk_reference(const std::vector<double>& scales, const std::vector<double>& paths, int steps) {
  std::vector<double> out;
  for (std::size_t b = 0; b < scales.size(); ++b) {
    double lp = 0, previous = 0;
    for (int t = 0; t < steps; ++t) {
      const double x = paths[b * std::size_t(steps) + std::size_t(t)];
      lp += boost_log_pdf(bm::normal(0, scales[b]), x - previous);
      previous = x;
    }
    out.push_back(lp);
  }
  return Tensor::from(out, Shape{std::int64_t(scales.size())});
}

// log of the von Mises density with Boost.Math's I0 in its normalizer.
double von_mises_log_pdf(double loc, double concentration, double x) {
  return concentration * std::cos(x - loc) -
         std::log(2 * std::numbers::pi * boost::math::cyl_bessel_i(0, concentration));
}

std::vector<DistributionCase> issue20_cases() {
  return {
      // VonMises: the sample moments are circular (von_mises_stat_test.cpp), not these linear ones.
      // Concentrations on both sides of the Bessel kernels' switch from series to expansion (20).
      {.name = "VonMises_batch",
       .make = make2<VonMises>,
       .params = {t({0.0, 1.0, -2.5, 0.3}), t({0.5, 4.0, 50.0, 300.0})},
       .value = t({0.3, -3.0, -2.4, 0.25}),
       .reference = [](P p, double x) { return von_mises_log_pdf(p[0], p[1], x); },
       .provenance = "Boost.Math cyl_bessel_i(0, k) in the normalizer",
       .outside = t({3.2, -3.2, 4.0, -10.0}),
       .check_mean = false,
       .check_variance = false},
      // Gumbel(loc, scale) is Boost's extreme_value(location, scale) (the maximum's law).
      {.name = "Gumbel_batch",
       .make = make2<Gumbel>,
       .params = {t({0.0, -1.5, 3.0}), t({1.0, 0.3, 20.0})},
       .value = t({0.5, -1.0, -10.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::extreme_value(p[0], p[1]), x); },
       .provenance = "Boost.Math extreme_value pdf"},
      // Pareto(concentration, scale) is Boost's pareto(scale, shape). The variance test needs the
      // fourth moment: concentration > 4.
      {.name = "Pareto_batch",
       .make = make2<Pareto>,
       .params = {t({5.0, 6.5, 9.0}), t({1.0, 0.3, 20.0})},
       .value = t({1.5, 0.31, 25.0}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::pareto(p[1], p[0]), x); },
       .provenance = "Boost.Math pareto pdf",
       .outside = t({0.5, 0.2, 19.0})},
      {.name = "Pareto_heavy_tails",
       .make = make2<Pareto>,
       .params = {t({0.8, 1.5}), t({2.0, 1e-3})},
       .value = t({2.5, 1e4}),
       .reference = [](P p, double x) { return boost_log_pdf(bm::pareto(p[1], p[0]), x); },
       .provenance = "Boost.Math pareto pdf",
       .outside = t({1.0, 0.0}),
       .check_mean = false,
       .check_variance = false},
      // Truncated: no closed-form moments (the moment test below checks the normal's); the
      // conformance run checks the draws' support and finite log densities.
      {.name = "Truncated_Normal_two_sided",
       .make = truncated_normal,
       .params = {t({0.0, -1.5, 3.0}), t({1.0, 0.3, 2.0}), t({-1.0, -1.4, 4.0}), t({0.5, 2.0, 9.0})},
       .value = t({0.2, -1.2, 4.5}),
       .reference = [](P p, double x) { return truncated_log_pdf(bm::normal(p[0], p[1]), x, p[2], p[3]); },
       .provenance = "Boost.Math normal pdf / (cdf(high) - cdf(low))",
       .outside = t({-1.5, 2.5, 3.9}),
       .check_mean = false,
       .check_variance = false},
      {.name = "Truncated_Normal_low_only",
       .make =
           [](S p) { return std::make_shared<Truncated>(std::make_shared<Normal>(p[0], p[1]), p[2], std::nullopt); },
       .params = {t({0.0, 2.0}), t({1.0, 0.5}), t({-0.5, 2.5})},
       .value = t({0.3, 3.1}),
       .reference = [](P p, double x) { return truncated_log_pdf(bm::normal(p[0], p[1]), x, p[2], INFINITY); },
       .provenance = "Boost.Math normal pdf / (1 - cdf(low))",
       .outside = t({-0.6, 2.4}),
       .check_mean = false,
       .check_variance = false},
      {.name = "Truncated_Normal_high_only",
       .make =
           [](S p) { return std::make_shared<Truncated>(std::make_shared<Normal>(p[0], p[1]), std::nullopt, p[2]); },
       .params = {t({0.0, 2.0}), t({1.0, 0.5}), t({-0.5, 2.5})},
       .value = t({-3.0, 2.2}),
       .reference = [](P p, double x) { return truncated_log_pdf(bm::normal(p[0], p[1]), x, -INFINITY, p[2]); },
       .provenance = "Boost.Math normal pdf / cdf(high)",
       .outside = t({-0.4, 2.6}),
       .check_mean = false,
       .check_variance = false},
      {.name = "Truncated_Exponential_high_only",
       .make = [](S p) { return std::make_shared<Truncated>(std::make_shared<Exponential>(p[0]), std::nullopt, p[1]); },
       .params = {t({0.5, 3.0}), t({2.0, 0.1})},
       .value = t({1.5, 0.05}),
       .reference = [](P p, double x) { return truncated_log_pdf(bm::exponential(p[0]), x, 0.0, p[1]); },
       .provenance = "Boost.Math exponential pdf / cdf(high)",
       .outside = t({2.1, -0.01}),
       .check_mean = false,
       .check_variance = false},
      {.name = "Truncated_Gumbel_two_sided",
       .make = [](S p) { return std::make_shared<Truncated>(std::make_shared<Gumbel>(p[0], p[1]), p[2], p[3]); },
       .params = {t({0.5}), t({2.0}), t({-1.0}), t({3.0})},
       .value = t({-0.5, 0.0, 2.9}),
       .reference = [](P p, double x) { return truncated_log_pdf(bm::extreme_value(p[0], p[1]), x, p[2], p[3]); },
       .provenance = "Boost.Math extreme_value pdf / (cdf(high) - cdf(low))",
       .outside = t({-1.1, 3.1}),
       .check_mean = false,
       .check_variance = false},
      {.name = "GaussianRandomWalk_batch",
       .make = [](S p) { return std::make_shared<GaussianRandomWalk>(p[0], 3); },
       .params = {t({0.5, 2.0})},
       .value = testing::t2({0.3, -0.1, 0.4, 1.0, 3.0, -2.0}, 2, 3),
       .reference_values = random_walk_reference({0.5, 2.0}, {0.3, -0.1, 0.4, 1.0, 3.0, -2.0}, 3),
       .provenance = "sum of Boost.Math normal log pdfs of the increments"},
  };
}

class Issue20Continuous : public ::testing::TestWithParam<DistributionCase> {};
TEST_P(Issue20Continuous, Conforms) { testing::check_conformance(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Families, Issue20Continuous, ::testing::ValuesIn(issue20_cases()),
                         [](const auto& info) { return info.param.name; });

// Expects `make` to throw variate::Error whose message contains `expected`.
void expect_error(const std::function<void()>& make, const std::string& expected) {
  try {
    make();
    ADD_FAILURE() << "no error; expected \"" << expected << "\"";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(Normal, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Normal(0.0, -1.0); }, "Normal: scale must be positive");
  expect_error([] { VonMises(0.0, 0.0); }, "VonMises: concentration must be positive");
  expect_error([] { VonMises(NAN, 1.0); }, "VonMises: loc must be finite");
  EXPECT_THROW(Normal(NAN, 1.0), Error);
  EXPECT_THROW(Normal(t({0, 0, 0}), t({1, 1})), Error);  // batch shapes do not broadcast
}

TEST(Normal, CdfAndMoments) {
  const Normal n(1.0, 2.0);
  EXPECT_NEAR(n.cdf(1.0).item(), 0.5, 1e-15);
  EXPECT_NEAR(n.cdf(3.0).item(), bm::cdf(bm::normal(1.0, 2.0), 3.0), 1e-15);
  EXPECT_DOUBLE_EQ(n.variance().item(), 4.0);
}

TEST(HalfNormal, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { HalfNormal(-1.0); }, "HalfNormal: scale must be positive");
  expect_error([] { HalfNormal{INFINITY}; }, "HalfNormal: scale");
}

TEST(LogNormal, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { LogNormal(NAN, 1.0); }, "LogNormal: loc must be finite");
  expect_error([] { LogNormal(0.0, 0.0); }, "LogNormal: scale must be positive");
  expect_error([] { LogNormal(t({0, 0, 0}), t({1, 1})); }, "LogNormal");
}

TEST(StudentT, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { StudentT(0.0, 0.0, 1.0); }, "StudentT: df must be positive");
  expect_error([] { StudentT(3.0, INFINITY, 1.0); }, "StudentT: loc must be finite");
  expect_error([] { StudentT(3.0, 0.0, -1.0); }, "StudentT: scale must be positive");
}

TEST(Cauchy, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Cauchy(-INFINITY, 1.0); }, "Cauchy: loc must be finite");
  expect_error([] { Cauchy(0.0, -2.0); }, "Cauchy: scale must be positive");
}

TEST(HalfCauchy, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { HalfCauchy(NAN, 1.0); }, "HalfCauchy: loc must be finite");
  expect_error([] { HalfCauchy(0.0, 0.0); }, "HalfCauchy: scale must be positive");
}

TEST(Laplace, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Laplace(NAN, 1.0); }, "Laplace: loc must be finite");
  expect_error([] { Laplace(0.0, -1.0); }, "Laplace: scale must be positive");
}

TEST(Logistic, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Logistic(INFINITY, 1.0); }, "Logistic: loc must be finite");
  expect_error([] { Logistic(0.0, 0.0); }, "Logistic: scale must be positive");
}

TEST(Exponential, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Exponential(-2.0); }, "Exponential: rate must be positive");
  expect_error([] { Exponential(t({1.0, 0.0})); }, "Exponential: rate must be positive");
}

TEST(Gamma, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Gamma(0.0, 1.0); }, "Gamma: concentration must be positive");
  expect_error([] { Gamma(1.0, -1.0); }, "Gamma: rate must be positive");
}

TEST(InverseGamma, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { InverseGamma(-1.0, 1.0); }, "InverseGamma: concentration must be positive");
  expect_error([] { InverseGamma(1.0, 0.0); }, "InverseGamma: scale must be positive");
}

TEST(Beta, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Beta(0.0, 1.0); }, "Beta: concentration1 must be positive");
  expect_error([] { Beta(1.0, NAN); }, "Beta: concentration0 must be positive");
}

TEST(Uniform, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Uniform(NAN, 1.0); }, "Uniform: low must be finite");
  expect_error([] { Uniform(0.0, INFINITY); }, "Uniform: high must be finite");
  expect_error([] { Uniform(1.0, 1.0); }, "Uniform: low must be less than high");
  expect_error([] { Uniform(t({0.0, 2.0}), t({1.0, 1.0})); }, "Uniform: low must be less than high");
}

TEST(Chi2, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Chi2(0.0); }, "Chi2: df must be positive");
}

TEST(Weibull, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Weibull(0.0, 1.0); }, "Weibull: concentration must be positive");
  expect_error([] { Weibull(1.0, -1.0); }, "Weibull: scale must be positive");
}

// cdf at a few points against Boost, including points below the support (cdf 0).
void expect_cdf(const Distribution& d, const std::vector<double>& xs, const std::function<double(double)>& boost_cdf) {
  for (double x : xs) EXPECT_NEAR(d.cdf(x).item(), boost_cdf(x), 1e-14) << d.name() << " cdf at " << x;
}

TEST(HalfNormal, Cdf) {
  expect_cdf(HalfNormal(2.0), {0.1, 1.0, 3.0, 10.0}, [](double x) { return 2 * bm::cdf(bm::normal(0, 2.0), x) - 1; });
  EXPECT_EQ(HalfNormal(2.0).cdf(-1.0).item(), 0.0);
}

TEST(LogNormal, Cdf) {
  expect_cdf(LogNormal(0.5, 0.7), {0.1, 1.0, 3.0, 30.0}, [](double x) { return bm::cdf(bm::lognormal(0.5, 0.7), x); });
  EXPECT_EQ(LogNormal(0.5, 0.7).cdf(0.0).item(), 0.0);
  EXPECT_EQ(LogNormal(0.5, 0.7).cdf(-1.0).item(), 0.0);
}

TEST(Laplace, Cdf) {
  expect_cdf(Laplace(1.0, 2.0), {-10.0, 0.0, 1.0, 2.5, 20.0},
             [](double x) { return bm::cdf(bm::laplace(1.0, 2.0), x); });
}

TEST(Logistic, Cdf) {
  expect_cdf(Logistic(1.0, 2.0), {-10.0, 0.0, 1.0, 2.5, 20.0},
             [](double x) { return bm::cdf(bm::logistic(1.0, 2.0), x); });
}

TEST(Exponential, Cdf) {
  expect_cdf(Exponential(3.0), {1e-10, 0.1, 1.0, 5.0}, [](double x) { return bm::cdf(bm::exponential(3.0), x); });
  EXPECT_EQ(Exponential(3.0).cdf(-1.0).item(), 0.0);
}

TEST(Uniform, Cdf) {
  expect_cdf(Uniform(-1.0, 3.0), {-0.5, 0.0, 2.9}, [](double x) { return bm::cdf(bm::uniform(-1.0, 3.0), x); });
  EXPECT_EQ(Uniform(-1.0, 3.0).cdf(-5.0).item(), 0.0);
  EXPECT_EQ(Uniform(-1.0, 3.0).cdf(5.0).item(), 1.0);
}

TEST(Weibull, Cdf) {
  expect_cdf(Weibull(1.5, 2.0), {0.01, 1.0, 2.0, 8.0}, [](double x) { return bm::cdf(bm::weibull(1.5, 2.0), x); });
  EXPECT_EQ(Weibull(1.5, 2.0).cdf(-1.0).item(), 0.0);
}

// cdf at points across the support against Boost, to a relative error of `rel`: these cdfs go
// through atan or the incomplete gamma and beta functions and keep their accuracy in the tails.
void expect_cdf_relative(const Distribution& d, const std::vector<double>& xs,
                         const std::function<double(double)>& boost_cdf, double rel = 1e-12) {
  for (double x : xs) {
    const double want = boost_cdf(x);
    EXPECT_NEAR(d.cdf(x).item(), want, rel * want) << d.name() << " cdf at " << x;
  }
}

TEST(Cauchy, Cdf) {
  // Far in the left tail too, where 1/2 + atan(z) / pi would cancel.
  expect_cdf_relative(
      Cauchy(1.0, 2.0), {-1e12, -1e6, -30.0, -1.0, 0.0, 1.0, 2.5, 40.0, 1e8},
      [](double x) { return bm::cdf(bm::cauchy(1.0, 2.0), x); }, 1e-14);
  EXPECT_EQ(Cauchy(1.0, 2.0).cdf(-INFINITY).item(), 0.0);
  EXPECT_EQ(Cauchy(1.0, 2.0).cdf(INFINITY).item(), 1.0);
}

TEST(HalfCauchy, Cdf) {
  // The law of loc + |X| for X ~ Cauchy(0, scale): 2 F(x - loc) - 1 with F Boost's Cauchy cdf.
  expect_cdf(HalfCauchy(1.0, 2.0), {1.0 + 1e-9, 1.5, 3.0, 100.0},
             [](double x) { return 2 * bm::cdf(bm::cauchy(0.0, 2.0), x - 1.0) - 1; });
  EXPECT_EQ(HalfCauchy(1.0, 2.0).cdf(0.5).item(), 0.0);
  EXPECT_EQ(HalfCauchy(1.0, 2.0).cdf(INFINITY).item(), 1.0);
}

TEST(StudentT, Cdf) {
  // z = (x - 1) / 2 from deep in the left tail to the right. For df = 1e6 the tails lose about
  // eps * df / 10 to the rounding of df / (df + z^2) (see StudentT::cdf), hence the looser tolerance.
  for (double df : {0.5, 3.0, 30.0, 1000.0, 1e6}) {
    expect_cdf_relative(
        StudentT(df, 1.0, 2.0), {-1e4, -40.0, -9.0, -1.0, 0.999, 1.0, 1.5, 7.0, 81.0},
        [df](double x) { return bm::cdf(bm::students_t(df), (x - 1.0) / 2.0); }, df > 1000 ? 1e-10 : 1e-12);
    EXPECT_EQ(StudentT(df, 1.0, 2.0).cdf(-INFINITY).item(), 0.0);
    EXPECT_EQ(StudentT(df, 1.0, 2.0).cdf(INFINITY).item(), 1.0);
  }
}

TEST(Gamma, Cdf) {
  // Boost's gamma_distribution takes (shape, scale = 1 / rate).
  for (double a : {0.01, 0.5, 3.0, 250.0})
    expect_cdf_relative(Gamma(a, 2.0), {1e-8, 0.01, 0.3, 1.5, 60.0, 125.0, 300.0},
                        [a](double x) { return bm::cdf(bm::gamma_distribution<>(a, 0.5), x); });
  EXPECT_EQ(Gamma(3.0, 2.0).cdf(0.0).item(), 0.0);
  EXPECT_EQ(Gamma(3.0, 2.0).cdf(-1.0).item(), 0.0);
  EXPECT_EQ(Gamma(3.0, 2.0).cdf(INFINITY).item(), 1.0);
}

TEST(Chi2, Cdf) {
  for (double df : {0.3, 4.0, 150.0})
    expect_cdf_relative(Chi2(df), {1e-6, 0.5, 3.0, 100.0, 400.0},
                        [df](double x) { return bm::cdf(bm::chi_squared(df), x); });
  EXPECT_EQ(Chi2(4.0).cdf(-1.0).item(), 0.0);
}

TEST(InverseGamma, Cdf) {
  for (double a : {0.05, 2.5, 80.0})
    expect_cdf_relative(InverseGamma(a, 2.0), {0.01, 0.3, 1.0, 8.0, 1e4},
                        [a](double x) { return bm::cdf(bm::inverse_gamma_distribution<>(a, 2.0), x); });
  EXPECT_EQ(InverseGamma(2.5, 2.0).cdf(0.0).item(), 0.0);
  EXPECT_EQ(InverseGamma(2.5, 2.0).cdf(-1.0).item(), 0.0);
  EXPECT_EQ(InverseGamma(2.5, 2.0).cdf(INFINITY).item(), 1.0);
}

TEST(Beta, Cdf) {
  const std::vector<std::pair<double, double>> params = {{0.5, 0.5}, {2.0, 3.0}, {0.01, 40.5}, {300.5, 20.5}};
  for (const auto& [a, b] : params)
    expect_cdf_relative(Beta(a, b), {1e-10, 0.01, 0.3, 0.5, 0.9, 0.999999},
                        [a, b](double x) { return bm::cdf(bm::beta_distribution<>(a, b), x); });
  EXPECT_EQ(Beta(2.0, 3.0).cdf(0.0).item(), 0.0);
  EXPECT_EQ(Beta(2.0, 3.0).cdf(1.5).item(), 1.0);
}

// The derivative of a cdf in x is the density, and the cdfs are differentiable in their location,
// scale and rate parameters and in the gamma family's shape parameters; a gradient with respect to
// an argument of the incomplete beta function other than x throws.
TEST(Continuous, CdfGradients) {
  const std::vector<std::pair<DistributionPtr, double>> at = {
      {std::make_shared<Cauchy>(1.0, 2.0), -30.0},
      {std::make_shared<Cauchy>(1.0, 2.0), 0.5},
      {std::make_shared<HalfCauchy>(1.0, 2.0), 3.0},
      {std::make_shared<StudentT>(3.5, 1.0, 2.0), -4.0},
      {std::make_shared<StudentT>(3.5, 1.0, 2.0), 1.5},
      {std::make_shared<Gamma>(2.5, 2.0), 1.1},
      {std::make_shared<Chi2>(3.0), 2.0},
      {std::make_shared<InverseGamma>(2.5, 2.0), 0.7},
      {std::make_shared<Beta>(0.7, 2.5), 0.2},
  };
  for (const auto& [d, x] : at) {
    const Tensor g = grad([&](const Tensor& v) { return sum(d->cdf(v)); }, Tensor::scalar(x));
    const double density = std::exp(d->log_prob(x).item());
    EXPECT_NEAR(g.item(), density, 1e-13 * density) << d->name() << " at " << x;
  }
  const Tensor loc = t({1.0}), scale = t({2.0}), rate = t({2.0});
  testing::expect_ad([](S v) { return Cauchy(v[0], v[1]).cdf(v[2]); }, {loc, scale, t({-30.0, 0.5})});
  testing::expect_ad([](S v) { return HalfCauchy(v[0], v[1]).cdf(v[2]); }, {loc, scale, t({1.5, 4.0})});
  testing::expect_ad([](S v) { return StudentT(3.5, v[0], v[1]).cdf(v[2]); }, {loc, scale, t({-4.0, 1.5})});
  testing::expect_ad([](S v) { return Gamma(2.5, v[0]).cdf(v[1]); }, {rate, t({0.3, 1.1})});
  testing::expect_ad([](S v) { return InverseGamma(2.5, v[0]).cdf(v[1]); }, {scale, t({0.3, 1.1})});
  auto cdf_grad = [](const std::function<Tensor(const Tensor&)>& cdf_of) {
    return [cdf_of] { grad([&](const Tensor& p) { return sum(cdf_of(p)); }, Tensor::scalar(2.5)); };
  };
  testing::expect_ad([](S v) { return Gamma(v[0], 2.0).cdf(t({0.3, 1.1, 6.0})); }, {t({2.5})});
  testing::expect_ad([](S v) { return Chi2(v[0]).cdf(t({0.5, 2.0, 9.0})); }, {t({3.0})});
  testing::expect_ad([](S v) { return InverseGamma(v[0], 2.0).cdf(t({0.3, 0.7, 4.0})); }, {t({2.5})});
  expect_error(cdf_grad([](const Tensor& a) { return Beta(a, 2.0).cdf(0.3); }),
               "betainc: the derivative with respect to a is not implemented");
  expect_error(cdf_grad([](const Tensor& b) { return Beta(2.0, b).cdf(0.3); }),
               "betainc: the derivative with respect to b is not implemented");
  expect_error(cdf_grad([](const Tensor& df) { return StudentT(df, 0.0, 1.0).cdf(0.3); }),
               "betainc: the derivative with respect to");
}

TEST(Continuous, MomentsThatDoNotExist) {
  expect_error([] { Cauchy(0.0, 1.0).mean(); }, "Cauchy: the mean does not exist");
  expect_error([] { HalfCauchy(0.0, 1.0).variance(); }, "HalfCauchy: the variance does not exist");
  // TFP's conventions for moments that exist only for some parameters: NaN, or +inf for a
  // StudentT variance with 1 < df <= 2.
  const StudentT st(t({0.5, 1.5, 3.0}), 2.0, 1.0);
  EXPECT_TRUE(std::isnan(st.mean().at(0)));
  EXPECT_EQ(st.mean().at(1), 2.0);
  EXPECT_TRUE(std::isnan(st.variance().at(0)));
  EXPECT_EQ(st.variance().at(1), INFINITY);
  EXPECT_DOUBLE_EQ(st.variance().at(2), 3.0);
  const InverseGamma ig(t({0.5, 1.5, 3.0}), 2.0);
  EXPECT_TRUE(std::isnan(ig.mean().at(0)));
  EXPECT_DOUBLE_EQ(ig.mean().at(1), 4.0);
  EXPECT_TRUE(std::isnan(ig.variance().at(1)));
  EXPECT_DOUBLE_EQ(ig.variance().at(2), 1.0);  // 2^2 / ((3 - 1)^2 (3 - 2))
}

// One distribution of each family, built from f64 or f32 parameters, with a point inside and a
// point outside its support.
struct FamilyAt {
  std::function<DistributionPtr(DType)> make;
  double inside, outside;
};

std::vector<FamilyAt> families() {
  auto c = [](double v, DType d) { return Tensor::scalar(v, d); };
  return {
      {[=](DType d) { return std::make_shared<HalfNormal>(c(1.5, d)); }, 0.7, -0.5},
      {[=](DType d) { return std::make_shared<LogNormal>(c(0.2, d), c(0.8, d)); }, 1.3, -0.5},
      {[=](DType d) { return std::make_shared<StudentT>(c(3.5, d), c(0.2, d), c(0.8, d)); }, 1.3, INFINITY},
      {[=](DType d) { return std::make_shared<Cauchy>(c(0.2, d), c(0.8, d)); }, 1.3, -INFINITY},
      {[=](DType d) { return std::make_shared<HalfCauchy>(c(0.2, d), c(0.8, d)); }, 1.3, 0.1},
      {[=](DType d) { return std::make_shared<Laplace>(c(0.2, d), c(0.8, d)); }, 1.3, INFINITY},
      {[=](DType d) { return std::make_shared<Logistic>(c(0.2, d), c(0.8, d)); }, 1.3, -INFINITY},
      {[=](DType d) { return std::make_shared<Exponential>(c(2.5, d)); }, 0.4, 0.0},
      {[=](DType d) { return std::make_shared<Gamma>(c(0.7, d), c(2.5, d)); }, 0.4, 0.0},
      {[=](DType d) { return std::make_shared<InverseGamma>(c(0.7, d), c(2.5, d)); }, 0.4, 0.0},
      {[=](DType d) { return std::make_shared<Beta>(c(0.7, d), c(2.5, d)); }, 0.4, 1.0},
      {[=](DType d) { return std::make_shared<Uniform>(c(-0.7, d), c(2.5, d)); }, 0.4, 2.5},
      {[=](DType d) { return std::make_shared<Chi2>(c(0.7, d)); }, 0.4, 0.0},
      {[=](DType d) { return std::make_shared<Weibull>(c(0.7, d), c(2.5, d)); }, 0.4, 0.0},
  };
}

TEST(Continuous, Float32ParametersGiveFloat32ValuesAndDensities) {
  for (const FamilyAt& f : families()) {
    const DistributionPtr d64 = f.make(DType::f64), d32 = f.make(DType::f32);
    SCOPED_TRACE(d32->name());
    EXPECT_EQ(d32->dtype(), DType::f32);
    const Tensor lp32 = d32->log_prob(Tensor::scalar(f.inside, DType::f32));
    EXPECT_EQ(lp32.dtype(), DType::f32);
    const double lp64 = d64->log_prob(f.inside).item();
    EXPECT_NEAR(lp32.item(), lp64, 1e-5 * (1 + std::abs(lp64)));
    const Tensor draws = d32->sample(random::Key(3), Shape{1000});
    EXPECT_EQ(draws.dtype(), DType::f32);
    const Tensor lp = d32->log_prob(draws);
    const Tensor finite = prim::binary(BinaryOp::lt, prim::unary(UnaryOp::abs, lp), INFINITY);
    EXPECT_EQ(prim::sum(finite).item(), 1000.0) << "non-finite f32 log density at a draw";
  }
}

// Outside the support the density is -inf and its gradient is 0, never NaN: the mask routes a
// zero cotangent there, which must not meet an infinite partial.
TEST(Continuous, OutsideTheSupportLogProbIsMinusInfinityWithFiniteGradients) {
  for (const FamilyAt& f : families()) {
    const DistributionPtr d = f.make(DType::f64);
    SCOPED_TRACE(d->name());
    const Tensor x = t({f.inside, f.outside});
    EXPECT_EQ(d->log_prob(x).at(1), -INFINITY);
    // Infinity is outside every support here, (0, inf) included: Gamma's (a - 1) log(x) - b x
    // would be inf - inf there.
    EXPECT_EQ(d->log_prob(INFINITY).item(), -INFINITY);
    EXPECT_EQ(d->log_prob(-INFINITY).item(), -INFINITY);
    // NaN is not outside: it keeps a NaN density, so a NaN that reaches a model is not hidden.
    EXPECT_TRUE(std::isnan(d->log_prob(NAN).item()));
    // Differentiate the in-support element only (the sum would be -inf); the outside element
    // shares the tape node and receives a zero cotangent.
    const auto [value, grads] =
        value_and_grad([&](const Tensor& xs) { return sum(slice(d->log_prob(xs), 0, 0, 1)); }, x);
    EXPECT_TRUE(std::isfinite(value.item()));
    EXPECT_TRUE(std::isfinite(grads[0].at(0)));
    EXPECT_EQ(grads[0].at(1), 0.0);
  }
}

// Reparameterized samplers pass gradients to their parameters: for a scale family,
// d sum(x) / d scale = sum(x - loc) / scale.
TEST(Continuous, ReparameterizedSamplesAreDifferentiableInTheScale) {
  const random::Key key(11);
  const Shape n{50};
  auto check = [&](const char* name, double loc, const std::function<DistributionPtr(const Tensor&)>& make) {
    SCOPED_TRACE(name);
    const Tensor scale = Tensor::scalar(1.7);
    const auto [total, grads] = value_and_grad([&](const Tensor& s) { return sum(make(s)->sample(key, n)); }, scale);
    EXPECT_NEAR(grads[0].item(), (total.item() - 50 * loc) / 1.7, 1e-9 * (1 + std::abs(total.item())));
  };
  using std::make_shared;
  check("HalfNormal", 0.0, [](const Tensor& s) { return make_shared<HalfNormal>(s); });
  check("LogNormal", 0.0, [](const Tensor& s) { return make_shared<LogNormal>(log(s), 0.5); });
  check("StudentT", 0.5, [](const Tensor& s) { return make_shared<StudentT>(4.0, 0.5, s); });
  check("Cauchy", 0.5, [](const Tensor& s) { return make_shared<Cauchy>(0.5, s); });
  check("HalfCauchy", 0.5, [](const Tensor& s) { return make_shared<HalfCauchy>(0.5, s); });
  check("Laplace", 0.5, [](const Tensor& s) { return make_shared<Laplace>(0.5, s); });
  check("Logistic", 0.5, [](const Tensor& s) { return make_shared<Logistic>(0.5, s); });
  check("Exponential", 0.0, [](const Tensor& s) { return make_shared<Exponential>(1 / s); });
  check("Gamma", 0.0, [](const Tensor& s) { return make_shared<Gamma>(2.0, 1 / s); });
  check("InverseGamma", 0.0, [](const Tensor& s) { return make_shared<InverseGamma>(2.0, s); });
  check("Uniform", 0.0, [](const Tensor& s) { return make_shared<Uniform>(0.0, s); });
  check("Weibull", 0.0, [](const Tensor& s) { return make_shared<Weibull>(2.0, s); });
}

}  // namespace
}  // namespace variate
