// Every distribution family and bijector takes make_target's fast path: a model built on each, its
// parameters computed from latent values (so that nothing is constant), is recorded once and then
// replayed (tensor/replay.hpp), and each replay gives the value and gradient, bit for bit, that a
// fresh evaluation of the model gives. A family whose evaluation reads computed values on the host
// (a check not made with host_check) would be evaluated through the tracers at every call instead.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/invert.hpp"
#include "variate/distributions/lower_cholesky.hpp"
#include "variate/distributions/mixture_same_family.hpp"
#include "variate/distributions/multivariate_normal.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/ordered.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/distributions/stick_breaking.hpp"
#include "variate/distributions/transformed_distribution.hpp"
#include "variate/inference/target.hpp"
#include "variate/tensor/replay.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

// The site "y" observed at `y`.
template <class Site>
void observe(const Tensor& y, Site site) {
  tracing::Condition data({{"y", y}});
  site();
}

// A location on the real line and a positive scale, the parameters most rows compute from.
struct Latents {
  Tensor mu, s;
};
Latents latents() { return {Normal(0.0, 1.0, "mu"), HalfNormal(1.0, "s")}; }

// A squared-exponential kernel on n points in [0, 1], amplitude and length scale latent, with the
// noise variance on its diagonal: a Gaussian process's covariance.
Tensor gp_covariance(std::int64_t n, const Tensor& amplitude, const Tensor& length_scale, const Tensor& noise) {
  std::vector<double> points;
  for (std::int64_t i = 0; i < n; ++i) points.push_back(double(i) / double(n - 1));
  const Tensor x = Tensor::from(points, Shape{n});
  const Tensor d = expand_dims(x, -1) - expand_dims(x, 0);
  std::vector<double> identity(std::size_t(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) identity[std::size_t(i * n + i)] = 1.0;
  return square(amplitude) * exp(-0.5 * square(d / length_scale)) +
         (square(noise) + 1e-6) * Tensor::from(identity, Shape{n, n});
}

tracing::Program gp(std::int64_t n, bool from_covariance) {
  std::vector<double> y;
  for (std::int64_t i = 0; i < n; ++i) y.push_back(std::sin(3.0 * double(i) / double(n)));
  return [n, from_covariance, y = Tensor::from(y, Shape{n})] {
    auto amplitude = HalfNormal(1.0, "amplitude");
    auto length_scale = LogNormal(-1.0, 0.5, "length_scale");
    auto noise = HalfNormal(0.5, "noise");
    const Tensor k = gp_covariance(n, amplitude, length_scale, noise);
    const Tensor zero = Tensor::zeros(Shape{n});
    observe(y, [&] {
      if (from_covariance) {
        MultivariateNormalFullCovariance(zero, k, "y");
      } else {
        MultivariateNormalTriL(zero, cholesky(k), "y");
      }
    });
  };
}

RandomVariable rv(DistributionPtr d, const char* name, Shape sample_shape = {}) {
  return RandomVariable(std::move(d), name, std::move(sample_shape));
}

struct FamilyModel {
  std::string family;
  tracing::Program program;
};

std::vector<FamilyModel> family_models() {
  const Tensor reals = Tensor::vec({0.5, -1.2, 2.0});
  const Tensor positives = Tensor::vec({0.5, 1.2, 2.0});
  const Tensor unit = Tensor::vec({0.2, 0.5, 0.9});
  std::vector<FamilyModel> rows;
  const auto row = [&](std::string family, tracing::Program program) {
    rows.push_back({std::move(family), std::move(program)});
  };
  // Continuous families, observed.
  row("Normal", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] { Normal(mu, s, "y", {3}); });
  });
  row("HalfNormal", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] { HalfNormal(s, "y", {3}); });
  });
  row("LogNormal", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] { LogNormal(mu, s, "y", {3}); });
  });
  row("StudentT", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] { StudentT(1.0 + s, mu, s, "y", {3}); });
  });
  row("Cauchy", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] { Cauchy(mu, s, "y", {3}); });
  });
  row("HalfCauchy", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] { HalfCauchy(0.0, s, "y", {3}); });
  });
  row("Laplace", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] { Laplace(mu, s, "y", {3}); });
  });
  row("Logistic", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] { Logistic(mu, s, "y", {3}); });
  });
  row("Exponential", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] { Exponential(s, "y", {3}); });
  });
  row("Gamma", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] { Gamma(s, 1.0 + s, "y", {3}); });
  });
  row("InverseGamma", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] { InverseGamma(1.0 + s, s, "y", {3}); });
  });
  row("Beta", [=] {
    auto [mu, s] = latents();
    observe(unit, [&] { Beta(s, 1.0 + s, "y", {3}); });
  });
  row("Uniform", [=] {
    auto [mu, s] = latents();
    observe(unit, [&] { Uniform(mu - 3.0, mu + 3.0, "y", {3}); });
  });
  row("Chi2", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] { Chi2(1.0 + s, "y", {3}); });
  });
  row("Weibull", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] { Weibull(1.0 + s, s, "y", {3}); });
  });
  // Latent sites on each constrained support: their default bijectors run in every evaluation.
  row("latent Uniform (Interval)", [] {
    auto u = Uniform(-1.0, 2.0, "u");
    Normal(u, 1.0, "z");
  });
  row("latent Beta (Sigmoid)", [] {
    auto p = Beta(2.0, 3.0, "p");
    observe(Tensor::vec({1.0, 0.0, 1.0}), [&] { Bernoulli(Probs{p}, "y", {3}); });
  });
  row("latent shifted Exponential (Shift, Exp)", [] {
    auto t = RandomVariable(std::make_shared<dist::TransformedDistribution>(std::make_shared<dist::Exponential>(1.0),
                                                                            std::make_shared<dist::Shift>(2.0)),
                            "t");
    Normal(t, 1.0, "z");
  });
  // Discrete families, observed, their probabilities or rates computed.
  row("Bernoulli probs", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    observe(Tensor::vec({1.0, 0.0, 1.0}), [&] { Bernoulli(Probs{sigmoid(mu)}, "y", {3}); });
  });
  row("Bernoulli logits", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    observe(Tensor::vec({1.0, 0.0, 1.0}), [&] { Bernoulli(Logits{mu}, "y", {3}); });
  });
  row("Binomial probs", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    observe(Tensor::vec({1.0, 4.0, 2.0}), [&] { Binomial(5.0, Probs{sigmoid(mu)}, "y", {3}); });
  });
  row("Binomial logits", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    observe(Tensor::vec({1.0, 4.0, 2.0}), [&] { Binomial(5.0, Logits{mu}, "y", {3}); });
  });
  row("Categorical probs", [] {
    auto v = Normal(0.0, 1.0, "v", {3});
    observe(Tensor::vec({0, 2, 1, 2}), [&] { Categorical(Probs{softmax(v)}, "y", {4}); });
  });
  row("Categorical logits", [] {
    auto v = Normal(0.0, 1.0, "v", {3});
    observe(Tensor::vec({0, 2, 1, 2}), [&] { Categorical(Logits{v}, "y", {4}); });
  });
  row("Poisson", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    observe(Tensor::vec({0.0, 3.0, 1.0}), [&] { Poisson(exp(mu), "y", {3}); });
  });
  row("NegativeBinomial probs", [] {
    auto [mu, s] = latents();
    observe(Tensor::vec({0.0, 3.0, 1.0}), [&] { NegativeBinomial(s, Probs{sigmoid(mu)}, "y", {3}); });
  });
  row("NegativeBinomial logits", [] {
    auto [mu, s] = latents();
    observe(Tensor::vec({0.0, 3.0, 1.0}), [&] { NegativeBinomial(s, Logits{mu}, "y", {3}); });
  });
  row("Geometric probs", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    observe(Tensor::vec({0.0, 3.0, 1.0}), [&] { Geometric(Probs{sigmoid(mu)}, "y", {3}); });
  });
  row("Geometric logits", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    observe(Tensor::vec({0.0, 3.0, 1.0}), [&] { Geometric(Logits{mu}, "y", {3}); });
  });
  row("BernoulliLogitGLM", [] {
    const Tensor x = Tensor::from(std::vector<double>{0.5, -1.0, 1.5, 0.2, -0.3, 0.8}, Shape{3, 2});
    auto w = Normal(0.0, 1.0, "w", {2});
    auto alpha = Normal(0.0, 1.0, "alpha");
    observe(Tensor::vec({1.0, 0.0, 1.0}), [&] { BernoulliLogitGLM(x, w, alpha, "y"); });
  });
  row("CategoricalLogitGLM", [] {
    const Tensor x = Tensor::from(std::vector<double>{0.5, -1.0, 1.5, 0.2, -0.3, 0.8}, Shape{3, 2});
    auto w = Normal(0.0, 1.0, "w", {2, 3});
    auto b = Normal(0.0, 1.0, "b", {3});
    observe(Tensor::vec({0, 2, 1}), [&] { CategoricalLogitGLM(x, w, b, "y"); });
  });
  // Multivariate families.
  row("Dirichlet", [] {
    auto v = Normal(0.0, 1.0, "v", {3});
    auto p = Dirichlet(exp(v), "p");  // latent: StickBreaking
    observe(Tensor::vec({0.2, 0.3, 0.5}), [&] { Dirichlet(1.0 + exp(v), "y"); });
    (void)p;
  });
  row("Multinomial probs", [] {
    auto v = Normal(0.0, 1.0, "v", {3});
    observe(Tensor::vec({1.0, 3.0, 2.0}), [&] { Multinomial(6.0, Probs{softmax(v)}, "y"); });
  });
  row("Multinomial logits", [] {
    auto v = Normal(0.0, 1.0, "v", {3});
    observe(Tensor::vec({1.0, 3.0, 2.0}), [&] { Multinomial(6.0, Logits{v}, "y"); });
  });
  row("MultivariateNormal, scale_tril = cholesky(K(theta))", gp(5, false));
  row("MultivariateNormal, covariance_matrix = K(theta)", gp(5, true));
  row("MultivariateNormal, scale_tril = diag(tau) L with L ~ LKJCholesky", [] {
    auto tau = HalfNormal(1.0, "tau", {3});
    auto l = LKJCholesky(3, 2.0, "L");  // latent: CorrCholesky
    auto mu = Normal(0.0, 1.0, "mu", {3});
    observe(Tensor::vec({0.5, -1.0, 0.3}), [&] { MultivariateNormalTriL(mu, expand_dims(tau, -1) * l, "y"); });
  });
  row("MultivariateNormal, latent scale_tril (LowerCholesky)", [] {
    auto base = std::make_shared<dist::Independent>(std::make_shared<dist::Normal>(Tensor::zeros(Shape{6}), 1.0), 1);
    auto l = RandomVariable(
        std::make_shared<dist::TransformedDistribution>(base, std::make_shared<dist::LowerCholesky>()), "L");
    observe(Tensor::vec({0.5, -1.0, 0.3}), [&] { MultivariateNormalTriL(Tensor::zeros(Shape{3}), l, "y"); });
  });
  row("MultivariateNormal, scale_diag", [] {
    auto [mu, s] = latents();
    observe(Tensor::vec({0.5, -1.0, 0.3}), [&] {
      MultivariateNormalDiag(mu * Tensor::ones(Shape{3}), s * Tensor::vec({1.0, 2.0, 0.5}), "y");
    });
  });
  row("LKJCholesky", [] {
    auto s = HalfNormal(1.0, "s");
    LKJCholesky(3, 1.0 + s, "L");
  });
  // Issue 20.
  row("Gumbel", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] { Gumbel(mu, s, "y", {3}); });
  });
  row("VonMises", [] {
    auto [mu, s] = latents();
    observe(Tensor::vec({0.3, -2.0, 2.9}), [&] { VonMises(mu, 1.0 + s, "y", {3}); });
  });
  row("latent VonMises (interval)", [] {
    auto s = HalfNormal(1.0, "s");
    auto angle = VonMises(0.5, 1.0 + s, "angle");
    Normal(angle, 1.0, "z");
  });
  row("Pareto", [=] {
    auto [mu, s] = latents();
    observe(Tensor::vec({2.5, 3.2, 4.0}), [&] { Pareto(1.0 + s, 1.0 + 0.5 * sigmoid(mu), "y", {3}); });
  });
  row("latent Pareto (Shift, Exp)", [] {
    auto s = HalfNormal(1.0, "s");
    auto x = Pareto(2.0, 1.0 + s, "x");
    Normal(x, 1.0, "z");
  });
  row("BetaBinomial", [] {
    auto [mu, s] = latents();
    observe(Tensor::vec({1.0, 4.0, 2.0}), [&] { BetaBinomial(5.0, 1.0 + s, exp(mu), "y", {3}); });
  });
  row("ZeroInflatedPoisson", [] {
    auto [mu, s] = latents();
    observe(Tensor::vec({0.0, 3.0, 1.0}), [&] { ZeroInflatedPoisson(exp(mu), Probs{sigmoid(s)}, "y", {3}); });
  });
  row("ZeroInflatedNegativeBinomial", [] {
    auto [mu, s] = latents();
    observe(Tensor::vec({0.0, 3.0, 1.0}), [&] { ZeroInflatedNegativeBinomial(s, Logits{mu}, Logits{-mu}, "y", {3}); });
  });
  row("OrderedLogistic", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    auto gaps = HalfNormal(1.0, "gaps", {2});
    observe(Tensor::vec({0.0, 2.0, 1.0}), [&] {
      OrderedLogistic(mu, cumsum(concat({Tensor::vec({-1.0}), gaps}, 0), 0), "y", {3});
    });
  });
  row("OrderedProbit", [] {
    auto mu = Normal(0.0, 1.0, "mu");
    auto gaps = HalfNormal(1.0, "gaps", {2});
    observe(Tensor::vec({0.0, 2.0, 1.0}), [&] {
      OrderedProbit(mu, cumsum(concat({Tensor::vec({-1.0}), gaps}, 0), 0), "y", {3});
    });
  });
  row("GaussianRandomWalk (latent)", [] {
    auto s = HalfNormal(1.0, "s");
    auto path = GaussianRandomWalk(s, 4, "path");
    observe(Tensor::vec({0.5, -1.0, 0.3, 1.0}), [&] { Normal(path, 1.0, "y"); });
  });
  row("Truncated Normal, observed", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] { Truncated(std::make_shared<dist::Normal>(mu, s), Tensor(-3.0), mu + 5.0, "y", {3}); });
  });
  row("Truncated Normal, latent (Interval, greater_than, less_than)", [] {
    auto [mu, s] = latents();
    auto a = Truncated(std::make_shared<dist::Normal>(mu, s), mu - 1.0, mu + 2.0, "a");
    // Windows that hold most of the base's mass whatever the latents (Truncated's limitation: a
    // window far in the upper tail loses its digits).
    auto b = Truncated(std::make_shared<dist::Normal>(mu, s), mu - 1.0, std::nullopt, "b");
    auto c = Truncated(std::make_shared<dist::Normal>(mu, s), std::nullopt, mu + 1.0, "c");
    Normal(a + b + c, 1.0, "z");
  });
  // Matrices and Gaussian processes (issue 20): latent sites on corr_matrix, positive_definite and
  // lower_cholesky, observed sites with computed parameters, kernels with latent hyperparameters.
  const Tensor scale = Tensor::from(std::vector<double>{1.5, 0.3, 0.3, 0.9}, Shape{2, 2});
  const Tensor spd = Tensor::from(std::vector<double>{1.2, -0.4, -0.4, 2.0}, Shape{2, 2});
  const Tensor tril = Tensor::from(std::vector<double>{1.1, 0.0, -0.36, 1.36}, Shape{2, 2});
  row("LKJ (latent: CorrMatrix)", [] {
    auto s = HalfNormal(1.0, "s");
    LKJ(3, 1.0 + s, "Omega");
  });
  row("Wishart", [=] {
    auto s = HalfNormal(1.0, "s");
    Wishart(3.0 + s, scale, "W");  // latent: Chain(CholeskyOuterProduct, LowerCholesky)
    observe(spd, [&] { Wishart(3.0 + s, (1.0 + s) * scale, "y"); });
  });
  row("InverseWishart", [=] {
    auto s = HalfNormal(1.0, "s");
    InverseWishart(3.0 + s, scale, "W");
    observe(spd, [&] { InverseWishart(3.0 + s, (1.0 + s) * scale, "y"); });
  });
  row("WishartCholesky", [=] {
    auto s = HalfNormal(1.0, "s");
    WishartCholesky(3.0 + s, cholesky(scale), "L");  // latent: LowerCholesky
    observe(tril, [&] { WishartCholesky(3.0 + s, (1.0 + s) * cholesky(scale), "y"); });
  });
  row("InverseWishartCholesky", [=] {
    auto s = HalfNormal(1.0, "s");
    InverseWishartCholesky(3.0 + s, cholesky(scale), "L");
    observe(tril, [&] { InverseWishartCholesky(3.0 + s, (1.0 + s) * cholesky(scale), "y"); });
  });
  const Tensor gp_x = Tensor::vec({0.0, 0.3, 0.5, 0.9, 1.4});
  row("GaussianProcess (ExponentiatedQuadratic), observed", [=] {
    auto amplitude = HalfNormal(1.0, "amplitude");
    auto length_scale = LogNormal(-1.0, 0.5, "length_scale");
    auto noise = HalfNormal(0.5, "noise");
    observe(Tensor::vec({0.1, 0.4, 0.3, -0.2, -0.6}), [&] {
      GaussianProcess(dist::ExponentiatedQuadratic(amplitude, length_scale), gp_x, square(noise), {}, "y");
    });
  });
  row("GaussianProcess (Matern12, Matern32, Matern52), latent f", [=] {
    auto amplitude = HalfNormal(1.0, "amplitude");
    auto length_scale = LogNormal(-1.0, 0.5, "length_scale");
    auto mu = Normal(0.0, 1.0, "mu");
    auto f = GaussianProcess(dist::Matern12(amplitude, length_scale), gp_x, 0.0, mu, "f");
    auto g = GaussianProcess(dist::Matern32(amplitude, length_scale), gp_x, 0.0, {}, "g");
    observe(Tensor::vec({0.1, 0.4, 0.3, -0.2, -0.6}),
            [&] { GaussianProcess(dist::Matern52(amplitude, length_scale), gp_x, 0.1, f + g, "y"); });
  });
  row("GaussianProcess (Periodic), observed", [=] {
    auto amplitude = HalfNormal(1.0, "amplitude");
    auto length_scale = LogNormal(-1.0, 0.5, "length_scale");
    auto period = LogNormal(0.0, 0.3, "period");
    observe(Tensor::vec({0.1, 0.4, 0.3, -0.2, -0.6}),
            [&] { GaussianProcess(dist::Periodic(amplitude, length_scale, period), gp_x, 0.1, {}, "y"); });
  });
  // Wrappers. (Deterministic has no row: as a latent site its value is a coordinate of its own, whose
  // density is -inf away from loc, and as an observed site it is that constant.)
  row("Independent", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] {
      rv(std::make_shared<dist::Independent>(std::make_shared<dist::Normal>(mu * positives, s), 1), "y");
    });
  });
  row("Sample", [=] {
    auto [mu, s] = latents();
    observe(reals, [&] { rv(std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(mu, s), Shape{3}), "y"); });
  });
  row("TransformedDistribution (Exp)", [=] {
    auto [mu, s] = latents();
    observe(positives, [&] {
      rv(std::make_shared<dist::TransformedDistribution>(std::make_shared<dist::Normal>(mu, s),
                                                         std::make_shared<dist::Exp>()),
         "y", {3});
    });
  });
  row("TransformedDistribution (Shift, Scale), latent", [] {
    // The non-centred parametrization: z = mu + s * eps, eps ~ Normal(0, 1).
    auto [mu, s] = latents();
    auto bijector = std::make_shared<dist::Chain>(
        std::vector<BijectorPtr>{std::make_shared<dist::Shift>(mu), std::make_shared<dist::Scale>(s)});
    auto z = rv(std::make_shared<dist::TransformedDistribution>(std::make_shared<dist::Normal>(0.0, 1.0), bijector),
                "z", {3});
    observe(Tensor::vec({0.5, -1.0, 0.3}), [&] { Normal(z, 1.0, "y"); });
  });
  row("TransformedDistribution (Scale, Exp), observed", [=] {
    auto [mu, s] = latents();
    auto bijector = std::make_shared<dist::Chain>(
        std::vector<BijectorPtr>{std::make_shared<dist::Scale>(s), std::make_shared<dist::Exp>()});
    observe(positives, [&] {
      rv(std::make_shared<dist::TransformedDistribution>(std::make_shared<dist::Normal>(mu, 1.0), bijector), "y", {3});
    });
  });
  row("TransformedDistribution (Sigmoid, Tanh, Softplus)", [=] {
    auto [mu, s] = latents();
    const auto normal = [&] { return std::make_shared<dist::Normal>(mu, s); };
    observe(unit, [&] {
      rv(std::make_shared<dist::TransformedDistribution>(normal(), std::make_shared<dist::Sigmoid>()), "y", {3});
    });
    tracing::Condition data({{"y2", Tensor::vec({0.2, -0.5, 0.9})}, {"y3", positives}});
    rv(std::make_shared<dist::TransformedDistribution>(normal(), std::make_shared<dist::Tanh>()), "y2", {3});
    rv(std::make_shared<dist::TransformedDistribution>(normal(), std::make_shared<dist::Softplus>()), "y3", {3});
  });
  row("TransformedDistribution (Invert)", [=] {
    // log(t - mu) for t on (mu, inf): Invert compares the bounds of its image, computed from mu.
    auto [mu, s] = latents();
    auto shifted = std::make_shared<dist::TransformedDistribution>(std::make_shared<dist::Exponential>(s),
                                                                   std::make_shared<dist::Shift>(mu));
    auto chain = std::make_shared<dist::Chain>(
        std::vector<BijectorPtr>{std::make_shared<dist::Shift>(mu), std::make_shared<dist::Exp>()});
    observe(reals, [&] {
      rv(std::make_shared<dist::TransformedDistribution>(shifted, std::make_shared<dist::Invert>(chain)), "y", {3});
    });
  });
  row("TransformedDistribution (StickBreaking)", [] {
    auto v = Normal(0.0, 1.0, "v", {2});
    auto base = std::make_shared<dist::Independent>(std::make_shared<dist::Normal>(v, 1.0), 1);
    observe(Tensor::vec({0.2, 0.3, 0.5}), [&] {
      RandomVariable(std::make_shared<dist::TransformedDistribution>(base, std::make_shared<dist::StickBreaking>()),
                     "y");
    });
  });
  // Declared transforms: restricted supports (their default bijectors), an improper site on a
  // vector support, and a bijector chosen for the site and computed from other sites.
  row("Restricted ordered (Ordered)", [=] {
    auto [mu, s] = latents();
    auto c = Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(mu, s), Shape{3}),
                        Constraint::ordered(), "c");
    observe(reals, [&] { Normal(c, 1.0, "y"); });
  });
  row("Restricted positive_ordered (PositiveOrdered)", [=] {
    auto [mu, s] = latents();
    auto c = Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Exponential>(s), Shape{3}),
                        Constraint::positive_ordered(), "c");
    observe(reals, [&] { Normal(c + mu, 1.0, "y"); });
  });
  row("ImproperUniform unit_vector (UnitVector)", [=] {
    auto [mu, s] = latents();
    auto u = ImproperUniform(Constraint::unit_vector(), "u", {3});
    observe(reals, [&] { Normal(u * mu, s, "y"); });
  });
  row("Restricted lower_cholesky (LowerCholesky)", [] {
    auto s = HalfNormal(1.0, "s");
    auto l = Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(0.0, s), Shape{3, 3}),
                        Constraint::lower_cholesky(), "L");
    observe(Tensor::vec({0.5, -1.0, 0.3}), [&] { MultivariateNormalTriL(Tensor::zeros(Shape{3}), l, "y"); });
  });
  row("Reparameterized (OffsetMultiplier), offset and multiplier latent", [=] {
    auto [mu, s] = latents();
    auto theta = WithOffsetMultiplier(std::make_shared<dist::Normal>(mu, s), mu, s, "theta", {3});
    observe(reals, [&] { Normal(theta, 1.0, "y"); });
  });
  row("Reparameterized (Ordered) on a Restricted site", [=] {
    auto [mu, s] = latents();
    auto base = std::make_shared<dist::Restricted>(
        std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(mu, s), Shape{3}), Constraint::ordered());
    auto c = Reparameterized(base, std::make_shared<dist::Ordered>(), "c");
    observe(reals, [&] { Normal(c, 1.0, "y"); });
  });
  row("MixtureSameFamily", [=] {
    auto logits = Normal(0.0, 1.0, "logits", {3});
    auto locs = Normal(0.0, 2.0, "locs", {3});
    auto s = HalfNormal(1.0, "s");
    observe(Tensor::vec({0.5, -1.0, 2.0, 0.1}), [&] {
      rv(std::make_shared<dist::MixtureSameFamily>(logits, std::make_shared<dist::Normal>(locs, s)), "y", {4});
    });
  });
  return rows;
}

// Why recording one gradient of `space` at `x` gives no replay; empty if it gives one.
std::string why_not_replayable(const Unconstrained& space, const Tensor& x) {
  KernelRecorder recorder(x);
  auto r = vjp([&](const Tensor& p) { return space.log_density(p); }, Tensor::ones(Shape{}), x);
  return recorder.finish({r.value, r.grads[0]}) != nullptr ? std::string() : recorder.why_not();
}

// The k-th of the positions the rows are evaluated at: all coordinates differ, none far from 0.
std::vector<double> position(std::int64_t dimension, int k) {
  std::vector<double> x(std::size_t(dimension), 0.0);
  for (std::int64_t i = 0; i < dimension; ++i) x[std::size_t(i)] = 0.4 * std::sin(1.3 * double(i) + 0.7 * k + 0.3);
  return x;
}

// Records a gradient of the row's model, then replays it at other positions, each time against a
// fresh evaluation.
void expect_replayed(const FamilyModel& row) {
  const Unconstrained space(row.program);
  const std::int64_t d = space.dimension();
  ASSERT_EQ(why_not_replayable(space, Tensor::from(position(d, 0), Shape{d})), "");
  const Target target = make_target(space);
  constexpr int kCalls = 4;
  for (int k = 0; k < kCalls; ++k) {
    SCOPED_TRACE("call " + std::to_string(k));
    const std::vector<double> x = position(d, k);
    double lp = 0;
    std::vector<double> g(std::size_t(d), 0.0);
    target.evaluate(x, 1, {&lp, 1}, g);
    const auto fresh = value_and_grad([&](const Tensor& p) { return space.log_density(p); }, Tensor::from(x, Shape{d}));
    ASSERT_TRUE(std::isfinite(lp));
    EXPECT_EQ(lp, fresh.value.item());
    for (std::int64_t i = 0; i < d; ++i)
      EXPECT_EQ(g[std::size_t(i)], fresh.grads[0].data<double>()[i]) << "coordinate " << i;
  }
  EXPECT_EQ(target.replayed_calls(), kCalls - 1);
}

TEST(TargetReplayFamilies, EveryFamilysModelIsReplayedAndMatchesAFreshEvaluation) {
  for (const FamilyModel& row : family_models()) {
    SCOPED_TRACE(row.family);
    expect_replayed(row);
  }
}

// One gradient of `target` at x (its log density).
double evaluate(const Target& target, std::vector<double> x) {
  double lp = 0;
  std::vector<double> g(x.size(), 0.0);
  target.evaluate(x, 1, {&lp, 1}, g);
  return lp;
}

Tensor matrix(std::vector<double> entries) { return Tensor::from(entries, Shape{2, 2}); }

// Checks on computed parameters run again at each replay (host_check), or make it fall back to an
// evaluation (a Cholesky factorization that fails), and throw what the evaluation throws.
TEST(TargetReplayFamilies, ReplayedChecksOfComputedParametersThrowAsTheEvaluationDoes) {
  // The priors keep the values the spaces are traced at valid.
  // scale_tril = diag(sigma) L with sigma on the real line: a negative sigma makes a negative diagonal.
  const Unconstrained tril([] {
    auto sigma = Normal(3.0, 0.1, "sigma", {2});
    observe(Tensor::vec({0.5, -1.0}), [&] {
      MultivariateNormalTriL(Tensor::zeros(Shape{2}), expand_dims(sigma, -1) * matrix({1, 0, 0.5, 0.8}), "y");
    });
  });
  // covariance_matrix = [[a, 0.9], [0.9, 1]]: positive definite only for a > 0.81.
  const Unconstrained definite([] {
    auto a = Normal(2.0, 0.1, "a");
    observe(Tensor::vec({0.5, -1.0}), [&] {
      MultivariateNormalFullCovariance(Tensor::zeros(Shape{2}), a * matrix({1, 0, 0, 0}) + matrix({0, 0.9, 0.9, 1}),
                                       "y");
    });
  });
  // covariance_matrix = [[2, 0.5 + max(c, 0)], [0.5, 2]]: symmetric only for c <= 0.
  const Unconstrained symmetric([] {
    auto c = Normal(-10.0, 0.1, "c");
    observe(Tensor::vec({0.5, -1.0}), [&] {
      MultivariateNormalFullCovariance(Tensor::zeros(Shape{2}),
                                       maximum(c, Tensor(0.0)) * matrix({0, 1, 0, 0}) + matrix({2, 0.5, 0.5, 2}), "y");
    });
  });
  // mixture_logits = exp(v), +inf once v is large.
  const Unconstrained mixture([] {
    auto v = Normal(0.0, 1.0, "v", {2});
    observe(Tensor(0.5), [&] {
      rv(std::make_shared<dist::MixtureSameFamily>(exp(v), std::make_shared<dist::Normal>(Tensor::vec({-1, 1}), 1.0)),
         "y");
    });
  });
  struct Case {
    const Unconstrained& space;
    std::vector<double> good, bad;
    const char* error;
  };
  for (const Case& c : {
           Case{tril,
                {1, 1},
                {1, -2},
                "MultivariateNormal: scale_tril must be lower triangular with a positive diagonal, got -1.6 at (1, 1)"},
           Case{definite, {2}, {0.5}, "MultivariateNormal: covariance_matrix must be positive definite"},
           Case{symmetric,
                {-1},
                {0.2},
                "MultivariateNormal: covariance_matrix must be symmetric, got entries (0, 1) = 0.7"},
           Case{mixture, {0, 0}, {800, 0}, "MixtureSameFamily: mixture_logits must be below +inf, got inf at index 0"},
       }) {
    SCOPED_TRACE(c.error);
    EXPECT_ERROR((void)value_and_grad([&](const Tensor& p) { return c.space.log_density(p); },
                                      Tensor::from(c.bad, Shape{std::int64_t(c.bad.size())})),
                 c.error);
    const Target target = make_target(c.space);
    evaluate(target, c.good);  // recorded
    evaluate(target, c.good);  // replayed
    EXPECT_EQ(target.replayed_calls(), 1);
    EXPECT_ERROR(evaluate(target, c.bad), c.error);
    EXPECT_TRUE(std::isfinite(evaluate(target, c.good)));  // and replays again
    EXPECT_EQ(target.replayed_calls(), 2);
  }
}

}  // namespace
}  // namespace variate::inference
