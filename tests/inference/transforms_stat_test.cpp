// Sampling through the declared transforms against distributions known in closed form: ordered
// and positive_ordered supports (order statistics), unit_vector (uniform on the sphere), Cholesky
// factors of covariance matrices, simplex (Dirichlet), a bijector written by the user, and
// offset/multiplier (eight schools non-centered by declaration against the same model non-centered
// by hand).
//
// Tolerances come from Monte Carlo standard errors, as in sampler_stat_test.cpp: an estimate must
// lie within kZ = 5 MCSEs of the truth (false-failure probability 5.7e-7 per comparison; this file
// makes fewer than 100). The seeds are fixed.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>

#include "support/posterior_moments.hpp"
#include "support/test_seed.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/gamma.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

constexpr double kZ = 5.0;

struct Fit {
  Unconstrained space;
  SampleResult result;
};

Fit fit(tracing::Program model, std::uint64_t seed) {
  Unconstrained space(std::move(model));
  const Target target = make_target(space);
  SamplerOptions options;
  options.seed = variate::testing::test_seed(seed);
  SampleResult result = sample(target, options);
  return {std::move(space), std::move(result)};
}

/// Draws of element `index` of `site` ("generated": a deterministic site), [chain][draw]. One draw
/// at a time: the eight schools models below are written for one state (threaded chains), and a
/// space whose bijectors follow other sites runs the program to constrain.
ChainDraws site_draws(const Fit& f, const std::string& site, std::int64_t index = 0, bool generated = false) {
  ChainDraws out;
  for (const ChainResult& c : f.result.chains) {
    const Tensor flat = Tensor::from(c.draws, Shape{c.draw_count(), f.result.dimension});
    std::vector<double> v;
    for (std::int64_t i = 0; i < c.draw_count(); ++i) {
      const Tensor one = reshape(slice(flat, 0, i, i + 1), {f.result.dimension});
      const tracing::Values values = generated ? f.space.generated_quantities(one) : f.space.constrain(one);
      v.push_back(reshape(values.at(site), {-1}).at(index));
    }
    out.push_back(std::move(v));
  }
  return out;
}

void expect_moments(const ChainDraws& x, double mean, double variance, const std::string& what) {
  variate::testing::expect_moments(x, mean, variance, what, kZ);
}

int divergences(const SampleResult& r) {
  int n = 0;
  for (const auto& c : r.chains)
    for (const auto& s : c.stats) n += s.divergent;
  return n;
}

DistributionPtr iid(DistributionPtr d, Shape shape) { return std::make_shared<dist::Sample>(std::move(d), shape); }

// Stan's `ordered[3] c; c ~ normal(0, 1);`: the density of 3 iid normals on ordered vectors, which
// is (up to 3!) the joint density of their order statistics. Means -0.84628, 0, 0.84628 and
// variances 0.55947, 0.44867, 0.55947 (numerical integration of the order statistics' densities
// 3!/((k-1)!(3-k)!) Phi^(k-1) (1-Phi)^(3-k) phi; the means are Harter's 1961 table values).
TEST(TransformsPosterior, OrderedNormalsAreTheirOrderStatistics) {
  auto model = [] { Restricted(iid(std::make_shared<dist::Normal>(0.0, 1.0), {3}), Constraint::ordered(), "c"); };
  const Fit f = fit(model, 21);
  const double mean[] = {-0.8462843753, 0.0, 0.8462843753};
  const double variance[] = {0.5594672038, 0.4486711046, 0.5594672038};
  for (int k = 0; k < 3; ++k)
    expect_moments(site_draws(f, "c", k), mean[k], variance[k], "c[" + std::to_string(k) + "]");
}

// `positive_ordered[3] t; t ~ exponential(1);`: the order statistics of 3 standard exponentials.
// By Renyi's representation Y_(k) = sum_(j<=k) E_j / (3 - j + 1), so the means are 1/3, 5/6, 11/6
// and the variances 1/9, 13/36, 49/36.
TEST(TransformsPosterior, PositiveOrderedExponentialsAreTheirOrderStatistics) {
  auto model = [] {
    Restricted(iid(std::make_shared<dist::Exponential>(1.0), {3}), Constraint::positive_ordered(), "t");
  };
  const Fit f = fit(model, 22);
  const double mean[] = {1.0 / 3, 5.0 / 6, 11.0 / 6};
  const double variance[] = {1.0 / 9, 13.0 / 36, 49.0 / 36};
  for (int k = 0; k < 3; ++k)
    expect_moments(site_draws(f, "t", k), mean[k], variance[k], "t[" + std::to_string(k) + "]");
}

// `unit_vector[3] u;` is uniform on the sphere: each coordinate has mean 0 and E[u_i^2] = 1/3.
// The same through iid normals restricted to the sphere (their density is constant there).
TEST(TransformsPosterior, UnitVectorIsUniformOnTheSphere) {
  auto flat = [] { ImproperUniform(Constraint::unit_vector(), "u", {3}); };
  auto normals = [] { Restricted(iid(std::make_shared<dist::Normal>(0.0, 1.0), {3}), Constraint::unit_vector(), "u"); };
  for (auto [model, seed, what] : {std::tuple{tracing::Program(flat), 23, "ImproperUniform"},
                                   std::tuple{tracing::Program(normals), 24, "Restricted normals"}}) {
    const Fit f = fit(model, std::uint64_t(seed));
    for (int i = 0; i < 3; ++i)
      expect_moments(site_draws(f, "u", i), 0.0, 1.0 / 3, std::string(what) + " u[" + std::to_string(i) + "]");
    EXPECT_EQ(divergences(f.result), 0) << what;
  }
}

// `cholesky_factor_cov[2] L; to_vector(L) ~ normal(0, 1);`: on lower-triangular factors with a
// positive diagonal, the diagonal entries are half-normal (mean sqrt(2/pi), variance 1 - 2/pi) and
// the entry below it standard normal.
TEST(TransformsPosterior, CholeskyFactorOfACovariance) {
  auto model = [] {
    Restricted(iid(std::make_shared<dist::Normal>(0.0, 1.0), {2, 2}), Constraint::lower_cholesky(), "L");
  };
  const Fit f = fit(model, 25);
  const double half_mean = std::sqrt(2 / std::numbers::pi), half_variance = 1 - 2 / std::numbers::pi;
  expect_moments(site_draws(f, "L", 0), half_mean, half_variance, "L[0, 0]");
  expect_moments(site_draws(f, "L", 2), 0.0, 1.0, "L[1, 0]");
  expect_moments(site_draws(f, "L", 3), half_mean, half_variance, "L[1, 1]");
  const ChainDraws upper = site_draws(f, "L", 1);
  for (double v : upper[0]) ASSERT_EQ(v, 0.0);
}

// `simplex[3] p; p ~ dirichlet(alpha);` through the default simplex bijector: p_i has mean
// alpha_i / a and variance alpha_i (a - alpha_i) / (a^2 (a + 1)), a = sum alpha.
TEST(TransformsPosterior, SimplexIsDirichlet) {
  const double alpha[] = {1.5, 2.0, 3.5}, a = 7.0;
  auto model = [&] { Dirichlet(Tensor::vec({alpha[0], alpha[1], alpha[2]}), "p"); };
  const Fit f = fit(model, 29);
  EXPECT_EQ(divergences(f.result), 0);
  for (int i = 0; i < 3; ++i)
    expect_moments(site_draws(f, "p", i), alpha[i] / a, alpha[i] * (a - alpha[i]) / (a * a * (a + 1)),
                   "p[" + std::to_string(i) + "]");
}

// A bijector written by a user, as the Bijector interface asks: y = x + sqrt(1 + x^2) = exp(asinh x)
// maps the real line onto (0, inf), with x = (y - 1/y) / 2 and dy/dx = y / sqrt(1 + x^2). (For
// x below about -1e4 the sum cancels; a Gamma(3, 2) site never goes there.)
class SinhPositive final : public Bijector {
 public:
  const char* name() const override { return "SinhPositive"; }
  Tensor forward(const Tensor& x) const override { return x + sqrt(1.0 + square(x)); }
  Tensor inverse(const Tensor& y) const override { return 0.5 * (y - 1.0 / y); }
  Tensor forward_log_det_jacobian(const Tensor& x) const override { return log(forward(x)) - 0.5 * log1p(square(x)); }
  Constraint forward_image(const Constraint& domain) const override {
    return domain.kind == Constraint::Kind::real ? Constraint::positive() : Bijector::forward_image(domain);
  }
};

// A Gamma(3, 2) site sampled through the user's bijector (Reparameterized): mean 3/2, variance
// 3/4. A missing or wrong log|det J| would shift both.
TEST(TransformsPosterior, AUserBijectorGivesTheBaseDistribution) {
  auto model = [] { Reparameterized(std::make_shared<dist::Gamma>(3.0, 2.0), std::make_shared<SinhPositive>(), "g"); };
  const Fit f = fit(model, 30);
  EXPECT_EQ(divergences(f.result), 0);
  EXPECT_STREQ(f.space.sites()[0].bijector->name(), "SinhPositive");
  expect_moments(site_draws(f, "g"), 1.5, 0.75, "g");
}

// Eight schools (Rubin 1981; Stan's example): mu ~ N(0, 5), tau ~ HalfCauchy(0, 5),
// theta_j ~ N(mu, tau), y_j ~ N(theta_j, sigma_j).
const double kY[] = {28, 8, -3, 7, -1, 1, 18, 12};
const double kSigma[] = {15, 10, 16, 11, 9, 11, 10, 18};

enum class Schools { centered, declared, by_hand };

tracing::Program eight_schools(Schools how) {
  return [how] {
    const Tensor y = Tensor::from(std::vector<double>(std::begin(kY), std::end(kY)), Shape{8});
    const Tensor sigma = Tensor::from(std::vector<double>(std::begin(kSigma), std::end(kSigma)), Shape{8});
    auto mu = Normal(0.0, 5.0, "mu");
    auto tau = HalfCauchy(0.0, 5.0, "tau");
    Tensor theta;
    switch (how) {
      case Schools::centered: theta = Normal(mu, tau, "theta", {8}); break;
      // Stan's `vector<offset=mu, multiplier=tau>[8] theta; theta ~ normal(mu, tau);`
      case Schools::declared:
        theta = WithOffsetMultiplier(std::make_shared<dist::Normal>(mu, tau), mu, tau, "theta", {8});
        break;
      case Schools::by_hand: {
        auto z = Normal(0.0, 1.0, "z", {8});
        theta = Deterministic(mu + tau * Tensor(z), "theta");
        break;
      }
    }
    tracing::Condition data({{"y", y}});
    Normal(theta, sigma, "y");
  };
}

// Two estimates of the same posterior mean agree within kZ combined MCSEs.
void expect_same_mean(const ChainDraws& a, const ChainDraws& b, const std::string& what) {
  const double se = std::sqrt(mcse_mean(a) * mcse_mean(a) + mcse_mean(b) * mcse_mean(b));
  EXPECT_NEAR(variate::testing::mean_of(a), variate::testing::mean_of(b), kZ * se) << what;
  EXPECT_LT(rhat(a), 1.01) << what;
}

TEST(TransformsPosterior, EightSchoolsNonCenteredByDeclaration) {
  const Fit centered = fit(eight_schools(Schools::centered), 26);
  const Fit declared = fit(eight_schools(Schools::declared), 27);
  const Fit by_hand = fit(eight_schools(Schools::by_hand), 28);
  EXPECT_FALSE(declared.space.static_supports());  // the bijector follows mu and tau
  // The same posterior as the model non-centered by hand, where both samplers are reliable.
  expect_same_mean(site_draws(declared, "mu"), site_draws(by_hand, "mu"), "mu");
  expect_same_mean(site_draws(declared, "tau"), site_draws(by_hand, "tau"), "tau");
  for (int j : {0, 2}) {
    const std::string name = "theta[" + std::to_string(j) + "]";
    expect_same_mean(site_draws(declared, "theta", j), site_draws(by_hand, "theta", j, /*generated=*/true), name);
  }
  // Declaring the non-centering removes the funnel the centered model's sampler diverges in.
  const int centered_divergences = divergences(centered.result), declared_divergences = divergences(declared.result);
  EXPECT_GT(centered_divergences, 0);
  EXPECT_LT(declared_divergences, centered_divergences);
}

}  // namespace
}  // namespace variate::inference
