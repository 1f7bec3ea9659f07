// The gradient of every family's log density with respect to each of its continuous parameters
// (issue 20, item 9): one row per family and parameter, checked with the generic autodiff checker
// (value, and gradient against central finite differences), or, where the density has no derivative
// in that parameter (a count, a point mass), checked to throw naming the family and the parameter.
// The conformance rows check gradients too, but a row may leave parameters out; this table may not.
#include <gtest/gtest.h>

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
#include "variate/distributions/binomial.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/distributions/categorical_logit_glm.hpp"
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
#include "variate/distributions/normal_id_glm.hpp"
#include "variate/distributions/ordered_logistic.hpp"
#include "variate/distributions/ordered_probit.hpp"
#include "variate/distributions/pareto.hpp"
#include "variate/distributions/poisson.hpp"
#include "variate/distributions/student_t.hpp"
#include "variate/distributions/truncated.hpp"
#include "variate/distributions/uniform.hpp"
#include "variate/distributions/von_mises.hpp"
#include "variate/distributions/weibull.hpp"
#include "variate/distributions/wishart.hpp"
#include "variate/distributions/zero_inflated.hpp"

namespace variate {
using namespace dist;  // the families under test
namespace {

using S = std::span<const Tensor>;
using Make = std::function<DistributionPtr(S)>;

struct ParameterCase {
  std::string name;            // Family_parameter
  Make make;                   // from all parameters
  std::vector<Tensor> params;  // f64
  int which;                   // the parameter differentiated
  Tensor value;                // points in the support
  std::string throws{};        // non-empty: the gradient must throw with this text
};

template <class D>
Make make1() {
  return [](S p) { return std::make_shared<D>(p[0]); };
}
template <class D>
Make make2() {
  return [](S p) { return std::make_shared<D>(p[0], p[1]); };
}
template <class D>
Make make3() {
  return [](S p) { return std::make_shared<D>(p[0], p[1], p[2]); };
}
template <class D, D (*F)(Tensor)>
Make from1() {
  return [](S p) { return std::make_shared<D>(F(p[0])); };
}
template <class D, D (*F)(Tensor, Tensor)>
Make from2() {
  return [](S p) { return std::make_shared<D>(F(p[0], p[1])); };
}

Tensor v(std::initializer_list<double> x) { return Tensor::vec(x); }
Tensor lower_mask() { return Tensor::from(std::vector<double>{1.0, 0.0, 1.0, 1.0}, Shape{2, 2}); }
Tensor m(std::vector<double> x, std::int64_t r, std::int64_t c) { return Tensor::from(x, Shape{r, c}); }

// Adds one row per parameter of a family.
void add(std::vector<ParameterCase>& rows, const std::string& family, std::vector<std::string> names, Make make,
         std::vector<Tensor> params, Tensor value) {
  for (std::size_t i = 0; i < names.size(); ++i) rows.push_back({family + "_" + names[i], make, params, int(i), value});
}

std::vector<ParameterCase> cases() {
  std::vector<ParameterCase> r;
  const Tensor real = v({-0.7, 0.4, 2.1}), positive = v({0.3, 1.1, 2.6}), unit = v({0.15, 0.5, 0.8});
  add(r, "Normal", {"loc", "scale"}, make2<Normal>(), {v({0.2}), v({1.3})}, real);
  add(r, "LogNormal", {"loc", "scale"}, make2<LogNormal>(), {v({0.2}), v({0.8})}, positive);
  add(r, "HalfNormal", {"scale"}, make1<HalfNormal>(), {v({1.3})}, positive);
  add(r, "StudentT", {"df", "loc", "scale"}, make3<StudentT>(), {v({3.5}), v({0.2}), v({1.3})}, real);
  add(r, "Cauchy", {"loc", "scale"}, make2<Cauchy>(), {v({0.2}), v({1.3})}, real);
  add(r, "HalfCauchy", {"loc", "scale"}, make2<HalfCauchy>(), {v({0.1}), v({1.3})}, positive);
  add(r, "Laplace", {"loc", "scale"}, make2<Laplace>(), {v({0.2}), v({1.3})}, real);
  add(r, "Logistic", {"loc", "scale"}, make2<Logistic>(), {v({0.2}), v({1.3})}, real);
  add(r, "Exponential", {"rate"}, make1<Exponential>(), {v({1.7})}, positive);
  add(r, "Gamma", {"concentration", "rate"}, make2<Gamma>(), {v({2.5}), v({1.7})}, positive);
  add(r, "InverseGamma", {"concentration", "scale"}, make2<InverseGamma>(), {v({2.5}), v({1.7})}, positive);
  add(r, "Beta", {"concentration1", "concentration0"}, make2<Beta>(), {v({2.5}), v({0.7})}, unit);
  add(r, "Uniform", {"low", "high"}, make2<Uniform>(), {v({-1.0}), v({2.5})}, real);
  add(r, "Chi2", {"df"}, make1<Chi2>(), {v({3.5})}, positive);
  add(r, "Weibull", {"concentration", "scale"}, make2<Weibull>(), {v({1.5}), v({1.7})}, positive);
  const Tensor counts = v({0.0, 2.0, 5.0});
  add(r, "Bernoulli", {"probs"}, from1<Bernoulli, &Bernoulli::from_probs>(), {v({0.3})}, v({0.0, 1.0}));
  add(r, "Bernoulli", {"logits"}, from1<Bernoulli, &Bernoulli::from_logits>(), {v({0.3})}, v({0.0, 1.0}));
  add(r, "Poisson", {"rate"}, make1<Poisson>(), {v({2.5})}, counts);
  add(r, "Poisson", {"log_rate"}, from1<Poisson, &Poisson::from_log_rate>(), {v({0.9})}, counts);
  add(r, "Geometric", {"probs"}, from1<Geometric, &Geometric::from_probs>(), {v({0.3})}, counts);
  add(r, "Geometric", {"logits"}, from1<Geometric, &Geometric::from_logits>(), {v({0.3})}, counts);
  // Binomial's total_count is a count: its row is among those that throw, below.
  r.push_back({"Binomial_probs", from2<Binomial, &Binomial::from_probs>(), {v({8.0}), v({0.3})}, 1, counts});
  r.push_back({"Binomial_logits", from2<Binomial, &Binomial::from_logits>(), {v({8.0}), v({0.3})}, 1, counts});
  // The example: d/dr log NB(5 | r = 2, logits 0.3) = 0.5956 by finite differences.
  add(r, "NegativeBinomial_logits", {"total_count", "logits"},
      from2<NegativeBinomial, &NegativeBinomial::from_logits>(), {v({2.0}), v({0.3})}, v({5.0}));
  add(r, "NegativeBinomial_probs", {"total_count", "probs"}, from2<NegativeBinomial, &NegativeBinomial::from_probs>(),
      {v({3.5}), v({0.6})}, counts);
  const Tensor probs3 = v({0.2, 0.3, 0.5}), logits3 = v({0.4, -1.0, 0.9});
  // Probabilities are normalized in the factory, so that finite differences stay on the simplex (the
  // constructor checks it); the gradient is then that of log_prob composed with the normalization.
  auto normalized = [](const Tensor& p) {
    const int last[] = {-1};
    return p / sum(p, last, true);
  };
  r.push_back({"Categorical_probs",
               [normalized](S p) { return std::make_shared<Categorical>(Categorical::from_probs(normalized(p[0]))); },
               {probs3},
               0,
               v({0.0, 2.0})});
  add(r, "Categorical", {"logits"}, from1<Categorical, &Categorical::from_logits>(), {logits3}, v({0.0, 2.0}));
  const Tensor count_vectors = m({1, 2, 2, 0, 0, 5}, 2, 3);
  r.push_back(
      {"Multinomial_probs",
       [normalized](S p) { return std::make_shared<Multinomial>(Multinomial::from_probs(p[0], normalized(p[1]))); },
       {v({5.0}), probs3},
       1,
       count_vectors});
  r.push_back(
      {"Multinomial_logits", from2<Multinomial, &Multinomial::from_logits>(), {v({5.0}), logits3}, 1, count_vectors});
  add(r, "Dirichlet", {"concentration"}, make1<Dirichlet>(), {v({0.6, 2.0, 3.5})},
      m({0.2, 0.3, 0.5, 0.6, 0.1, 0.3}, 2, 3));
  add(
      r, "MultivariateNormal_scale_tril", {"loc", "scale_tril"},
      // The factory keeps the lower triangle (and symmetrizes a covariance), so that finite
      // differences of the other entries stay valid arguments.
      [](S p) {
        return std::make_shared<MultivariateNormal>(MultivariateNormal::from_scale_tril(p[0], p[1] * lower_mask()));
      },
      {v({0.2, -0.5}), m({1.2, 0.0, 0.4, 0.8}, 2, 2)}, m({0.5, 0.1, -1.0, 2.0}, 2, 2));
  add(
      r, "MultivariateNormal_covariance", {"loc", "covariance_matrix"},
      [](S p) {
        return std::make_shared<MultivariateNormal>(
            MultivariateNormal::from_covariance(p[0], (p[1] + transpose(p[1])) * 0.5));
      },
      {v({0.2, -0.5}), m({1.5, 0.3, 0.3, 0.9}, 2, 2)}, m({0.5, 0.1, -1.0, 2.0}, 2, 2));
  add(
      r, "MultivariateNormal_scale_diag", {"loc", "scale_diag"},
      [](S p) { return std::make_shared<MultivariateNormal>(MultivariateNormal::from_scale_diag(p[0], p[1])); },
      {v({0.2, -0.5}), v({1.5, 0.7})}, m({0.5, 0.1, -1.0, 2.0}, 2, 2));
  add(
      r, "LKJCholesky", {"concentration"}, [](S p) { return std::make_shared<LKJCholesky>(2, p[0]); }, {v({1.7})},
      m({1.0, 0.0, 0.6, 0.8}, 2, 2));
  // Matrices and Gaussian processes (issue 20). Matrix parameters are symmetrized (or kept lower
  // triangular) in the factory, so that finite differences stay valid arguments.
  add(
      r, "LKJ", {"concentration"}, [](S p) { return std::make_shared<LKJ>(3, p[0]); }, {v({1.7})},
      m({1.0, 0.3, -0.2, 0.3, 1.0, 0.4, -0.2, 0.4, 1.0}, 3, 3));
  const Tensor spd = m({1.5, 0.3, 0.3, 0.9}, 2, 2), spd_value = m({1.2, -0.4, -0.4, 2.0}, 2, 2);
  const Tensor spd_tril = m({1.2, 0.0, 0.25, 0.9}, 2, 2), value_tril = m({1.1, 0.0, -0.36, 1.36}, 2, 2);
  auto sym = [](const Tensor& x) { return (x + transpose(x)) * 0.5; };
  add(
      r, "Wishart", {"df", "scale_matrix"}, [sym](S p) { return std::make_shared<Wishart>(p[0], sym(p[1])); },
      {v({3.5}), spd}, spd_value);
  add(
      r, "InverseWishart", {"df", "scale_matrix"},
      [sym](S p) { return std::make_shared<InverseWishart>(p[0], sym(p[1])); }, {v({3.5}), spd}, spd_value);
  add(
      r, "WishartCholesky", {"df", "scale_tril"},
      [](S p) { return std::make_shared<WishartCholesky>(p[0], p[1] * lower_mask()); }, {v({3.5}), spd_tril},
      value_tril);
  add(
      r, "InverseWishartCholesky", {"df", "scale_tril"},
      [](S p) { return std::make_shared<InverseWishartCholesky>(p[0], p[1] * lower_mask()); }, {v({3.5}), spd_tril},
      value_tril);
  const Tensor gp_x = v({0.0, 0.4, 1.1}), gp_y = m({0.3, -0.2, 0.8, 1.0, 0.1, -0.5}, 2, 3);
  const std::vector<std::string> gp_params = {"amplitude", "length_scale", "observation_noise_variance", "mean",
                                              "index_points"};
  add(
      r, "GaussianProcess_ExponentiatedQuadratic", gp_params,
      [](S p) { return std::make_shared<GaussianProcess>(ExponentiatedQuadratic(p[0], p[1]), p[4], p[2], p[3]); },
      {v({1.3}), v({0.6}), v({0.1}), v({0.2, 0.0, -0.1}), gp_x}, gp_y);
  add(
      r, "GaussianProcess_Matern12", {"amplitude", "length_scale"},
      [gp_x](S p) { return std::make_shared<GaussianProcess>(Matern12(p[0], p[1]), gp_x, 0.1); }, {v({1.3}), v({0.6})},
      gp_y);
  add(
      r, "GaussianProcess_Matern32", {"amplitude", "length_scale"},
      [gp_x](S p) { return std::make_shared<GaussianProcess>(Matern32(p[0], p[1]), gp_x, 0.1); }, {v({1.3}), v({0.6})},
      gp_y);
  add(
      r, "GaussianProcess_Matern52", {"amplitude", "length_scale"},
      [gp_x](S p) { return std::make_shared<GaussianProcess>(Matern52(p[0], p[1]), gp_x, 0.1); }, {v({1.3}), v({0.6})},
      gp_y);
  add(
      r, "GaussianProcess_Periodic", {"amplitude", "length_scale", "period"},
      [gp_x](S p) { return std::make_shared<GaussianProcess>(Periodic(p[0], p[1], p[2]), gp_x, 0.1); },
      {v({1.3}), v({0.6}), v({2.5})}, gp_y);
  add(
      r, "MixtureSameFamily", {"mixture_logits", "component_loc", "component_scale"},
      [](S p) { return std::make_shared<MixtureSameFamily>(p[0], std::make_shared<Normal>(p[1], p[2])); },
      {v({0.3, -0.4}), v({-1.0, 2.0}), v({0.8, 1.5})}, real);
  const Tensor x = m({1.0, 0.5, -0.3, 2.0, 0.7, -1.1}, 3, 2);
  add(
      r, "BernoulliLogitGLM", {"w", "alpha"}, [x](S p) { return std::make_shared<BernoulliLogitGLM>(x, p[0], p[1]); },
      {v({0.4, -0.6}), Tensor::scalar(0.2)}, v({1.0, 0.0, 1.0}));
  add(
      r, "NormalIdGLM", {"w", "alpha", "sigma"},
      [x](S p) { return std::make_shared<NormalIdGLM>(x, p[0], p[1], p[2]); },
      {v({0.4, -0.6}), Tensor::scalar(0.2), Tensor::scalar(1.3)}, v({1.0, -0.5, 2.0}));
  add(
      r, "CategoricalLogitGLM", {"w", "b"}, [x](S p) { return std::make_shared<CategoricalLogitGLM>(x, p[0], p[1]); },
      {m({0.4, -0.6, 0.1, 0.3, 0.2, -0.5}, 2, 3), v({0.2, 0.0, -0.3})}, v({0.0, 2.0, 1.0}));
  // Issue 20.
  add(r, "Gumbel", {"loc", "scale"}, make2<Gumbel>(), {v({0.2}), v({1.3})}, real);
  // Angles in [-pi, pi]; log I0(kappa) differentiated through bessel_i1_over_i0.
  add(r, "VonMises", {"loc", "concentration"}, make2<VonMises>(), {v({0.4}), v({2.3})}, v({-2.9, 0.1, 1.7}));
  add(r, "Pareto", {"concentration", "scale"}, make2<Pareto>(), {v({2.5}), v({0.25})}, positive);
  add(
      r, "BetaBinomial", {"concentration1", "concentration0"},
      [](S p) { return std::make_shared<BetaBinomial>(8.0, p[0], p[1]); }, {v({2.5}), v({0.7})}, counts);
  add(
      r, "ZeroInflatedPoisson_probs", {"rate", "gate"},
      [](S p) {
        return std::make_shared<ZeroInflated>(ZeroInflated::from_probs(std::make_shared<Poisson>(p[0]), p[1]));
      },
      {v({2.5}), v({0.3})}, counts);
  add(
      r, "ZeroInflatedNegativeBinomial_logits", {"total_count", "logits", "gate_logits"},
      [](S p) {
        return std::make_shared<ZeroInflated>(ZeroInflated::from_logits(
            std::make_shared<NegativeBinomial>(NegativeBinomial::from_logits(p[0], p[1])), p[2]));
      },
      {v({2.0}), v({0.3}), v({-0.5})}, counts);
  const Tensor categories = v({0.0, 1.0, 2.0, 3.0});
  add(r, "OrderedLogistic", {"predictor", "cutpoints"}, make2<OrderedLogistic>(), {v({0.4}), v({-1.0, 0.2, 1.5})},
      categories);
  add(r, "OrderedProbit", {"predictor", "cutpoints"}, make2<OrderedProbit>(), {v({0.4}), v({-1.0, 0.2, 1.5})},
      categories);
  add(
      r, "GaussianRandomWalk", {"scale"}, [](S p) { return std::make_shared<GaussianRandomWalk>(p[0], 3); }, {v({1.3})},
      real);
  add(
      r, "Truncated_Normal", {"loc", "scale", "low", "high"},
      [](S p) { return std::make_shared<Truncated>(std::make_shared<Normal>(p[0], p[1]), p[2], p[3]); },
      {v({0.2}), v({1.3}), v({-1.0}), v({2.5})}, real);
  add(
      r, "Truncated_Exponential_high", {"rate", "high"},
      [](S p) { return std::make_shared<Truncated>(std::make_shared<Exponential>(p[0]), std::nullopt, p[1]); },
      {v({1.7}), v({3.0})}, positive);
  r.push_back({"BetaBinomial_total_count",
               [](S p) { return std::make_shared<BetaBinomial>(p[0], 2.0, 3.0); },
               {v({8.0})},
               0,
               counts,
               "BetaBinomial: the log density has no gradient with respect to total_count"});
  // No derivative: counts (defined at integers only) and a point mass.
  r.push_back({"Binomial_total_count",
               from2<Binomial, &Binomial::from_probs>(),
               {v({8.0}), v({0.3})},
               0,
               counts,
               "Binomial: the log density has no gradient with respect to total_count"});
  r.push_back({"Multinomial_total_count",
               from2<Multinomial, &Multinomial::from_probs>(),
               {v({5.0}), probs3},
               0,
               count_vectors,
               "Multinomial: the log density has no gradient with respect to total_count"});
  r.push_back({"Deterministic_loc",
               make1<Deterministic>(),
               {v({1.5})},
               0,
               v({1.5}),
               "Deterministic: the log density has no gradient with respect to loc"});
  return r;
}

class ParameterGradients : public ::testing::TestWithParam<ParameterCase> {};

TEST_P(ParameterGradients, LogProbGradientMatchesFiniteDifferencesOrThrows) {
  const ParameterCase& c = GetParam();
  auto log_prob_in = [&c](S v) {
    std::vector<Tensor> params = c.params;
    params[std::size_t(c.which)] = v[0];
    return c.make(params)->log_prob(c.value);
  };
  // The row itself must be valid: the checker passes a function that throws everywhere.
  ASSERT_NO_THROW(c.make(c.params)->log_prob(c.value)) << c.name;
  if (c.throws.empty()) {
    testing::expect_ad(log_prob_in, {c.params[std::size_t(c.which)]});
  } else {
    EXPECT_ERROR(grad([&](const Tensor& p) { return sum(log_prob_in(S(&p, 1))); }, c.params[std::size_t(c.which)]),
                 c.throws);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, ParameterGradients, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<ParameterCase>& info) { return info.param.name; });

// The number: d/dr log NB(5 | r = 2, logits = 0.3) = digamma(7) - digamma(2) +
// log_sigmoid(-0.3) = 0.59564..., which was 0.
TEST(ParameterGradients, NegativeBinomialDispersion) {
  const Tensor g = grad([](const Tensor& r) { return sum(NegativeBinomial::from_logits(r, 0.3).log_prob(5.0)); },
                        Tensor::scalar(2.0));
  const double want = (1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 1.0 / 6) - 1.0 - std::log1p(std::exp(0.3));
  EXPECT_NEAR(g.item(), want, 1e-14);
  EXPECT_NEAR(want, 0.5956, 1e-4);
}

}  // namespace
}  // namespace variate
