// Conformance rows for the matrix-valued families and Gaussian processes (issue 20): LKJ over
// correlation matrices, GaussianProcess with each kernel, Wishart, InverseWishart and their
// Cholesky forms. References are computed here, independently of the library:
//  - LKJ: d = 2 through Boost.Math 1.74's beta pdf (r = Omega_10 has density Beta(eta, eta) at
//    (r + 1) / 2, over 2); d = 3, eta = 1 through the volume pi^2 / 2 of 3 x 3 correlation matrices;
//    d = 4 through LKJ (2009) eq. 16 taken literally and a determinant by hand-written elimination;
//  - GaussianProcess: the kernels written out element by element (Rasmussen & Williams 2006, eqs.
//    4.9 and 4.17) and the normal log density by a hand-written Cholesky and forward substitution;
//  - Wishart / InverseWishart with p = 1: Boost.Math's gamma pdf (Wishart(nu, s) = Gamma(nu / 2,
//    scale 2 s)) and inverse-gamma pdf (InverseWishart(nu, s) = InverseGamma(nu / 2, scale s / 2));
//    with p = 2: the closed forms with 2 x 2 determinants and inverses written out and
//    log Gamma_2(a) = log(pi) / 2 + lgamma(a) + lgamma(a - 1/2);
//  - the Cholesky forms: those closed forms at L L^T plus the log Jacobian p log 2 +
//    sum_i (p - i) log L_ii of L -> L L^T (Stan Functions Reference, "Wishart Cholesky
//    distribution"; the Jacobian itself is checked against autodiff in bijectors_test.cpp).
#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/inverse_gamma.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "support/conformance.hpp"
#include "support/expect_error.hpp"
#include "support/matrices.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/gaussian_process.hpp"
#include "variate/distributions/inverse_wishart.hpp"
#include "variate/distributions/kernels.hpp"
#include "variate/distributions/lkj.hpp"
#include "variate/distributions/wishart.hpp"
#include "variate/random/key.hpp"

namespace variate {
using namespace dist;  // the families under test
namespace {

using testing::DistributionCase;
using testing::t;
using testing::t2;
using S = std::span<const Tensor>;

using testing::normal_log_density;

std::vector<double> values(const Tensor& x) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < x.numel(); ++i) v.push_back(x.at(i));
  return v;
}

// The determinant of a k x k matrix by Gaussian elimination without pivoting (for SPD inputs).
double determinant(std::vector<double> a, std::size_t k) {
  double det = 1;
  for (std::size_t c = 0; c < k; ++c) {
    det *= a[c * k + c];
    for (std::size_t r = c + 1; r < k; ++r) {
      const double f = a[r * k + c] / a[c * k + c];
      for (std::size_t j = c; j < k; ++j) a[r * k + j] -= f * a[c * k + j];
    }
  }
  return det;
}

using testing::corr_cholesky_from;
using testing::lower_mask;
using testing::times_transpose;
Tensor corr_matrix_from(const Tensor& z, std::int64_t d) {
  const Tensor l = corr_cholesky_from(z, d);
  return matmul(l, l, false, true);
}

// Literal LKJ (2009) eq. 16: log c_d(eta).
double lkj_log_normalizer_eq16(std::int64_t d, double eta) {
  double total = 0;
  for (std::int64_t k = 1; k < d; ++k) {
    const double b = eta + double(d - k - 1) / 2;
    total += (2 * eta - 2 + double(d - k)) * double(d - k) * std::log(2.0) +
             double(d - k) * (2 * std::lgamma(b) - std::lgamma(2 * b));
  }
  return total;
}

// The Periodic rows' period: the points below span more than one, so some pairs wrap around.
constexpr double kPeriod = 0.9;

// Kernels element by element, at the distance d = |x - x'| of two 1-d points.
double kernel_value(const std::string& kind, double amplitude, double length_scale, double d) {
  const double a2 = amplitude * amplitude, r = d / length_scale;
  if (kind == "Periodic") {
    const double s = std::sin(std::numbers::pi * d / kPeriod) / length_scale;
    return a2 * std::exp(-2 * s * s);
  }
  if (kind == "ExponentiatedQuadratic") return a2 * std::exp(-0.5 * r * r);
  if (kind == "Matern12") return a2 * std::exp(-r);
  if (kind == "Matern32") return a2 * (1 + std::sqrt(3.0) * r) * std::exp(-std::sqrt(3.0) * r);
  return a2 * (1 + std::sqrt(5.0) * r + 5.0 / 3.0 * r * r) * std::exp(-std::sqrt(5.0) * r);
}

// K(X, X) + (noise + 1e-6) I for 1-d points.
std::vector<double> gp_covariance(const std::string& kind, const std::vector<double>& x, double amplitude,
                                  double length_scale, double noise) {
  const std::size_t n = x.size();
  std::vector<double> k(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      k[i * n + j] = kernel_value(kind, amplitude, length_scale, std::abs(x[i] - x[j])) + (i == j ? noise + 1e-6 : 0);
  return k;
}

std::shared_ptr<GaussianProcess> make_gp(const std::string& kind, const Tensor& x, S p) {
  if (kind == "ExponentiatedQuadratic")
    return std::make_shared<GaussianProcess>(ExponentiatedQuadratic(p[0], p[1]), x, p[2], p[3]);
  if (kind == "Matern12") return std::make_shared<GaussianProcess>(Matern12(p[0], p[1]), x, p[2], p[3]);
  if (kind == "Matern32") return std::make_shared<GaussianProcess>(Matern32(p[0], p[1]), x, p[2], p[3]);
  if (kind == "Periodic") return std::make_shared<GaussianProcess>(Periodic(p[0], p[1], kPeriod), x, p[2], p[3]);
  return std::make_shared<GaussianProcess>(Matern52(p[0], p[1]), x, p[2], p[3]);
}

// 2 x 2 closed forms (row-major a, b, b, c).
double det2(const std::vector<double>& m) { return m[0] * m[3] - m[1] * m[2]; }
// tr(A^-1 B) for 2 x 2 matrices.
double trace_inv_times(const std::vector<double>& a, const std::vector<double>& b) {
  const double d = det2(a);
  const std::vector<double> inv{a[3] / d, -a[1] / d, -a[2] / d, a[0] / d};
  return inv[0] * b[0] + inv[1] * b[2] + inv[2] * b[1] + inv[3] * b[3];
}
double log_gamma2(double a) { return 0.5 * std::log(std::numbers::pi) + std::lgamma(a) + std::lgamma(a - 0.5); }
double wishart2(double nu, const std::vector<double>& s, const std::vector<double>& w) {
  return 0.5 * (nu - 3) * std::log(det2(w)) - 0.5 * trace_inv_times(s, w) - nu * std::log(2.0) -
         0.5 * nu * std::log(det2(s)) - log_gamma2(nu / 2);
}
double inverse_wishart2(double nu, const std::vector<double>& s, const std::vector<double>& x) {
  return 0.5 * nu * std::log(det2(s)) - nu * std::log(2.0) - log_gamma2(nu / 2) - 0.5 * (nu + 3) * std::log(det2(x)) -
         0.5 * trace_inv_times(x, s);
}
// log|J| of L -> L L^T for 2 x 2 L.
double outer_jacobian2(const std::vector<double>& l) { return 2 * std::log(2.0) + 2 * std::log(l[0]) + std::log(l[3]); }

// The Cholesky-form factories take the full parameter and keep its lower triangle, so that finite
// differences of the upper entries stay valid arguments; the matrix forms symmetrize theirs.
Tensor symmetrized(const Tensor& m) { return 0.5 * (m + transpose(m)); }

std::vector<DistributionCase> cases() {
  std::vector<DistributionCase> rows;
  // LKJ, d = 2, a batch of three concentrations.
  const double r = 0.3;
  const Tensor etas = t({0.5, 1, 3});
  Tensor lkj2_ref = Tensor::zeros(Shape{3});
  for (std::int64_t i = 0; i < 3; ++i)
    lkj2_ref.data<double>()[i] =
        std::log(boost::math::pdf(boost::math::beta_distribution<>(etas.at(i), etas.at(i)), (r + 1) / 2)) -
        std::log(2.0);
  rows.push_back({.name = "LKJ_two_dims_beta",
                  .make = [](S p) { return std::make_shared<LKJ>(2, p[0]); },
                  .params = {etas},
                  .value = t2({1, r, r, 1}, 2, 2),
                  .reference_values = lkj2_ref,
                  .provenance = "Boost.Math beta(eta, eta) pdf at (r + 1) / 2, over 2",
                  .outside = t2({1, 0.5, 0.4, 1}, 2, 2),
                  .differentiable_value = false});
  rows.push_back({.name = "LKJ_three_dims_uniform",
                  .make = [](S p) { return std::make_shared<LKJ>(3, p[0]); },
                  .params = {Tensor::scalar(1.0)},
                  .value = corr_matrix_from(t({0.4, -0.9, 0.2}), 3),
                  .reference_values = Tensor::scalar(-std::log(std::numbers::pi * std::numbers::pi / 2)),
                  .provenance = "volume pi^2 / 2 of 3 x 3 correlation matrices",
                  // Unit diagonal and symmetric, but not positive definite.
                  .outside = t2({1, 0.9, -0.9, 0.9, 1, 0.9, -0.9, 0.9, 1}, 3, 3),
                  .differentiable_value = false});
  const Tensor omega4 = corr_matrix_from(t({0.4, -0.9, 0.2, 1.1, -0.3, 0.05}), 4);
  rows.push_back({.name = "LKJ_four_dims",
                  .make = [](S p) { return std::make_shared<LKJ>(4, p[0]); },
                  .params = {Tensor::scalar(2.5)},
                  .value = omega4,
                  .reference_values =
                      Tensor::scalar(1.5 * std::log(determinant(values(omega4), 4)) - lkj_log_normalizer_eq16(4, 2.5)),
                  .provenance = "LKJ 2009 eq. 16 normalizer, determinant by elimination",
                  .outside = t2({1, 0, 0, 0, 0, 1.1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 4, 4),
                  .differentiable_value = false});

  // Gaussian processes on four points, two values each, for every kernel.
  const std::vector<double> xs{0.0, 0.3, 0.5, 1.2};
  const Tensor x = Tensor::from(xs, Shape{4});
  const Tensor points = t2({0.3, -0.5, 1.2, 0.1, -1.0, 0.4, 0.2, 2.0}, 2, 4);
  const Tensor mean = t({0.1, -0.2, 0.0, 0.5});
  for (const std::string kind : {"ExponentiatedQuadratic", "Matern12", "Matern32", "Matern52", "Periodic"}) {
    const double amplitude = 1.3, length_scale = 0.7, noise = 0.05;
    const std::vector<double> cov = gp_covariance(kind, xs, amplitude, length_scale, noise);
    Tensor ref = Tensor::zeros(Shape{2});
    for (std::int64_t i = 0; i < 2; ++i) {
      const std::vector<double> all = values(points);
      const std::vector<double> row(all.begin() + 4 * i, all.begin() + 4 * i + 4);
      ref.data<double>()[i] = normal_log_density(row, values(mean), cov);
    }
    rows.push_back({.name = "GaussianProcess_" + kind,
                    .make = [kind, x](S p) { return make_gp(kind, x, p); },
                    .params = {Tensor::scalar(amplitude), Tensor::scalar(length_scale), Tensor::scalar(noise), mean},
                    .value = points,
                    .reference_values = ref,
                    .provenance = "kernel by hand (R&W 2006 eqs. 4.9, 4.17, 4.31), hand-written Cholesky",
                    .outside = t({0, INFINITY, 0, 0})});
  }

  // Wishart and InverseWishart with p = 1, a batch of three.
  const Tensor nus = t({0.5, 3.0, 7.5}), s1 = t({2.0, 0.4, 1.1}).view(Shape{3, 1, 1});
  const Tensor w1 = Tensor::scalar(0.8).view(Shape{1, 1});
  Tensor wishart1_ref = Tensor::zeros(Shape{3}), inverse1_ref = Tensor::zeros(Shape{3});
  for (std::int64_t i = 0; i < 3; ++i) {
    wishart1_ref.data<double>()[i] =
        std::log(boost::math::pdf(boost::math::gamma_distribution<>(nus.at(i) / 2, 2 * s1.at(i)), 0.8));
    inverse1_ref.data<double>()[i] =
        std::log(boost::math::pdf(boost::math::inverse_gamma_distribution<>(nus.at(i) / 2, s1.at(i) / 2), 0.8));
  }
  rows.push_back({.name = "Wishart_one_dim_gamma",
                  .make = [](S p) { return std::make_shared<Wishart>(p[0], p[1]); },
                  .params = {nus, s1},
                  .value = w1,
                  .reference_values = wishart1_ref,
                  .provenance = "Boost.Math gamma pdf, shape nu / 2, scale 2 s",
                  .outside = Tensor::scalar(-0.5).view(Shape{1, 1}),
                  .differentiable_value = false});
  rows.push_back({.name = "InverseWishart_one_dim_inverse_gamma",
                  .make = [](S p) { return std::make_shared<InverseWishart>(p[0], p[1]); },
                  .params = {nus, s1},
                  .value = w1,
                  .reference_values = inverse1_ref,
                  .provenance = "Boost.Math inverse-gamma pdf, shape nu / 2, scale s / 2",
                  .outside = Tensor::scalar(0.0).view(Shape{1, 1}),
                  .differentiable_value = false,
                  .check_mean = false,  // nu <= p + 1 for two of the three
                  .check_variance = false});
  // p = 2. df large enough for the inverse Wishart's fourth moments (the moment checks).
  const std::vector<double> s2{2.0, 0.6, 0.6, 1.0}, w2{1.5, -0.4, -0.4, 0.9};
  const double nu2 = 12.5;
  const Tensor s2t = Tensor::from(s2, Shape{2, 2}), w2t = Tensor::from(w2, Shape{2, 2});
  rows.push_back({.name = "Wishart_two_dims",
                  .make = [](S p) { return std::make_shared<Wishart>(p[0], symmetrized(p[1])); },
                  .params = {Tensor::scalar(nu2), s2t},
                  .value = w2t,
                  .reference_values = Tensor::scalar(wishart2(nu2, s2, w2)),
                  .provenance = "closed form with 2 x 2 determinant and inverse",
                  .outside = t2({1, 2, 2, 1}, 2, 2),
                  .differentiable_value = false});
  rows.push_back({.name = "InverseWishart_two_dims",
                  .make = [](S p) { return std::make_shared<InverseWishart>(p[0], symmetrized(p[1])); },
                  .params = {Tensor::scalar(nu2), s2t},
                  .value = w2t,
                  .reference_values = Tensor::scalar(inverse_wishart2(nu2, s2, w2)),
                  .provenance = "closed form with 2 x 2 determinant and inverse",
                  .outside = t2({1, 0.5, 0.4, 1}, 2, 2),
                  .differentiable_value = false});
  // The Cholesky forms at L_W = chol(w2), with the scale's factor.
  const std::vector<double> ls{std::sqrt(2.0), 0, 0.6 / std::sqrt(2.0), std::sqrt(1.0 - 0.18)};
  const std::vector<double> lw{std::sqrt(1.5), 0, -0.4 / std::sqrt(1.5), std::sqrt(0.9 - 0.16 / 1.5)};
  const Tensor lst = Tensor::from(ls, Shape{2, 2}), lwt = Tensor::from(lw, Shape{2, 2});
  rows.push_back({.name = "WishartCholesky_two_dims",
                  .make = [](S p) { return std::make_shared<WishartCholesky>(p[0], p[1] * lower_mask(2)); },
                  .params = {Tensor::scalar(nu2), lst},
                  .value = lwt,
                  .reference_values = Tensor::scalar(wishart2(nu2, times_transpose(ls, 2), times_transpose(lw, 2)) +
                                                     outer_jacobian2(lw)),
                  .provenance = "2 x 2 closed form at L L^T plus the log Jacobian of L -> L L^T",
                  .outside = t2({1, 0.5, 0.4, 1}, 2, 2),
                  .differentiable_value = false,
                  .check_mean = false,
                  .check_variance = false});
  rows.push_back({.name = "InverseWishartCholesky_two_dims",
                  .make = [](S p) { return std::make_shared<InverseWishartCholesky>(p[0], p[1] * lower_mask(2)); },
                  .params = {Tensor::scalar(nu2), lst},
                  .value = lwt,
                  .reference_values = Tensor::scalar(
                      inverse_wishart2(nu2, times_transpose(ls, 2), times_transpose(lw, 2)) + outer_jacobian2(lw)),
                  .provenance = "2 x 2 closed form at L L^T plus the log Jacobian of L -> L L^T",
                  .outside = t2({1, 0, 0.4, -1}, 2, 2),
                  .differentiable_value = false,
                  .check_mean = false,
                  .check_variance = false});
  return rows;
}

class MatrixFamilies : public ::testing::TestWithParam<DistributionCase> {};
TEST_P(MatrixFamilies, Conform) { testing::check_conformance(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Families, MatrixFamilies, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// Gradients in the value, through parameterizations that stay on the support (entry-wise finite
// differences of a symmetric or correlation matrix would leave it).
TEST(MatrixFamilies, ValueGradients) {
  testing::expect_ad([](S v) { return LKJ(4, v[1]).log_prob(corr_matrix_from(v[0], 4)); },
                     {t({0.4, -0.9, 0.2, 1.1, -0.3, 0.05}), Tensor::scalar(1.7)});
  const Tensor s = t2({2.0, 0.6, 0.6, 1.0}, 2, 2), w = t2({1.5, -0.4, -0.4, 0.9}, 2, 2);
  const Tensor lw = t2({1.2, 0, -0.3, 0.9}, 2, 2);
  testing::expect_ad([&](S v) { return Wishart(v[0], s).log_prob(symmetrized(v[1])); }, {Tensor::scalar(4.5), w});
  testing::expect_ad([&](S v) { return InverseWishart(v[0], s).log_prob(symmetrized(v[1])); },
                     {Tensor::scalar(4.5), w});
  testing::expect_ad([&](S v) { return WishartCholesky(4.5, cholesky(s)).log_prob(v[0] * lower_mask(2)); }, {lw});
  testing::expect_ad([&](S v) { return InverseWishartCholesky(4.5, cholesky(s)).log_prob(v[0] * lower_mask(2)); },
                     {lw});
}

// The Cholesky forms' draws, multiplied out, against the matrix forms' means: E[L L^T] = df S and
// S / (df - p - 1), within 5 Monte Carlo standard errors per entry.
TEST(MatrixFamilies, CholeskyFormDrawsHaveTheMatrixMeans) {
  constexpr std::int64_t n = 20000;
  const Tensor s = t2({2.0, 0.6, 0.6, 1.0}, 2, 2);
  const double df = 9.0;
  struct Row {
    const char* what;
    Tensor draws, mean;
  };
  const Tensor lw = WishartCholesky(df, cholesky(s)).sample(random::Key(5), Shape{n});
  const Tensor li = InverseWishartCholesky(df, cholesky(s)).sample(random::Key(6), Shape{n});
  for (const Row& row : {Row{"WishartCholesky", matmul(lw, lw, false, true), df * s},
                         Row{"InverseWishartCholesky", matmul(li, li, false, true), s / (df - 3.0)}}) {
    for (std::int64_t e = 0; e < 4; ++e) {
      double s1 = 0, s2 = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const double v = row.draws.at(i * 4 + e);
        s1 += v;
        s2 += v * v;
      }
      const double m = s1 / n, var = s2 / n - m * m;
      EXPECT_NEAR(m, row.mean.at(e), 5 * std::sqrt(var / n)) << row.what << " entry " << e;
    }
    // Lower triangular draws with a positive diagonal.
    const Tensor d = row.what == std::string("WishartCholesky") ? lw : li;
    for (std::int64_t i = 0; i < 100; ++i) {
      EXPECT_EQ(d.at(i * 4 + 1), 0.0);
      EXPECT_GT(d.at(i * 4), 0.0);
      EXPECT_GT(d.at(i * 4 + 3), 0.0);
    }
  }
}

// The GP is the multivariate normal it names: a batch of amplitudes gives a batch of processes,
// and 2-d index points (N, F) use the Euclidean distance.
TEST(MatrixFamilies, GaussianProcessShapesAndFeatures) {
  const Tensor x = t2({0, 0, 1, 0, 0, 2}, 3, 2);
  const GaussianProcess gp(ExponentiatedQuadratic(t({1.0, 2.0}), 1.5), x, 0.1);
  EXPECT_EQ(gp.batch_shape(), (Shape{2}));
  EXPECT_EQ(gp.event_shape(), (Shape{3}));
  EXPECT_EQ(gp.sample(random::Key(1), Shape{4}).shape(), (Shape{4, 2, 3}));
  const Tensor k = gp.covariance_matrix();
  ASSERT_EQ(k.shape(), (Shape{2, 3, 3}));
  // Points (1, 0) and (0, 2): distance sqrt(5).
  EXPECT_NEAR(k.at(9 + 1 * 3 + 2), 4.0 * std::exp(-0.5 * 5 / (1.5 * 1.5)), 1e-14);
  EXPECT_NEAR(k.at(0), 1.0 + 0.1 + 1e-6, 1e-14);
  EXPECT_EQ(GaussianProcess(Matern52(1.0, 1.0), x, 0.0, {}, 0.0).covariance_matrix().at(0), 1.0);
}

TEST(MatrixFamilies, InvalidArgumentsNameTheFamilyAndTheParameter) {
  const Tensor s = t2({1, 0.5, 0.5, 1}, 2, 2);
  EXPECT_ERROR(LKJ(1, 1.0), "LKJ: dimension must be at least 2");
  EXPECT_ERROR(LKJ(3, -1.0), "LKJ: concentration must be positive");
  EXPECT_ERROR(LKJ(3, 1.0).log_prob(Tensor::zeros(Shape{2, 2})), "LKJ: value must have shape (..., 3, 3)");
  EXPECT_ERROR(Wishart(0.5, s), "Wishart: df must be greater than dimension - 1 = 1");
  EXPECT_ERROR(Wishart(3.0, t2({1, 0.5, 0.4, 1}, 2, 2)), "Wishart: scale_matrix must be symmetric");
  EXPECT_ERROR(Wishart(3.0, t2({1, 2, 2, 1}, 2, 2)), "Wishart: scale_matrix must be positive definite");
  EXPECT_ERROR(Wishart(3.0, t({1, 2})), "Wishart: scale_matrix must be square");
  EXPECT_ERROR(InverseWishart(NAN, s), "InverseWishart: df must be greater than dimension - 1");
  EXPECT_ERROR(WishartCholesky(3.0, t2({1, 0.5, 0, 1}, 2, 2)),
               "WishartCholesky: scale_tril must be lower triangular with a positive diagonal");
  EXPECT_ERROR(InverseWishartCholesky(3.0, t2({1, 0, 0.5, -1}, 2, 2)),
               "InverseWishartCholesky: scale_tril must be lower triangular with a positive diagonal");
  EXPECT_ERROR(Wishart(3.0, s).log_prob(Tensor::zeros(Shape{3, 3})), "Wishart: value must have shape (..., 2, 2)");
  const Tensor x = t({0, 1, 2});
  EXPECT_ERROR(GaussianProcess(ExponentiatedQuadratic(-1.0, 1.0), x, 0.1),
               "ExponentiatedQuadratic: amplitude must be positive");
  EXPECT_ERROR(GaussianProcess(Matern32(1.0, 0.0), x, 0.1), "Matern32: length_scale must be positive");
  EXPECT_ERROR(GaussianProcess(Matern12(1.0, 1.0), x, -0.1),
               "GaussianProcess: observation_noise_variance must be non-negative");
  EXPECT_ERROR(GaussianProcess(Matern12(1.0, 1.0), x, 0.1, t({0, 1})),
               "GaussianProcess: mean must have shape (..., 3)");
  // Two identical points and no jitter: a singular covariance.
  EXPECT_ERROR(GaussianProcess(Matern12(1.0, 1.0), t({0, 0}), 0.0, {}, 0.0), "GaussianProcess: the covariance");
}

// Masked values (outside the support) leave finite gradients in the parameters.
TEST(MatrixFamilies, MaskedValuesLeaveFiniteGradients) {
  const Tensor bad = t2({1, 2, 2, 1}, 2, 2);
  const auto w = value_and_grad(
      [&](const Tensor& df) {
        return sum(Wishart(df, t2({1, 0, 0, 1}, 2, 2)).log_prob(bad));
      },
      Tensor::scalar(3.0));
  EXPECT_EQ(w.value.item(), -INFINITY);
  EXPECT_TRUE(std::isfinite(w.grads[0].item()));
  const auto l = value_and_grad(
      [&](const Tensor& eta) {
        return sum(LKJ(2, eta).log_prob(t2({1, 0.5, 0.4, 1}, 2, 2)));
      },
      Tensor::scalar(2.0));
  EXPECT_EQ(l.value.item(), -INFINITY);
  EXPECT_TRUE(std::isfinite(l.grads[0].item()));
}

}  // namespace
}  // namespace variate
