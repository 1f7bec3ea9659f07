// Gradients of draws with respect to the parameters (issue 20, item 7). Location-scale and other
// smooth transforms of parameter-free noise are checked against central differences of the draw
// itself at a fixed key. The gamma family's samplers reject, so a draw at a +- h with the same key
// is not the same quantile; their implicit reparameterization gradients (Figurnov et al. 2018) are
// checked against the derivative of the inverse cdf at the draw's own cdf value u = P(a, x),
// x(a +- h) = P^-1(a +- h, u), with Boost.Math's inverses. Discrete draws, and a mixture's choice
// of component, raise an error when a gradient reaches them.
#include <gtest/gtest.h>

#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
#include "variate/distributions/beta.hpp"
#include "variate/distributions/beta_binomial.hpp"
#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/binomial.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/distributions/cauchy.hpp"
#include "variate/distributions/chi2.hpp"
#include "variate/distributions/deterministic.hpp"
#include "variate/distributions/dirichlet.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/gamma.hpp"
#include "variate/distributions/gaussian_process.hpp"
#include "variate/distributions/gaussian_random_walk.hpp"
#include "variate/distributions/geometric.hpp"
#include "variate/distributions/gumbel.hpp"
#include "variate/distributions/half_cauchy.hpp"
#include "variate/distributions/half_normal.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/inverse_gamma.hpp"
#include "variate/distributions/inverse_wishart.hpp"
#include "variate/distributions/kernels.hpp"
#include "variate/distributions/laplace.hpp"
#include "variate/distributions/lkj.hpp"
#include "variate/distributions/lkj_cholesky.hpp"
#include "variate/distributions/log_normal.hpp"
#include "variate/distributions/logistic.hpp"
#include "variate/distributions/mixture_same_family.hpp"
#include "variate/distributions/multinomial.hpp"
#include "variate/distributions/multivariate_normal.hpp"
#include "variate/distributions/negative_binomial.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/ordered_logistic.hpp"
#include "variate/distributions/ordered_probit.hpp"
#include "variate/distributions/pareto.hpp"
#include "variate/distributions/poisson.hpp"
#include "variate/distributions/reparameterized.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/distributions/student_t.hpp"
#include "variate/distributions/transformed_distribution.hpp"
#include "variate/distributions/truncated.hpp"
#include "variate/distributions/uniform.hpp"
#include "variate/distributions/weibull.hpp"
#include "variate/distributions/wishart.hpp"
#include "variate/distributions/zero_inflated.hpp"
#include "variate/random/samplers.hpp"

namespace variate {
using namespace dist;  // the families under test
namespace {

using S = std::span<const Tensor>;
const random::Key kKey(2024);

// The Gamma(a, 1) quantile at the cdf value that x has under a, evaluated at a + da: the inverse
// cdf's path through x. From the tail in which the probability is held accurately.
double gamma_quantile_through(double a, double x, double da) {
  const double p = boost::math::gamma_p(a, x);
  return p < 0.5 ? boost::math::gamma_p_inv(a + da, p) : boost::math::gamma_q_inv(a + da, boost::math::gamma_q(a, x));
}

// The central difference of that path. Step h = 1e-5 a: truncation error (h / a)^2 = 1e-10 times
// the (moderate) relative third derivative, rounding error about eps / (h / a) = 2e-11 of the
// derivative (Boost's inverses are accurate to a few eps); kFdTolerance leaves a margin of 1e4.
double gamma_quantile_derivative(double a, double x) {
  const double h = 1e-5 * a;
  return (gamma_quantile_through(a, x, h) - gamma_quantile_through(a, x, -h)) / (2 * h);
}
constexpr double kFdTolerance = 1e-6;

// Concentrations from 0.1 (draws down to ~1e-30) to 1e3, each repeated so that every one is drawn
// at several quantiles.
Tensor repeated_concentrations(std::vector<double> values, int copies) {
  std::vector<double> out;
  for (double v : values)
    for (int i = 0; i < copies; ++i) out.push_back(v);
  return Tensor::from(out, Shape{std::int64_t(out.size())});
}

// The gradient of sum(draw) in a batch parameter: element i depends on parameter i only, so this
// is the derivative of each draw.
Tensor per_draw_gradient(const std::function<Tensor(const Tensor&)>& draw, const Tensor& param) {
  return grad([&](const Tensor& p) { return sum(draw(p)); }, param);
}

TEST(DrawGradients, GammaConcentrationIsTheInverseCdfDerivative) {
  const Tensor a = repeated_concentrations({0.1, 0.5, 1.0, 3.7, 50.0, 1000.0}, 8);
  const Tensor rate = Tensor::scalar(2.5);
  const Tensor x = Gamma(a, rate).sample(kKey);
  const Tensor g = per_draw_gradient([&](const Tensor& p) { return Gamma(p, rate).sample(kKey); }, a);
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    // x = z / rate with z the standard draw.
    const double want = gamma_quantile_derivative(a.at(i), x.at(i) * 2.5) / 2.5;
    EXPECT_NEAR(g.at(i), want, kFdTolerance * std::abs(want)) << "a = " << a.at(i) << ", x = " << x.at(i);
  }
}

TEST(DrawGradients, GammaShapedFamiliesFollowTheirGammaDraw) {
  const Tensor a = repeated_concentrations({0.3, 2.0, 40.0}, 4);
  // InverseGamma: x = scale / z.
  const Tensor xi = InverseGamma(a, 1.5).sample(kKey);
  const Tensor gi = per_draw_gradient([](const Tensor& p) { return InverseGamma(p, 1.5).sample(kKey); }, a);
  // Chi2: x = 2 z with z ~ Gamma(df / 2).
  const Tensor df = a * 2.0;
  const Tensor xc = Chi2(df).sample(kKey);
  const Tensor gc = per_draw_gradient([](const Tensor& p) { return Chi2(p).sample(kKey); }, df);
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const double z = 1.5 / xi.at(i);
    const double want_i = -1.5 / (z * z) * gamma_quantile_derivative(a.at(i), z);
    EXPECT_NEAR(gi.at(i), want_i, kFdTolerance * std::abs(want_i)) << "InverseGamma, a = " << a.at(i);
    const double want_c = gamma_quantile_derivative(a.at(i), xc.at(i) / 2);  // d(2z)/d(df) = dz/da
    EXPECT_NEAR(gc.at(i), want_c, kFdTolerance * std::abs(want_c)) << "Chi2, df = " << df.at(i);
  }
}

TEST(DrawGradients, StudentTDfThroughItsGammaDraw) {
  const Tensor df = repeated_concentrations({0.7, 3.0, 30.0}, 4);
  const Tensor g = per_draw_gradient([](const Tensor& p) { return StudentT(p, 0.5, 2.0).sample(kKey); }, df);
  // t = eps / sqrt(z / h) with h = df / 2, z ~ Gamma(h), drawn from the two halves of the key.
  const auto [normal_key, gamma_key] = random::split(kKey);
  const Tensor eps = random::normal(normal_key, Shape{df.numel()});
  const Tensor z = random::gamma(gamma_key, df * 0.5, Shape{df.numel()});
  for (std::int64_t i = 0; i < df.numel(); ++i) {
    const double h = df.at(i) / 2, zi = z.at(i);
    // x = loc + scale eps sqrt(h) z^(-1/2): dx/ddf = scale (dt/dh) / 2 = dt/dh for scale 2.
    const double dz_dh = gamma_quantile_derivative(h, zi);
    const double want = eps.at(i) * (0.5 / std::sqrt(h * zi) - 0.5 * std::sqrt(h) * std::pow(zi, -1.5) * dz_dh);
    EXPECT_NEAR(g.at(i), want, kFdTolerance * std::abs(want) + 1e-14) << "df = " << df.at(i);
  }
}

TEST(DrawGradients, BetaThroughItsGammaDraws) {
  const Tensor a = repeated_concentrations({0.2, 1.5, 30.0}, 4);
  const Tensor b = repeated_concentrations({4.0, 0.6, 80.0}, 4);
  Tensor logs;
  const Tensor x = random::beta(kKey, a, b, Shape{a.numel()}, &logs);
  const auto [ga, gb] = grad([](const Tensor& p, const Tensor& q) { return sum(Beta(p, q).sample(kKey)); }, a, b);
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const double gx = std::exp(logs.at(2 * i)), gy = std::exp(logs.at(2 * i + 1));
    auto ratio = [](double u, double v) { return u / (u + v); };
    // Central differences of X / (X + Y) along each gamma draw's inverse cdf (step as above).
    const double ha = 1e-5 * a.at(i), hb = 1e-5 * b.at(i);
    const double want_a =
        (ratio(gamma_quantile_through(a.at(i), gx, ha), gy) - ratio(gamma_quantile_through(a.at(i), gx, -ha), gy)) /
        (2 * ha);
    const double want_b =
        (ratio(gx, gamma_quantile_through(b.at(i), gy, hb)) - ratio(gx, gamma_quantile_through(b.at(i), gy, -hb))) /
        (2 * hb);
    EXPECT_NEAR(x.at(i), ratio(gx, gy), 1e-15);
    EXPECT_NEAR(ga.at(i), want_a, kFdTolerance * std::abs(want_a)) << "a = " << a.at(i) << ", b = " << b.at(i);
    EXPECT_NEAR(gb.at(i), want_b, kFdTolerance * std::abs(want_b)) << "a = " << a.at(i) << ", b = " << b.at(i);
  }
}

TEST(DrawGradients, DirichletThroughItsGammaDraws) {
  const Tensor alpha = Tensor::from(std::vector<double>{0.3, 1.0, 4.5, 25.0}, Shape{4});
  const Tensor c = Tensor::from(std::vector<double>{0.7, -1.2, 0.4, 2.0}, Shape{4});  // a cotangent
  const std::int64_t n = 5;
  Tensor logs;
  random::dirichlet(kKey, alpha, Shape{n}, &logs);
  // The gradient of sum(c * x) over n draws, against the sum of central differences along each
  // gamma draw's inverse cdf.
  const Tensor g = grad([&](const Tensor& p) { return sum(Dirichlet(p).sample(kKey, Shape{n}) * c); }, alpha);
  for (std::int64_t j = 0; j < 4; ++j) {
    const double aj = alpha.at(j), h = 1e-5 * aj;
    double want = 0;
    for (std::int64_t s = 0; s < n; ++s) {
      std::vector<double> gam(4);
      for (std::int64_t k = 0; k < 4; ++k) gam[std::size_t(k)] = std::exp(logs.at(s * 4 + k));
      auto objective = [&](double da) {
        std::vector<double> v = gam;
        v[std::size_t(j)] = gamma_quantile_through(aj, gam[std::size_t(j)], da);
        const double total = v[0] + v[1] + v[2] + v[3];
        double out = 0;
        for (std::int64_t k = 0; k < 4; ++k) out += c.at(k) * v[std::size_t(k)] / total;
        return out;
      };
      want += (objective(h) - objective(-h)) / (2 * h);
    }
    EXPECT_NEAR(g.at(j), want, kFdTolerance * std::abs(want) + 1e-12) << "alpha_" << j << " = " << aj;
  }
}

TEST(DrawGradients, LKJCholeskyThroughItsBetaDraws) {
  // Row i of the factor is (sqrt(y_i) u_i, sqrt(1 - y_i), 0...) with y_i = X / (X + Y),
  // Y ~ Gamma(eta + (d - 1 - i) / 2) the only draw that depends on eta; u_i = L_i / sqrt(y_i).
  const std::int64_t d = 3;
  const double eta = 1.7;
  const Tensor c = testing::random_tensor(Shape{d, d}, 5);
  const Tensor l = LKJCholesky(d, Tensor::scalar(eta)).sample(kKey);
  const Tensor g = grad([&](const Tensor& p) { return sum(LKJCholesky(d, p).sample(kKey) * c); }, Tensor::scalar(eta));
  const auto [beta_key, sphere_key] = random::split(kKey);
  (void)sphere_key;
  const Tensor half_i = Tensor::vec({0.5, 1.0});
  const Tensor tail = Tensor::vec({eta + 0.5, eta + 0.0});
  Tensor logs;
  random::beta(beta_key, half_i, tail, Shape{d - 1}, &logs);
  const double h = 1e-5 * eta;
  auto objective = [&](double de) {
    double out = 0;
    for (std::int64_t i = 1; i < d; ++i) {
      const double gx = std::exp(logs.at(2 * (i - 1))), gy = std::exp(logs.at(2 * (i - 1) + 1));
      const double y = gx / (gx + gy);
      const double y_new = gx / (gx + gamma_quantile_through(tail.at(i - 1), gy, de));
      for (std::int64_t j = 0; j < i; ++j) out += c.at(i * d + j) * l.at(i * d + j) * std::sqrt(y_new / y);
      out += c.at(i * d + i) * std::sqrt(1 - y_new);
    }
    return out;
  };
  const double want = (objective(h) - objective(-h)) / (2 * h);
  EXPECT_NEAR(g.item(), want, kFdTolerance * std::abs(want));
}

// Matrices (issue 20). LKJ draws are L L^T of LKJCholesky draws: the same path through the beta
// draws as above, multiplied out.
TEST(DrawGradients, LKJThroughItsBetaDraws) {
  const std::int64_t d = 3;
  const double eta = 1.7;
  const Tensor c = testing::random_tensor(Shape{d, d}, 6);
  const Tensor l = LKJCholesky(d, Tensor::scalar(eta)).sample(kKey);
  const Tensor g = grad([&](const Tensor& p) { return sum(LKJ(d, p).sample(kKey) * c); }, Tensor::scalar(eta));
  const auto [beta_key, sphere_key] = random::split(kKey);
  (void)sphere_key;
  const Tensor tail = Tensor::vec({eta + 0.5, eta + 0.0});
  Tensor logs;
  random::beta(beta_key, Tensor::vec({0.5, 1.0}), tail, Shape{d - 1}, &logs);
  auto objective = [&](double de) {
    std::vector<double> m(std::size_t(d * d), 0.0);
    m[0] = 1.0;
    for (std::int64_t i = 1; i < d; ++i) {
      const double gx = std::exp(logs.at(2 * (i - 1))), gy = std::exp(logs.at(2 * (i - 1) + 1));
      const double y = gx / (gx + gy);
      const double y_new = gx / (gx + gamma_quantile_through(tail.at(i - 1), gy, de));
      for (std::int64_t j = 0; j < i; ++j) m[std::size_t(i * d + j)] = l.at(i * d + j) * std::sqrt(y_new / y);
      m[std::size_t(i * d + i)] = std::sqrt(1 - y_new);
    }
    double out = 0;
    for (std::int64_t i = 0; i < d; ++i)
      for (std::int64_t j = 0; j < d; ++j) {
        double omega = 0;
        for (std::int64_t k = 0; k < d; ++k) omega += m[std::size_t(i * d + k)] * m[std::size_t(j * d + k)];
        out += c.at(i * d + j) * omega;
      }
    return out;
  };
  const double h = 1e-5 * eta;
  const double want = (objective(h) - objective(-h)) / (2 * h);
  EXPECT_NEAR(g.item(), want, kFdTolerance * std::abs(want));
}

// Bartlett's factor A has diagonal sqrt(2 g_i), g_i ~ Gamma((df - i) / 2) drawn from the first half
// of the key: the df gradient of L_S A follows each g_i's inverse cdf.
TEST(DrawGradients, WishartCholeskyDfThroughItsChiSquareDraws) {
  const std::int64_t p = 3;
  const double df = 4.3;
  const Tensor scale_tril = Tensor::from(std::vector<double>{1.2, 0, 0, 0.3, 0.8, 0, -0.5, 0.2, 1.5}, Shape{p, p});
  const Tensor c = testing::random_tensor(Shape{p, p}, 7);
  const Tensor g =
      grad([&](const Tensor& v) { return sum(WishartCholesky(v, scale_tril).sample(kKey) * c); }, Tensor::scalar(df));
  const auto [gamma_key, normal_key] = random::split(kKey);
  (void)normal_key;
  const Tensor a = Tensor::vec({df / 2, (df - 1) / 2, (df - 2) / 2});
  const Tensor gammas = random::gamma(gamma_key, a, Shape{p});
  // Only A's diagonal depends on df: d(L_S A)_rk / d A_kk = L_S,rk.
  auto objective = [&](double de) {
    double out = 0;
    for (std::int64_t k = 0; k < p; ++k) {
      const double akk = std::sqrt(2 * gamma_quantile_through(a.at(k), gammas.at(k), de / 2));
      for (std::int64_t r = k; r < p; ++r) out += c.at(r * p + k) * scale_tril.at(r * p + k) * akk;
    }
    return out;
  };
  const double h = 1e-5 * df;
  const double want = (objective(h) - objective(-h)) / (2 * h);
  EXPECT_NEAR(g.item(), want, kFdTolerance * std::abs(want));
  // The matrix forms share the factor: their df gradients are finite and nonzero.
  const Tensor s = matmul(scale_tril, scale_tril, false, true);
  for (const auto& draw : std::vector<std::function<Tensor(const Tensor&)>>{
           [&](const Tensor& v) { return Wishart(v, s).sample(kKey); },
           [&](const Tensor& v) { return InverseWishart(v, s).sample(kKey); },
           [&](const Tensor& v) { return InverseWishartCholesky(v, scale_tril).sample(kKey); }}) {
    const Tensor gd = grad([&](const Tensor& v) { return sum(draw(v) * c); }, Tensor::scalar(df));
    EXPECT_TRUE(std::isfinite(gd.item()) && gd.item() != 0.0);
  }
}

// Families whose draws are smooth transforms of parameter-free noise: the gradient of the draw
// with the key fixed against central differences of the draw itself (the generic checker).
struct PathwiseCase {
  std::string name;
  std::function<Tensor(S)> draw;
  std::vector<Tensor> params;
};

std::vector<PathwiseCase> pathwise_cases() {
  const Shape n{6};
  auto v = [](std::initializer_list<double> x) { return Tensor::vec(x); };
  return {
      {"Normal", [n](S p) { return Normal(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"LogNormal", [n](S p) { return LogNormal(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({0.6})}},
      {"HalfNormal", [n](S p) { return HalfNormal(p[0]).sample(kKey, n); }, {v({1.7})}},
      {"Exponential", [n](S p) { return Exponential(p[0]).sample(kKey, n); }, {v({2.2})}},
      {"Uniform", [n](S p) { return Uniform(p[0], p[1]).sample(kKey, n); }, {v({-1.0}), v({2.5})}},
      {"Laplace", [n](S p) { return Laplace(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"Logistic", [n](S p) { return Logistic(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"Cauchy", [n](S p) { return Cauchy(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({0.2})}},
      {"HalfCauchy", [n](S p) { return HalfCauchy(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({0.2})}},
      {"Weibull", [n](S p) { return Weibull(p[0], p[1]).sample(kKey, n); }, {v({1.3}), v({2.0})}},
      {"StudentT_loc_scale", [n](S p) { return StudentT(4.0, p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"Gamma_rate", [n](S p) { return Gamma(2.5, p[0]).sample(kKey, n); }, {v({1.3})}},
      {"InverseGamma_scale", [n](S p) { return InverseGamma(2.5, p[0]).sample(kKey, n); }, {v({1.3})}},
      // Issue 20. Truncated draws are the base's quantile at uniform draws: differentiable in the
      // base's parameters and the bounds.
      {"Gumbel", [n](S p) { return Gumbel(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"Pareto", [n](S p) { return Pareto(p[0], p[1]).sample(kKey, n); }, {v({2.5}), v({0.7})}},
      {"GaussianRandomWalk", [](S p) { return GaussianRandomWalk(p[0], 4).sample(kKey, Shape{2}); }, {v({1.7})}},
      {"Truncated_Normal",
       [n](S p) { return Truncated(std::make_shared<Normal>(p[0], p[1]), p[2], p[3]).sample(kKey, n); },
       {v({0.3}), v({1.7}), v({-1.0}), v({2.0})}},
      {"Truncated_Exponential",
       [n](S p) { return Truncated(std::make_shared<Exponential>(p[0]), p[1], std::nullopt).sample(kKey, n); },
       {v({1.3}), v({0.5})}},
      {"MultivariateNormal",
       // Only the lower triangle is a parameter: the others stay 0, so that finite differences in
       // them are valid arguments too.
       [n](S p) {
         const Tensor lower = Tensor::from(std::vector<double>{1.0, 0.0, 1.0, 1.0}, Shape{2, 2});
         return MultivariateNormal::from_scale_tril(p[0], p[1] * lower).sample(kKey, n);
       },
       {v({0.3, -1.0}), Tensor::from(std::vector<double>{1.2, 0.0, 0.4, 0.8}, Shape{2, 2})}},
      // Matrices and Gaussian processes (issue 20): pathwise in the scale and the kernel, df fixed.
      {"GaussianProcess",
       [n](S p) { return GaussianProcess(ExponentiatedQuadratic(p[0], p[1]), p[4], p[2], p[3]).sample(kKey, n); },
       {v({1.3}), v({0.6}), v({0.1}), v({0.2, 0.0, -0.1}), v({0.0, 0.4, 1.1})}},
      {"GaussianProcess_Matern32",
       [n, v](S p) {
         return GaussianProcess(Matern32(p[0], p[1]), v({0.0, 0.4, 1.1}), 0.05).sample(kKey, n);
       },
       {v({1.3}), v({0.6})}},
      {"Wishart_scale_matrix",
       [n](S p) { return Wishart(4.5, (p[0] + transpose(p[0])) * 0.5).sample(kKey, n); },
       {Tensor::from(std::vector<double>{1.5, 0.3, 0.3, 0.9}, Shape{2, 2})}},
      {"InverseWishart_scale_matrix",
       [n](S p) { return InverseWishart(4.5, (p[0] + transpose(p[0])) * 0.5).sample(kKey, n); },
       {Tensor::from(std::vector<double>{1.5, 0.3, 0.3, 0.9}, Shape{2, 2})}},
      {"WishartCholesky_scale_tril",
       [n](S p) {
         const Tensor lower = Tensor::from(std::vector<double>{1.0, 0.0, 1.0, 1.0}, Shape{2, 2});
         return WishartCholesky(4.5, p[0] * lower).sample(kKey, n);
       },
       {Tensor::from(std::vector<double>{1.2, 0.0, 0.4, 0.8}, Shape{2, 2})}},
      {"InverseWishartCholesky_scale_tril",
       [n](S p) {
         const Tensor lower = Tensor::from(std::vector<double>{1.0, 0.0, 1.0, 1.0}, Shape{2, 2});
         return InverseWishartCholesky(4.5, p[0] * lower).sample(kKey, n);
       },
       {Tensor::from(std::vector<double>{1.2, 0.0, 0.4, 0.8}, Shape{2, 2})}},
  };
}

class PathwiseDraws : public ::testing::TestWithParam<PathwiseCase> {};

TEST_P(PathwiseDraws, MatchCentralDifferencesAtAFixedKey) {
  const PathwiseCase& c = GetParam();
  testing::expect_ad(c.draw, c.params);
}

INSTANTIATE_TEST_SUITE_P(Families, PathwiseDraws, ::testing::ValuesIn(pathwise_cases()),
                         [](const ::testing::TestParamInfo<PathwiseCase>& info) { return info.param.name; });

// A discrete draw (or a mixture's choice of component) has no gradient: differentiating it with
// respect to a tracked parameter throws, naming the family, instead of returning zero.
TEST(DrawGradients, DiscreteDrawsThrowWhenDifferentiated) {
  const Tensor p = Tensor::vec({0.3, 0.6});
  const Tensor count = Tensor::vec({5.0, 8.0});
  auto differentiate = [](const std::function<Tensor(const Tensor&)>& draw, const Tensor& param) {
    grad([&](const Tensor& q) { return sum(cast(draw(q), DType::f64)); }, param);
  };
  EXPECT_ERROR(differentiate([](const Tensor& q) { return Poisson(q).sample(kKey); }, count),
               "Poisson: a draw has no gradient with respect to the parameters");
  EXPECT_ERROR(differentiate([](const Tensor& q) { return Bernoulli::from_probs(q).sample(kKey); }, p),
               "Bernoulli: a draw has no gradient");
  EXPECT_ERROR(differentiate([](const Tensor& q) { return Bernoulli::from_logits(q).sample(kKey); }, p),
               "Bernoulli: a draw has no gradient");
  EXPECT_ERROR(differentiate([&](const Tensor& q) { return Binomial::from_probs(count, q).sample(kKey); }, p),
               "Binomial: a draw has no gradient");
  EXPECT_ERROR(differentiate([](const Tensor& q) { return Geometric::from_probs(q).sample(kKey); }, p),
               "Geometric: a draw has no gradient");
  EXPECT_ERROR(differentiate([&](const Tensor& q) { return NegativeBinomial::from_probs(count, q).sample(kKey); }, p),
               "NegativeBinomial: a draw has no gradient");
  EXPECT_ERROR(differentiate([&](const Tensor& r) { return NegativeBinomial::from_probs(r, p).sample(kKey); }, count),
               "NegativeBinomial: a draw has no gradient");
  EXPECT_ERROR(differentiate([](const Tensor& q) { return Categorical::from_logits(q).sample(kKey, Shape{3}); }, p),
               "Categorical: a draw has no gradient");
  EXPECT_ERROR(differentiate([](const Tensor& q) { return Multinomial::from_logits(4.0, q).sample(kKey); }, p),
               "Multinomial: a draw has no gradient");
  EXPECT_ERROR(differentiate(
                   [](const Tensor& q) {
                     return MixtureSameFamily(q, std::make_shared<Normal>(Tensor::vec({-1.0, 2.0}), 1.0)).sample(kKey);
                   },
                   p),
               "MixtureSameFamily: a draw has no gradient");
  const Tensor x = Tensor::from(std::vector<double>{1.0, 0.5, -0.3, 2.0}, Shape{2, 2});
  EXPECT_ERROR(differentiate([&](const Tensor& w) { return BernoulliLogitGLM(x, w, 0.1).sample(kKey); }, p),
               "BernoulliLogitGLM: a draw has no gradient");
  EXPECT_ERROR(differentiate([](const Tensor& q) { return BetaBinomial(6.0, q, 2.0).sample(kKey); }, p),
               "BetaBinomial: a draw has no gradient");
  EXPECT_ERROR(
      differentiate(
          [](const Tensor& q) { return ZeroInflated::from_probs(std::make_shared<Poisson>(3.0), q).sample(kKey); }, p),
      "ZeroInflated: a draw has no gradient");
  EXPECT_ERROR(
      differentiate(
          [](const Tensor& q) { return ZeroInflated::from_probs(std::make_shared<Poisson>(q), 0.2).sample(kKey); },
          count),
      "Poisson: a draw has no gradient");
  EXPECT_ERROR(differentiate(
                   [](const Tensor& q) {
                     return OrderedLogistic(q, Tensor::vec({-1.0, 1.0})).sample(kKey);
                   },
                   p),
               "OrderedLogistic: a draw has no gradient");
  EXPECT_ERROR(differentiate(
                   [](const Tensor& q) {
                     return OrderedProbit(q, Tensor::vec({-1.0, 1.0})).sample(kKey);
                   },
                   p),
               "OrderedProbit: a draw has no gradient");
  // A mixture draw keeps its pathwise gradient in the components' parameters.
  const Tensor g = grad(
      [](const Tensor& loc) {
        return sum(
            MixtureSameFamily(Tensor::vec({0.0, 0.0}), std::make_shared<Normal>(loc, 1.0)).sample(kKey, Shape{4}));
      },
      Tensor::vec({-1.0, 2.0}));
  EXPECT_EQ(g.at(0) + g.at(1), 4.0);
  // Draws with constant parameters are constants: nothing throws.
  const Tensor w = Tensor::vec({0.5});
  const Tensor gw =
      grad([](const Tensor& v) { return sum(v * cast(Poisson(3.0).sample(kKey, Shape{2}), DType::f64)); }, w);
  EXPECT_TRUE(std::isfinite(gw.item()));
}

// Issue 22: a guide may use any continuous family, so every parameter of every continuous family
// (and of the wrappers a guide builds from them) must give its draws a gradient, or raise when
// differentiated; never a silent zero. The values are checked above (central differences of the
// draw at a fixed key, or of the inverse cdf for the gamma-based families); this sweep checks that
// none is zero or non-finite, each parameter on its own, so a wrapper or family that drops the
// gradient on the way is caught.
struct SweepCase {
  std::string name;
  std::function<Tensor(S)> draw;
  std::vector<Tensor> params;
};

std::vector<SweepCase> sweep_cases() {
  const Shape n{5};
  auto v = [](std::initializer_list<double> x) { return Tensor::vec(x); };
  auto tril = [](S p) { return p[0] * Tensor::from(std::vector<double>{1.0, 0.0, 1.0, 1.0}, Shape{2, 2}); };
  auto spd = [](S p) { return (p[0] + transpose(p[0])) * 0.5; };
  const Tensor l0 = Tensor::from(std::vector<double>{1.2, 0.0, 0.4, 0.8}, Shape{2, 2});
  const Tensor s0 = Tensor::from(std::vector<double>{1.5, 0.3, 0.3, 0.9}, Shape{2, 2});
  return {
      {"Normal", [n](S p) { return Normal(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"LogNormal", [n](S p) { return LogNormal(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({0.6})}},
      {"HalfNormal", [n](S p) { return HalfNormal(p[0]).sample(kKey, n); }, {v({1.7})}},
      {"StudentT", [n](S p) { return StudentT(p[0], p[1], p[2]).sample(kKey, n); }, {v({3.5}), v({0.3}), v({1.7})}},
      {"Cauchy", [n](S p) { return Cauchy(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({0.2})}},
      {"HalfCauchy", [n](S p) { return HalfCauchy(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({0.2})}},
      {"Laplace", [n](S p) { return Laplace(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"Logistic", [n](S p) { return Logistic(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"Gumbel", [n](S p) { return Gumbel(p[0], p[1]).sample(kKey, n); }, {v({0.3}), v({1.7})}},
      {"Exponential", [n](S p) { return Exponential(p[0]).sample(kKey, n); }, {v({2.2})}},
      {"Gamma", [n](S p) { return Gamma(p[0], p[1]).sample(kKey, n); }, {v({2.5}), v({1.3})}},
      {"InverseGamma", [n](S p) { return InverseGamma(p[0], p[1]).sample(kKey, n); }, {v({2.5}), v({1.3})}},
      {"Chi2", [n](S p) { return Chi2(p[0]).sample(kKey, n); }, {v({3.0})}},
      {"Beta", [n](S p) { return Beta(p[0], p[1]).sample(kKey, n); }, {v({1.5}), v({0.7})}},
      {"Dirichlet", [n](S p) { return Dirichlet(p[0]).sample(kKey, n); }, {v({0.5, 2.0, 4.0})}},
      {"Uniform", [n](S p) { return Uniform(p[0], p[1]).sample(kKey, n); }, {v({-1.0}), v({2.5})}},
      {"Weibull", [n](S p) { return Weibull(p[0], p[1]).sample(kKey, n); }, {v({1.3}), v({2.0})}},
      {"Pareto", [n](S p) { return Pareto(p[0], p[1]).sample(kKey, n); }, {v({2.5}), v({0.7})}},
      {"GaussianRandomWalk", [](S p) { return GaussianRandomWalk(p[0], 4).sample(kKey, Shape{2}); }, {v({1.7})}},
      {"MultivariateNormal",
       [n, tril](S p) { return MultivariateNormal::from_scale_tril(p[0], tril(p.subspan(1))).sample(kKey, n); },
       {v({0.3, -1.0}), l0}},
      {"LKJCholesky", [n](S p) { return LKJCholesky(3, p[0]).sample(kKey, n); }, {v({1.7})}},
      {"LKJ", [n](S p) { return LKJ(3, p[0]).sample(kKey, n); }, {v({1.7})}},
      {"Wishart", [n, spd](S p) { return Wishart(p[0], spd(p.subspan(1))).sample(kKey, n); }, {v({4.5}), s0}},
      {"WishartCholesky",
       [n, tril](S p) { return WishartCholesky(p[0], tril(p.subspan(1))).sample(kKey, n); },
       {v({4.5}), l0}},
      {"InverseWishart",
       [n, spd](S p) { return InverseWishart(p[0], spd(p.subspan(1))).sample(kKey, n); },
       {v({4.5}), s0}},
      {"InverseWishartCholesky",
       [n, tril](S p) { return InverseWishartCholesky(p[0], tril(p.subspan(1))).sample(kKey, n); },
       {v({4.5}), l0}},
      {"Truncated_Normal",
       [n](S p) { return Truncated(std::make_shared<Normal>(p[0], p[1]), p[2], p[3]).sample(kKey, n); },
       {v({0.3}), v({1.7}), v({-1.0}), v({2.0})}},
      {"Deterministic", [n](S p) { return Deterministic(p[0]).sample(kKey, n); }, {v({0.3, 1.2})}},
      // Wrappers a guide builds around the implicitly reparameterized families.
      {"Independent_Gamma",
       [](S p) { return Independent(std::make_shared<Gamma>(p[0], p[1]), 1).sample(kKey); },
       {v({0.4, 2.5, 9.0}), v({1.3})}},
      {"Sample_Beta",
       [](S p) { return Sample(std::make_shared<Beta>(p[0], p[1]), Shape{5}).sample(kKey); },
       {v({1.5}), v({0.7})}},
      {"TransformedDistribution_StudentT_Exp",
       [n](S p) {
         return TransformedDistribution(std::make_shared<StudentT>(p[0], p[1], p[2]), std::make_shared<Exp>())
             .sample(kKey, n);
       },
       {v({3.5}), v({0.3}), v({0.5})}},
      {"Reparameterized_Gamma_Softplus",
       [n](S p) {
         return Reparameterized(std::make_shared<Gamma>(p[0], p[1]), std::make_shared<Softplus>()).sample(kKey, n);
       },
       {v({2.5}), v({1.3})}},
      {"Restricted_Sample_Normal_Ordered",
       [](S p) {
         return Restricted(std::make_shared<Sample>(std::make_shared<Normal>(p[0], p[1]), Shape{4}),
                           Constraint::ordered())
             .sample(kKey);
       },
       {v({0.3}), v({1.7})}},
      {"MixtureSameFamily_Dirichlet_components",
       [n](S p) {
         return MixtureSameFamily(Tensor::vec({0.0, 0.0}), std::make_shared<Dirichlet>(p[0])).sample(kKey, n);
       },
       {Tensor::from(std::vector<double>{0.5, 2.0, 1.5, 3.0}, Shape{2, 2})}},
  };
}

TEST(DrawGradients, EveryContinuousFamilyHasANonzeroGradientInEachParameter) {
  for (const SweepCase& c : sweep_cases()) {
    SCOPED_TRACE(c.name);
    const Tensor cotangent = testing::random_tensor(c.draw(c.params).shape(), 41);
    std::vector<Tensor> grads(c.params.size()), scratch;
    value_and_grad([&](S p) { return sum(c.draw(p) * cotangent); }, std::span<const Tensor>(c.params), grads, scratch);
    for (std::size_t k = 0; k < grads.size(); ++k) {
      ASSERT_TRUE(grads[k].defined()) << "parameter " << k << " got no gradient";
      ASSERT_EQ(grads[k].shape(), c.params[k].shape()) << "parameter " << k;
      double largest = 0;
      for (std::int64_t i = 0; i < grads[k].numel(); ++i) {
        EXPECT_TRUE(std::isfinite(grads[k].at(i))) << "parameter " << k << ", element " << i;
        largest = std::max(largest, std::abs(grads[k].at(i)));
      }
      EXPECT_GT(largest, 1e-8) << "parameter " << k << ": a zero gradient where the draw depends on it";
    }
  }
}

// A wrapper passes its base's draw gradients through unchanged: the same key gives the same draws,
// so the gradients are those of the base checked above, bit for bit (or through the bijector's
// derivative).
TEST(DrawGradients, WrappersKeepTheImplicitGradientsOfTheirBase) {
  const Tensor a = Tensor::vec({0.4, 2.5, 9.0}), b = Tensor::vec({0.7, 1.1, 3.0});
  const Tensor c = testing::random_tensor(Shape{3}, 42);
  auto gradient = [&](const std::function<Tensor(const Tensor&)>& draw) {
    return grad([&](const Tensor& p) { return sum(draw(p) * c); }, a);
  };
  const Tensor base = gradient([&](const Tensor& p) { return Gamma(p, 1.3).sample(kKey); });
  const Tensor independent =
      gradient([&](const Tensor& p) { return Independent(std::make_shared<Gamma>(p, 1.3), 1).sample(kKey); });
  const Tensor beta = gradient([&](const Tensor& p) { return Beta(p, b).sample(kKey); });
  const Tensor sampled = gradient(
      [&](const Tensor& p) { return squeeze(Sample(std::make_shared<Beta>(p, b), Shape{1}).sample(kKey), -1); });
  // exp of a gamma draw: d exp(x) / da = exp(x) dx/da.
  const Tensor x = Gamma(a, 1.3).sample(kKey);
  const Tensor exped = gradient([&](const Tensor& p) {
    return TransformedDistribution(std::make_shared<Gamma>(p, 1.3), std::make_shared<Exp>()).sample(kKey);
  });
  for (std::int64_t i = 0; i < 3; ++i) {
    EXPECT_NE(base.at(i), 0.0);
    EXPECT_EQ(independent.at(i), base.at(i));
    EXPECT_NEAR(exped.at(i), std::exp(x.at(i)) * base.at(i), 1e-12 * std::abs(exped.at(i)));
    EXPECT_NE(beta.at(i), 0.0);
  }
  // Sample(Beta, (1)) draws Beta's elements from the same key, with a leading axis of 1.
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_EQ(sampled.at(i), beta.at(i));
}

}  // namespace
}  // namespace variate
