// Conformance rows for the multivariate families (MultivariateNormal, Dirichlet, LKJCholesky) and
// the checks their event structure needs. References are computed here, independently of the
// library: the normal log density through a hand-written Cholesky factorization and forward
// substitution; two-component Dirichlets and two-dimensional LKJ factors through Boost.Math 1.74's
// beta pdf; larger Dirichlets through the closed form with std::lgamma; LKJ normalizers through
// Lewandowski, Kurowicka & Joe (2009), eq. 16, taken literally, and for d = 3, eta = 1 through the
// volume pi^2 / 2 of the 3 x 3 correlation matrices.
#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <cmath>
#include <numbers>
#include <string>

#include "support/ad_check.hpp"
#include "support/conformance.hpp"
#include "support/matrices.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/dirichlet.hpp"
#include "variate/distributions/lkj_cholesky.hpp"
#include "variate/distributions/multivariate_normal.hpp"
#include "variate/random/key.hpp"

namespace variate {
using namespace dist;  // the families under test
namespace {

using testing::DistributionCase;
using testing::t;
using testing::t2;
using S = std::span<const Tensor>;

Tensor t3(std::initializer_list<double> values, std::int64_t a, std::int64_t b, std::int64_t c) {
  return Tensor::vec(values).view(Shape{a, b, c});
}

using testing::normal_log_density;

// Row `r` of a tensor viewed as rows of `k`, broadcasting a single row.
std::vector<double> row(const Tensor& x, std::int64_t r, std::int64_t k) {
  const std::int64_t rows = x.numel() / k;
  std::vector<double> v(static_cast<std::size_t>(k));
  for (std::int64_t j = 0; j < k; ++j) v[std::size_t(j)] = x.at((r % rows) * k + j);
  return v;
}

using testing::corr_cholesky_from;
using testing::lower_mask;
using testing::times_transpose;

// Literal LKJ (2009) eq. 16: log c_d(eta) = sum_{k=1}^{d-1} [(2 eta - 2 + d - k)(d - k) log 2
// + (d - k) log B(b_k, b_k)], b_k = eta + (d - k - 1) / 2.
double lkj_log_normalizer_eq16(std::int64_t d, double eta) {
  double total = 0;
  for (std::int64_t k = 1; k < d; ++k) {
    const double b = eta + double(d - k - 1) / 2;
    const double log_beta = 2 * std::lgamma(b) - std::lgamma(2 * b);
    total += (2 * eta - 2 + double(d - k)) * double(d - k) * std::log(2.0) + double(d - k) * log_beta;
  }
  return total;
}

// sum_{i=2}^{d} (d - i + 2 eta - 2) log L_ii (Stan's unnormalized LKJ Cholesky density).
double lkj_unnormalized(const Tensor& l, std::int64_t d, double eta) {
  double total = 0;
  for (std::int64_t i = 2; i <= d; ++i) total += (double(d - i) + 2 * eta - 2) * std::log(l.at((i - 1) * d + (i - 1)));
  return total;
}

std::vector<DistributionCase> cases() {
  // MultivariateNormal from a full covariance, two values against one distribution.
  const Tensor loc = t({1, -2, 0.5});
  const Tensor cov = t2({4, 1.2, -0.6, 1.2, 2, 0.3, -0.6, 0.3, 1.5}, 3, 3);
  const Tensor points = t2({0.3, -1, 2, 1, -2, 0.5}, 2, 3);
  Tensor full_ref = Tensor::zeros(Shape{2});
  for (std::int64_t r = 0; r < 2; ++r)
    full_ref.data<double>()[r] = normal_log_density(row(points, r, 3), row(loc, 0, 3), row(cov, 0, 9));

  // A batch of two scale_tril factors, one value broadcast against both.
  const Tensor locs = t2({0, 1, -1, 0.5}, 2, 2);
  const Tensor trils = t3({2, 0, 0.5, 1, 0.3, 0, -0.2, 0.7}, 2, 2, 2);
  const Tensor point = t({0.1, -0.4});
  Tensor tril_ref = Tensor::zeros(Shape{2});
  for (std::int64_t b = 0; b < 2; ++b)
    tril_ref.data<double>()[b] =
        normal_log_density(row(point, 0, 2), row(locs, b, 2), times_transpose(row(trils, b, 4), 2));

  // Diagonal scales six orders of magnitude apart: a sum of univariate normal log densities.
  const Tensor diag_loc = t({0, 1e3}), diag_scale = t({1e-3, 1e3}), diag_point = t({1e-3, 0});
  double diag_ref = 0;
  for (std::int64_t i = 0; i < 2; ++i) {
    const double zi = (diag_point.at(i) - diag_loc.at(i)) / diag_scale.at(i);
    diag_ref += -0.5 * zi * zi - std::log(diag_scale.at(i)) - 0.5 * std::log(2 * std::numbers::pi);
  }

  // Dirichlet with K = 2 is a beta on the first component.
  const Tensor beta_alpha = t2({2, 3, 0.5, 0.5}, 2, 2), beta_x = t2({0.3, 0.7, 0.1, 0.9}, 2, 2);
  Tensor beta_ref = Tensor::zeros(Shape{2});
  for (std::int64_t r = 0; r < 2; ++r)
    beta_ref.data<double>()[r] = std::log(boost::math::pdf(
        boost::math::beta_distribution<>(beta_alpha.at(2 * r), beta_alpha.at(2 * r + 1)), beta_x.at(2 * r)));

  auto dirichlet_closed_form = [](const Tensor& alpha, const Tensor& x) {
    double lp = 0, total = 0;
    for (std::int64_t k = 0; k < alpha.numel(); ++k) {
      lp += (alpha.at(k) - 1) * std::log(x.at(k)) - std::lgamma(alpha.at(k));
      total += alpha.at(k);
    }
    return Tensor::scalar(lp + std::lgamma(total));
  };
  const Tensor alpha4 = t({0.3, 1, 2.5, 10}), x4 = t({0.05, 0.15, 0.2, 0.6});
  const Tensor small_alpha = t({0.1, 0.1, 0.1}), small_x = t({1e-8, 0.3, 0.7 - 1e-8});

  // LKJ with d = 2: r = L_10 has density Beta(eta, eta) on (r + 1) / 2, times 1/2.
  const double r = 0.3;
  const Tensor l2 = t2({1, 0, r, std::sqrt(1 - r * r)}, 2, 2);
  const Tensor etas = t({0.5, 1, 3});
  Tensor lkj2_ref = Tensor::zeros(Shape{3});
  for (std::int64_t i = 0; i < 3; ++i)
    lkj2_ref.data<double>()[i] =
        std::log(boost::math::pdf(boost::math::beta_distribution<>(etas.at(i), etas.at(i)), (r + 1) / 2)) -
        std::log(2.0);

  // LKJ with d = 3, eta = 1: uniform over correlation matrices, volume pi^2 / 2, and the Jacobian
  // L_11^(d - 2) of Omega -> L.
  const Tensor l3 = corr_cholesky_from(t({0.4, -0.9, 0.2}), 3);
  const double lkj3_ref = std::log(l3.at(4)) - std::log(std::numbers::pi * std::numbers::pi / 2);

  // LKJ with d = 4, eta = 2.5, against eq. 16.
  const Tensor l4 = corr_cholesky_from(t({0.4, -0.9, 0.2, 1.1, -0.3, 0.05}), 4);
  const double lkj4_ref = lkj_unnormalized(l4, 4, 2.5) - lkj_log_normalizer_eq16(4, 2.5);

  return {
      {.name = "MultivariateNormal_full_covariance",
       // Symmetrized inside, so that the gradient check may move one entry of the matrix.
       .make =
           [](S p) {
             return std::make_shared<MultivariateNormal>(
                 MultivariateNormal::from_covariance(p[0], 0.5 * (p[1] + transpose(p[1]))));
           },
       .params = {loc, cov},
       .value = points,
       .reference_values = full_ref,
       .provenance = "hand-written Cholesky and forward substitution",
       .outside = t({INFINITY, 0, 0})},
      {.name = "MultivariateNormal_scale_tril_batch",
       // The mask keeps the upper triangle at zero when the gradient check moves it.
       .make =
           [](S p) {
             return std::make_shared<MultivariateNormal>(
                 MultivariateNormal::from_scale_tril(p[0], p[1] * lower_mask(2)));
           },
       .params = {locs, trils},
       .value = point,
       .reference_values = tril_ref,
       .provenance = "hand-written Cholesky of L L^T and forward substitution",
       .outside = t({0, -INFINITY})},
      {.name = "MultivariateNormal_scale_diag_extreme",
       .make =
           [](S p) { return std::make_shared<MultivariateNormal>(MultivariateNormal::from_scale_diag(p[0], p[1])); },
       .params = {diag_loc, diag_scale},
       .value = diag_point,
       .reference_values = Tensor::scalar(diag_ref),
       .provenance = "closed form: sum of univariate normal log densities",
       .gradient_tolerance = 1e-4},
      {.name = "Dirichlet_two_components",
       .make = [](S p) { return std::make_shared<Dirichlet>(p[0]); },
       .params = {beta_alpha},
       .value = beta_x,
       .reference_values = beta_ref,
       .provenance = "Boost.Math beta pdf of the first component",
       .outside = t2({0.3, 0.8, -0.1, 1.1}, 2, 2)},
      {.name = "Dirichlet_four_components",
       .make = [](S p) { return std::make_shared<Dirichlet>(p[0]); },
       .params = {alpha4},
       .value = x4,
       .reference_values = dirichlet_closed_form(alpha4, x4),
       .provenance = "closed form with std::lgamma",
       .outside = t({0.05, 0.15, 0.2, NAN})},
      {.name = "Dirichlet_small_concentrations",
       .make = [](S p) { return std::make_shared<Dirichlet>(p[0]); },
       .params = {small_alpha},
       .value = small_x,
       .reference_values = dirichlet_closed_form(small_alpha, small_x),
       .provenance = "closed form with std::lgamma"},
      // L is not differentiable entry by entry inside the support (rows must keep unit length), so
      // its gradient is checked through a parameterization in LKJCholesky.ValueGradient.
      {.name = "LKJCholesky_two_dims_beta",
       .make = [](S p) { return std::make_shared<LKJCholesky>(2, p[0]); },
       .params = {etas},
       .value = l2,
       .reference_values = lkj2_ref,
       .provenance = "Boost.Math beta(eta, eta) pdf at (r + 1) / 2, over 2",
       .outside = t2({1, 0, 0.5, 0.5}, 2, 2),
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false},
      {.name = "LKJCholesky_three_dims_uniform",
       .make = [](S p) { return std::make_shared<LKJCholesky>(3, p[0]); },
       .params = {Tensor::scalar(1.0)},
       .value = l3,
       .reference_values = Tensor::scalar(lkj3_ref),
       .provenance = "volume pi^2 / 2 of 3 x 3 correlation matrices, Jacobian L_11",
       .outside = t2({1, 0, 0, 0.5, 0.5, 0, 0, 0, 1}, 3, 3),
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false},
      {.name = "LKJCholesky_four_dims",
       .make = [](S p) { return std::make_shared<LKJCholesky>(4, p[0]); },
       .params = {Tensor::scalar(2.5)},
       .value = l4,
       .reference_values = Tensor::scalar(lkj4_ref),
       .provenance = "LKJ 2009 eq. 16 normalizer, Stan's unnormalized density",
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false},
  };
}

class Multivariate : public ::testing::TestWithParam<DistributionCase> {};
TEST_P(Multivariate, Conforms) { testing::check_conformance(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Families, Multivariate, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

template <class Make>
void expect_error(Make make, const std::string& expected) {
  try {
    make();
    ADD_FAILURE() << "no error; expected \"" << expected << "\"";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(MultivariateFamilies, InvalidParametersNameTheFamilyAndTheParameter) {
  const Tensor loc = t({0, 0});
  expect_error(
      [&] {
        MultivariateNormal::from_covariance(loc, t2({1, 2, 2, 1}, 2, 2));
      },
      "MultivariateNormal: covariance_matrix must be positive definite");
  expect_error(
      [&] {
        MultivariateNormal::from_covariance(loc, t2({1, 0.5, 0.4, 1}, 2, 2));
      },
      "MultivariateNormal: covariance_matrix must be symmetric");
  expect_error(
      [&] {
        MultivariateNormal::from_covariance(loc, t2({1, 0, 0, NAN}, 2, 2));
      },
      "MultivariateNormal: covariance_matrix must be finite");
  expect_error(
      [&] {
        MultivariateNormal::from_covariance(t({0, 0, 0}), t2({1, 0, 0, 1}, 2, 2));
      },
      "MultivariateNormal: covariance_matrix of shape [2, 2] does not match loc");
  expect_error(
      [&] {
        MultivariateNormal::from_scale_tril(loc, t2({1, 0.5, 0, 1}, 2, 2));
      },
      "MultivariateNormal: scale_tril must be lower triangular with a positive diagonal");
  expect_error(
      [&] {
        MultivariateNormal::from_scale_tril(loc, t2({1, 0, 0.5, -1}, 2, 2));
      },
      "MultivariateNormal: scale_tril must be lower triangular with a positive diagonal");
  expect_error(
      [&] {
        MultivariateNormal::from_scale_diag(loc, t({1, 0}));
      },
      "MultivariateNormal: scale_diag must be positive");
  expect_error([&] { MultivariateNormal::from_scale_diag(Tensor::scalar(0.0), t({1})); }, "MultivariateNormal: loc");
  expect_error(
      [&] {
        MultivariateNormal::from_scale_diag(t2({0, 0, 0, 0, 0, 0}, 3, 2), t2({1, 1, 1, 1}, 2, 2));
      },
      "MultivariateNormal");
  expect_error(
      [&] {
        MultivariateNormal::from_scale_diag(loc, t({1, 1})).log_prob(t({1, 2, 3}));
      },
      "MultivariateNormal: value must have shape (..., 2)");
  expect_error([] { Dirichlet(t({1, 0})); }, "Dirichlet: concentration must be positive");
  expect_error([] { Dirichlet(Tensor::scalar(1.0)); }, "Dirichlet: concentration must have shape (..., K)");
  expect_error([] { LKJCholesky(1, 1.0); }, "LKJCholesky: dimension must be at least 2");
  expect_error([] { LKJCholesky(3, -1.0); }, "LKJCholesky: concentration must be positive");
  expect_error([] { LKJCholesky(3, 1.0).log_prob(Tensor::zeros(Shape{2, 2})); }, "LKJCholesky: value must have shape");
}

// A covariance that is positive semi-definite but singular is rejected too.
TEST(MultivariateFamilies, SingularCovarianceIsReported) {
  expect_error(
      [] {
        MultivariateNormal::from_covariance(t({0, 0}), t2({1, 1, 1, 1}, 2, 2));
      },
      "MultivariateNormal: covariance_matrix must be positive definite");
}

TEST(MultivariateFamilies, ShapesBroadcastAndSamplesAreReparameterized) {
  const auto mvn = MultivariateNormal::from_scale_diag(t2({0, 0, 1, 1, 2, 2}, 3, 2), t({1, 2}));
  EXPECT_EQ(mvn.batch_shape(), (Shape{3}));
  EXPECT_EQ(mvn.event_shape(), (Shape{2}));
  EXPECT_EQ(mvn.sample(random::Key(2), Shape{5}).shape(), (Shape{5, 3, 2}));
  EXPECT_EQ(mvn.log_prob(Tensor::zeros(Shape{4, 1, 2})).shape(), (Shape{4, 3}));
  // d sum(loc + L eps) / d loc = the number of draws per component.
  const auto g = value_and_grad(
      [](const Tensor& loc) {
        return sum(MultivariateNormal::from_scale_diag(loc, t({1, 2})).sample(random::Key(9), Shape{7}));
      },
      t({0.5, -0.5}));
  EXPECT_DOUBLE_EQ(g.grads[0].at(0), 7.0);
  EXPECT_DOUBLE_EQ(g.grads[0].at(1), 7.0);
  // f32 parameters keep f32.
  const auto f32 =
      MultivariateNormal::from_scale_diag(Tensor::zeros(Shape{2}, DType::f32), Tensor::ones(Shape{2}, DType::f32));
  EXPECT_EQ(f32.sample(random::Key(1)).dtype(), DType::f32);
  EXPECT_EQ(f32.log_prob(t({0, 0})).dtype(), DType::f32);
  EXPECT_NEAR(f32.log_prob(t({0, 0})).item(), -std::log(2 * std::numbers::pi), 1e-6);
  const LKJCholesky lkj(4, t({1, 2}));
  EXPECT_EQ(lkj.sample(random::Key(3), Shape{5}).shape(), (Shape{5, 2, 4, 4}));
  EXPECT_EQ(Dirichlet(Tensor::ones(Shape{3, 4})).sample(random::Key(3), Shape{2}).shape(), (Shape{2, 3, 4}));
}

// Values off the support get -inf, and the gradient of a sum that contains them is that of the
// in-support terms alone.
TEST(MultivariateFamilies, MaskedValuesLeaveFiniteGradients) {
  const Tensor x = t2({0.2, 0.8, -0.2, 1.2}, 2, 2);
  const auto all = value_and_grad([&](const Tensor& a) { return sum(Dirichlet(a).log_prob(x)); }, t({2.0, 3.0}));
  const auto inside =
      value_and_grad([&](const Tensor& a) { return sum(Dirichlet(a).log_prob(slice(x, 0, 0, 1))); }, t({2.0, 3.0}));
  EXPECT_EQ(all.value.item(), -INFINITY);
  for (std::int64_t i = 0; i < 2; ++i) EXPECT_DOUBLE_EQ(all.grads[0].at(i), inside.grads[0].at(i));

  const Tensor l = t3({1, 0, 0.6, 0.8, 1, 0, 0.9, 0.9}, 2, 2, 2);  // the second is not a correlation factor
  const auto lkj =
      value_and_grad([&](const Tensor& eta) { return sum(LKJCholesky(2, eta).log_prob(l)); }, Tensor::scalar(2.0));
  EXPECT_EQ(lkj.value.item(), -INFINITY);
  EXPECT_TRUE(std::isfinite(lkj.grads[0].item()));

  const auto mvn = value_and_grad(
      [](const Tensor& loc) {
        return sum(MultivariateNormal::from_scale_diag(loc, t({1, 1})).log_prob(t2({1, INFINITY, 0, 0}, 2, 2)));
      },
      t({0.0, 0.0}));
  EXPECT_EQ(mvn.value.item(), -INFINITY);
  EXPECT_EQ(mvn.grads[0].at(0), 0.0);
  EXPECT_EQ(mvn.grads[0].at(1), 0.0);
}

TEST(LKJCholesky, NormalizerMatchesEquation16) {
  for (std::int64_t d : {2, 3, 5, 10})
    for (double eta : {0.1, 1.0, 2.5, 100.0}) {
      const double want = lkj_log_normalizer_eq16(d, eta);
      EXPECT_NEAR(LKJCholesky(d, eta).log_normalizer().item(), want, 1e-12 * (1 + 1e3 * d * eta))
          << "d = " << d << ", eta = " << eta;
    }
}

// The gradient in L, through canonical partial correlations that keep L on the support.
TEST(LKJCholesky, ValueGradient) {
  testing::expect_ad([](S v) { return LKJCholesky(4, v[1]).log_prob(corr_cholesky_from(v[0], 4)); },
                     {t({0.4, -0.9, 0.2, 1.1, -0.3, 0.05}), Tensor::scalar(1.7)});
}

// Off-diagonal correlations of Omega = L L^T from 20000 draws: mean 0 and variance
// 1 / (2 eta + d - 1), within 5 Monte Carlo standard errors (false-failure probability about 6e-7
// per comparison).
TEST(LKJCholesky, SampledCorrelationMoments) {
  constexpr std::int64_t n = 20000;
  for (auto [d, eta] : {std::pair<std::int64_t, double>{3, 2.0}, {5, 0.5}, {2, 1.0}}) {
    SCOPED_TRACE("d = " + std::to_string(d) + ", eta = " + std::to_string(eta));
    const Tensor l = LKJCholesky(d, eta).sample(random::Key(77), Shape{n});
    const Tensor omega = prim::matmul(l, l, false, true);
    const double want_var = 1 / (2 * eta + double(d) - 1);
    for (std::int64_t i = 1; i < d; ++i)
      for (std::int64_t j = 0; j < i; ++j) {
        double s1 = 0, s2 = 0, s4 = 0;
        for (std::int64_t s = 0; s < n; ++s) {
          const double r = omega.at(s * d * d + i * d + j);
          s1 += r;
          s2 += r * r;
          s4 += r * r * r * r;
        }
        const double mean = s1 / n, var = s2 / n - mean * mean;
        EXPECT_NEAR(mean, 0.0, 5 * std::sqrt(var / n)) << "entry (" << i << ", " << j << ")";
        EXPECT_NEAR(s2 / n, want_var, 5 * std::sqrt((s4 / n - (s2 / n) * (s2 / n)) / n))
            << "entry (" << i << ", " << j << ")";
      }
  }
}

}  // namespace
}  // namespace variate
