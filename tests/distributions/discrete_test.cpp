// Conformance rows for the discrete families. References: Boost.Math 1.74 (Debian libboost-dev)
// log pdfs evaluated element by element; where Boost cannot represent the answer (logits of +-40
// round p to 0 or 1 in f64), closed forms written out here with std::lgamma and a hand-written
// log-sigmoid. Rows with total counts near 1e6 get a relative tolerance of 1e-8: a log binomial
// coefficient as a difference of lgammas of about 1.3e7 carries an absolute rounding error of a few
// ulps of 1.3e7 (~5e-9), in the family and in the closed forms alike.
#include <gtest/gtest.h>

#include <boost/math/distributions/bernoulli.hpp>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/geometric.hpp>
#include <boost/math/distributions/negative_binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <string>

#include "support/ad_check.hpp"
#include "support/conformance.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/beta_binomial.hpp"
#include "variate/distributions/binomial.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/distributions/geometric.hpp"
#include "variate/distributions/multinomial.hpp"
#include "variate/distributions/negative_binomial.hpp"
#include "variate/distributions/ordered_logistic.hpp"
#include "variate/distributions/ordered_probit.hpp"
#include "variate/distributions/poisson.hpp"
#include "variate/distributions/zero_inflated.hpp"
#include "variate/random/key.hpp"

namespace variate {
using namespace dist;  // the families under test
namespace {

using testing::DistributionCase;
using testing::t;
using testing::t2;
using S = std::span<const Tensor>;
using Params = std::vector<double>;

double boost_log_pdf(const auto& dist, double x) { return std::log(boost::math::pdf(dist, x)); }

// log(1 / (1 + exp(-l))) without rounding 1 - p to 0.
double log_sigmoid(double l) { return l >= 0 ? -std::log1p(std::exp(-l)) : l - std::log1p(std::exp(l)); }

double log_choose(double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

// Categorical and Multinomial rows take positive weights and normalize them inside the factory:
// the gradient check then moves the weights freely, and the probs stay on the simplex.
Tensor normalized(const Tensor& weights) {
  const int last[] = {-1};
  return weights / sum(weights, last, true);
}

// The reference log probabilities of a row of K logits: l_k - log(sum_j exp(l_j)), in long double
// and without the max shift the family uses.
double log_softmax_at(const Tensor& logits, std::int64_t row, std::int64_t k) {
  const std::int64_t n = logits.dim(-1);
  long double total = 0;
  for (std::int64_t j = 0; j < n; ++j) total += std::exp(static_cast<long double>(logits.at(row * n + j)));
  return double(static_cast<long double>(logits.at(row * n + k)) - std::log(total));
}

std::vector<DistributionCase> cases() {
  return {
      // Bernoulli.
      {.name = "Bernoulli_probs",
       .make = [](S p) { return std::make_shared<Bernoulli>(Bernoulli::from_probs(p[0])); },
       .params = {t({0.2, 0.7, 0.5})},
       .value = t({1, 0, 1}),
       .reference = [](const Params& p, double x) { return boost_log_pdf(boost::math::bernoulli(p[0]), x); },
       .provenance = "Boost.Math bernoulli pdf",
       .outside = t({2, -1, 0.5}),
       .differentiable_value = false},
      {.name = "Bernoulli_logits_extreme",
       .make = [](S p) { return std::make_shared<Bernoulli>(Bernoulli::from_logits(p[0])); },
       .params = {t({-40, 40, -40, 40, 0.3})},
       .value = t({0, 0, 1, 1, 1}),
       .reference = [](const Params& p, double x) { return x * log_sigmoid(p[0]) + (1 - x) * log_sigmoid(-p[0]); },
       .provenance = "closed form x log_sigmoid(l) + (1 - x) log_sigmoid(-l)",
       .outside = t({-1, 2, 0.5, 1.5, 3}),
       .differentiable_value = false},
      {.name = "Bernoulli_logits_broadcast_value",
       .make = [](S p) { return std::make_shared<Bernoulli>(Bernoulli::from_logits(p[0])); },
       .params = {t({-0.8, 1.7})},
       .value = t2({0, 1, 1, 1, 0, 0}, 3, 2),
       .reference = [](const Params& p, double x) { return x * log_sigmoid(p[0]) + (1 - x) * log_sigmoid(-p[0]); },
       .provenance = "closed form x log_sigmoid(l) + (1 - x) log_sigmoid(-l)",
       .differentiable_value = false},
      {.name = "Bernoulli_broadcast_value",
       .make = [](S p) { return std::make_shared<Bernoulli>(Bernoulli::from_probs(p[0])); },
       .params = {t({0.3, 0.6})},
       .value = t2({0, 1, 1, 1, 0, 0}, 3, 2),
       .reference = [](const Params& p, double x) { return boost_log_pdf(boost::math::bernoulli(p[0]), x); },
       .provenance = "Boost.Math bernoulli pdf",
       .differentiable_value = false},
      // Binomial.
      {.name = "Binomial_probs",
       .make = [](S p) { return std::make_shared<Binomial>(Binomial::from_probs(p[0], p[1])); },
       .params = {t({10, 5, 20}), t({0.3, 0.9, 0.5})},
       .value = t({3, 5, 0}),
       .reference = [](const Params& p, double x) { return boost_log_pdf(boost::math::binomial(p[0], p[1]), x); },
       .provenance = "Boost.Math binomial pdf",
       .outside = t({11, -1, 2.5}),
       .differentiable_value = false,
       .differentiable_params = {1}},
      {.name = "Binomial_large_count_tiny_probs",
       .make = [](S p) { return std::make_shared<Binomial>(Binomial::from_probs(p[0], p[1])); },
       .params = {t({1e6, 1e6, 1e6}), t({0.3, 1e-10, 1e-10})},
       .value = t({300400, 0, 1}),
       .reference = [](const Params& p, double x) { return boost_log_pdf(boost::math::binomial(p[0], p[1]), x); },
       .provenance = "Boost.Math binomial pdf",
       .outside = t({1e6 + 1, -1, 1e6 + 0.5}),
       .differentiable_value = false,
       .differentiable_params = {1},
       .reference_tolerance = 1e-8},
      {.name = "Binomial_logits_extreme",
       .make = [](S p) { return std::make_shared<Binomial>(Binomial::from_logits(p[0], p[1])); },
       .params = {t({50, 50, 1e6}), t({40, -40, 0.2})},
       .value = t({49, 1, 549900}),
       .reference =
           [](const Params& p, double x) {
             return log_choose(p[0], x) + x * log_sigmoid(p[1]) + (p[0] - x) * log_sigmoid(-p[1]);
           },
       .provenance = "closed form log C(n, k) + k log_sigmoid(l) + (n - k) log_sigmoid(-l)",
       .differentiable_value = false,
       .differentiable_params = {1},
       .reference_tolerance = 1e-8},
      // Poisson.
      {.name = "Poisson_rate",
       .make = [](S p) { return std::make_shared<Poisson>(p[0]); },
       .params = {t({0.5, 3, 12.5})},
       .value = t({0, 4, 10}),
       .reference = [](const Params& p, double x) { return boost_log_pdf(boost::math::poisson(p[0]), x); },
       .provenance = "Boost.Math poisson pdf",
       .outside = t({-1, 0.5, INFINITY}),
       .differentiable_value = false},
      {.name = "Poisson_extreme_rates",
       .make = [](S p) { return std::make_shared<Poisson>(p[0]); },
       .params = {t({1e6, 1e-14})},
       .value = t({1e6 - 700, 1}),
       .reference = [](const Params& p, double x) { return boost_log_pdf(boost::math::poisson(p[0]), x); },
       .provenance = "Boost.Math poisson pdf",
       .differentiable_value = false,
       .reference_tolerance = 1e-8},
      {.name = "Poisson_log_rate",
       .make = [](S p) { return std::make_shared<Poisson>(Poisson::from_log_rate(p[0])); },
       .params = {t({-30, 0, 10})},
       .value = t({0, 2, 22000}),
       .reference = [](const Params& p, double x) { return boost_log_pdf(boost::math::poisson(std::exp(p[0])), x); },
       .provenance = "Boost.Math poisson pdf at rate exp(log_rate)",
       .differentiable_value = false,
       .reference_tolerance = 1e-9},
      // Geometric: failures before the first success, as Boost counts them.
      {.name = "Geometric_probs",
       .make = [](S p) { return std::make_shared<Geometric>(Geometric::from_probs(p[0])); },
       .params = {t({0.2, 0.9, 1e-6})},
       .value = t({3, 0, 5e5}),
       .reference = [](const Params& p, double x) { return boost_log_pdf(boost::math::geometric(p[0]), x); },
       .provenance = "Boost.Math geometric pdf",
       .outside = t({-1, 0.5, -INFINITY}),
       .differentiable_value = false},
      {.name = "Geometric_logits_extreme",
       .make = [](S p) { return std::make_shared<Geometric>(Geometric::from_logits(p[0])); },
       .params = {t({-40, 40, 0})},
       .value = t({1e17, 0, 3}),
       .reference = [](const Params& p, double x) { return x * log_sigmoid(-p[0]) + log_sigmoid(p[0]); },
       .provenance = "closed form k log_sigmoid(-l) + log_sigmoid(l)",
       .differentiable_value = false},
      // NegativeBinomial: TFP's (r, p) counts successes before the r-th failure, which is Boost's
      // negative_binomial(r, 1 - p) (failures before the r-th success).
      {.name = "NegativeBinomial_probs",
       .make = [](S p) { return std::make_shared<NegativeBinomial>(NegativeBinomial::from_probs(p[0], p[1])); },
       .params = {t({3, 0.5, 10}), t({0.4, 0.8, 0.05})},
       .value = t({2, 7, 0}),
       .reference = [](const Params& p,
                       double x) { return boost_log_pdf(boost::math::negative_binomial(p[0], 1 - p[1]), x); },
       .provenance = "Boost.Math negative_binomial(r, 1 - p) pdf",
       .outside = t({-2, 0.5, INFINITY}),
       .differentiable_value = false},
      {.name = "NegativeBinomial_large_count",
       .make = [](S p) { return std::make_shared<NegativeBinomial>(NegativeBinomial::from_probs(p[0], p[1])); },
       .params = {t({1e6}), t({0.5})},
       .value = t({1e6 + 300}),
       .reference = [](const Params& p,
                       double x) { return boost_log_pdf(boost::math::negative_binomial(p[0], 1 - p[1]), x); },
       .provenance = "Boost.Math negative_binomial(r, 1 - p) pdf",
       .differentiable_value = false,
       .reference_tolerance = 1e-8},
      {.name = "NegativeBinomial_logits",
       .make = [](S p) { return std::make_shared<NegativeBinomial>(NegativeBinomial::from_logits(p[0], p[1])); },
       .params = {t({5, 2.5}), t({-40, 2})},
       .value = t({0, 30}),
       .reference =
           [](const Params& p, double x) {
             return std::lgamma(x + p[0]) - std::lgamma(p[0]) - std::lgamma(x + 1) + x * log_sigmoid(p[1]) +
                    p[0] * log_sigmoid(-p[1]);
           },
       .provenance = "closed form lgamma(k + r) - lgamma(r) - lgamma(k + 1) + k log_sigmoid(l) + r log_sigmoid(-l)",
       .differentiable_value = false},
  };
}

// Categorical and Multinomial have vector parameters, so their references are whole tensors.
std::vector<DistributionCase> vector_parameter_cases() {
  const Tensor logits = t2({0.1, -2, 3, 40, -40, 0}, 2, 3);
  const Tensor categories = t({2, 0});
  Tensor categorical_logits_ref = Tensor::zeros(Shape{2});
  for (std::int64_t r = 0; r < 2; ++r)
    categorical_logits_ref.data<double>()[r] = log_softmax_at(logits, r, std::int64_t(categories.at(r)));

  const Tensor weights = t2({1, 2, 3, 4, 0.5, 0.5}, 2, 3);
  const Tensor indices = Tensor::from(std::vector<std::int64_t>{1, 2}, Shape{2});
  // Rows of probs: (1, 2, 3) / 6 and (4, 0.5, 0.5) / 5.
  const Tensor categorical_probs_ref = t({std::log(2.0 / 6), std::log(0.5 / 5)});

  // Broadcast: one batch member, values of shape (2, 2).
  const Tensor single = t({-1, 0.5, 2});
  const Tensor grid = t2({0, 1, 2, 2}, 2, 2);
  Tensor broadcast_ref = Tensor::zeros(Shape{2, 2});
  for (std::int64_t i = 0; i < 4; ++i)
    broadcast_ref.data<double>()[i] = log_softmax_at(single, 0, std::int64_t(grid.at(i)));

  // Multinomial with K = 2 is a binomial in its first component.
  const Tensor two_weights = t2({1, 3, 2, 2}, 2, 2);
  const Tensor two_counts = t2({3, 7, 0, 7}, 2, 2);
  const Tensor two_ref =
      t({boost_log_pdf(boost::math::binomial(10, 0.25), 3), boost_log_pdf(boost::math::binomial(7, 0.5), 0)});

  // Multinomial with K = 3 and a million draws, against the closed form.
  const Tensor big_logits = t2({0.5, -1, 2}, 1, 3);
  const Tensor big_counts = t({162000, 36000, 802000});
  double big_ref = std::lgamma(1e6 + 1);
  for (std::int64_t k = 0; k < 3; ++k)
    big_ref += -std::lgamma(big_counts.at(k) + 1) + big_counts.at(k) * log_softmax_at(big_logits, 0, k);

  return {
      {.name = "Categorical_logits_extreme",
       .make = [](S p) { return std::make_shared<Categorical>(Categorical::from_logits(p[0])); },
       .params = {logits},
       .value = categories,
       .reference_values = categorical_logits_ref,
       .provenance = "closed form l_k - log(sum exp(l)) in long double",
       .outside = t({3, 0.5}),
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false},
      {.name = "Categorical_probs_i64_values",
       .make = [](S p) { return std::make_shared<Categorical>(Categorical::from_probs(normalized(p[0]))); },
       .params = {weights},
       .value = indices,
       .reference_values = categorical_probs_ref,
       .provenance = "closed form log(w_k / sum(w))",
       .outside = t({-1, 2.5}),
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false},
      {.name = "Categorical_broadcast_value",
       .make = [](S p) { return std::make_shared<Categorical>(Categorical::from_logits(p[0])); },
       .params = {single},
       .value = grid,
       .reference_values = broadcast_ref,
       .provenance = "closed form l_k - log(sum exp(l)) in long double",
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false},
      {.name = "Multinomial_two_categories",
       .make = [](S p) { return std::make_shared<Multinomial>(Multinomial::from_probs(p[0], normalized(p[1]))); },
       .params = {t({10, 7}), two_weights},
       .value = two_counts,
       .reference_values = two_ref,
       .provenance = "Boost.Math binomial pdf of the first component",
       .outside = t2({3, 6, 0, 7.5}, 2, 2),
       .differentiable_value = false,
       .differentiable_params = {1}},
      {.name = "Multinomial_logits_large_count",
       .make = [](S p) { return std::make_shared<Multinomial>(Multinomial::from_logits(p[0], p[1])); },
       .params = {t({1e6}), big_logits},
       .value = big_counts,
       .reference_values = t({big_ref}),
       .provenance = "closed form lgamma(n + 1) - sum lgamma(x + 1) + sum x log_softmax(l)",
       .outside = t({162000, -1, 802001}),
       .differentiable_value = false,
       .differentiable_params = {1},
       .reference_tolerance = 1e-8},
  };
}

class Discrete : public ::testing::TestWithParam<DistributionCase> {};
TEST_P(Discrete, Conforms) { testing::check_conformance(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Families, Discrete, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(VectorParameters, Discrete, ::testing::ValuesIn(vector_parameter_cases()),
                         [](const auto& info) { return info.param.name; });

// Expects `make` to throw variate::Error whose message contains `expected`.
template <class Make>
void expect_error(Make make, const std::string& expected) {
  try {
    make();
    ADD_FAILURE() << "no error; expected \"" << expected << "\"";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

// Issue 20: BetaBinomial, zero-inflated counts, ordinal regression.
double zero_inflated_log_pdf(double gate, double base_log_pdf, double x) {
  return x == 0 ? std::log(gate + (1 - gate) * std::exp(base_log_pdf)) : std::log1p(-gate) + base_log_pdf;
}

// log P(y = k) of K categories from cutpoints c (K - 1) and a cdf F: F(c_k - eta) - F(c_{k-1} - eta)
// with F(-inf) = 0, F(inf) = 1; long double, no tail rewriting.
template <class Cdf>
Tensor ordinal_reference(const std::vector<double>& eta, const std::vector<double>& c, std::size_t k_minus_1,
                         const std::vector<double>& y, Cdf cdf) {
  std::vector<double> out;
  for (std::size_t i = 0; i < eta.size(); ++i) {
    const std::size_t k = std::size_t(y[i]);
    auto f = [&](std::size_t j) { return cdf(c[i * k_minus_1 + j] - eta[i]); };
    const long double upper = k == k_minus_1 ? 1.0L : f(k), lower = k == 0 ? 0.0L : f(k - 1);
    out.push_back(double(std::log(upper - lower)));
  }
  return Tensor::from(out, Shape{std::int64_t(eta.size())});
}

long double logistic_cdf(double t) { return 1.0L / (1.0L + std::exp(-static_cast<long double>(t))); }
long double normal_cdf(double t) { return boost::math::cdf(boost::math::normal(0, 1), t); }

std::vector<DistributionCase> issue20_cases() {
  const std::vector<double> eta{0.3, -1.0, 2.0}, cut{-1.0, 0.5, 2.0, -2.0, -1.5, 0.0, 1.0, 1.2, 4.0}, y{0, 2, 3};
  return {
      {.name = "BetaBinomial_batch",
       .make = [](S p) { return std::make_shared<BetaBinomial>(p[0], p[1], p[2]); },
       .params = {t({10, 5, 20}), t({0.5, 2.0, 3.0}), t({1.5, 0.7, 10.0})},
       .value = t({3, 5, 0}),
       .reference =
           [](const Params& p, double x) {
             return log_choose(p[0], x) + std::log(boost::math::beta(x + p[1], p[0] - x + p[2])) -
                    std::log(boost::math::beta(p[1], p[2]));
           },
       .provenance = "log C(n, k) + log B(k + a, n - k + b) - log B(a, b), B = Boost.Math beta",
       .outside = t({11, -1, 2.5}),
       .differentiable_value = false,
       .differentiable_params = {1, 2}},
      {.name = "ZeroInflatedPoisson_probs",
       .make =
           [](S p) {
             return std::make_shared<ZeroInflated>(ZeroInflated::from_probs(std::make_shared<Poisson>(p[0]), p[1]));
           },
       .params = {t({0.5, 3.0, 12.5}), t({0.2, 0.5, 0.05})},
       .value = t({0, 4, 0}),
       .reference =
           [](const Params& p, double x) {
             return zero_inflated_log_pdf(p[1], boost_log_pdf(boost::math::poisson(p[0]), x), x);
           },
       .provenance = "log(g [x = 0] + (1 - g) Boost.Math poisson pdf)",
       .outside = t({-1, 0.5, 2.5}),
       .differentiable_value = false},
      {.name = "ZeroInflatedPoisson_logits",
       .make =
           [](S p) {
             return std::make_shared<ZeroInflated>(ZeroInflated::from_logits(std::make_shared<Poisson>(p[0]), p[1]));
           },
       .params = {t({0.5, 3.0, 12.5}), t({-1.0, 0.0, 2.0})},
       .value = t({1, 0, 7}),
       .reference =
           [](const Params& p, double x) {
             return zero_inflated_log_pdf(1 / (1 + std::exp(-p[1])), boost_log_pdf(boost::math::poisson(p[0]), x), x);
           },
       .provenance = "log(g [x = 0] + (1 - g) Boost.Math poisson pdf), g = logistic(logits)",
       .differentiable_value = false},
      // TFP's NegativeBinomial(r, p) is Boost's negative_binomial(r, 1 - p).
      {.name = "ZeroInflatedNegativeBinomial",
       .make =
           [](S p) {
             return std::make_shared<ZeroInflated>(ZeroInflated::from_probs(
                 std::make_shared<NegativeBinomial>(NegativeBinomial::from_probs(p[0], p[1])), p[2]));
           },
       .params = {t({2.0, 3.5, 0.7}), t({0.3, 0.6, 0.5}), t({0.3, 0.1, 0.6})},
       .value = t({0, 4, 2}),
       .reference =
           [](const Params& p, double x) {
             return zero_inflated_log_pdf(p[2], boost_log_pdf(boost::math::negative_binomial(p[0], 1 - p[1]), x), x);
           },
       .provenance = "log(g [x = 0] + (1 - g) Boost.Math negative_binomial(r, 1 - p) pdf)",
       .outside = t({-1, 0.5, 2.5}),
       .differentiable_value = false},
      // Ordinal rows: 3 predictors, 4 categories (3 cutpoints each); no closed-form moments.
      {.name = "OrderedLogistic_batch",
       .make = [](S p) { return std::make_shared<OrderedLogistic>(p[0], p[1]); },
       .params = {t({0.3, -1.0, 2.0}), testing::t2({-1.0, 0.5, 2.0, -2.0, -1.5, 0.0, 1.0, 1.2, 4.0}, 3, 3)},
       .value = t({0, 2, 3}),
       .reference_values = ordinal_reference(eta, cut, 3, y, logistic_cdf),
       .provenance = "logistic(c_k - eta) - logistic(c_{k-1} - eta) in long double",
       .outside = t({-1, 4, 0.5}),
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false},
      {.name = "OrderedProbit_batch",
       .make = [](S p) { return std::make_shared<OrderedProbit>(p[0], p[1]); },
       .params = {t({0.3, -1.0, 2.0}), testing::t2({-1.0, 0.5, 2.0, -2.0, -1.5, 0.0, 1.0, 1.2, 4.0}, 3, 3)},
       .value = t({0, 2, 3}),
       .reference_values = ordinal_reference(eta, cut, 3, y, normal_cdf),
       .provenance = "Boost.Math normal cdf(c_k - eta) - cdf(c_{k-1} - eta)",
       .outside = t({-1, 4, 0.5}),
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false},
      // Middle categories far in a tail, where a plain difference of cdfs would round to 0.
      {.name = "OrderedProbit_tails",
       .make = [](S p) { return std::make_shared<OrderedProbit>(p[0], p[1]); },
       .params = {t({-9.0, 9.0}), testing::t2({0.0, 0.5, -0.5, 0.0}, 2, 2)},
       .value = t({1, 1}),
       .reference_values =
           Tensor::vec({std::log(boost::math::cdf(boost::math::complement(boost::math::normal(0, 1), 9.0)) -
                                 boost::math::cdf(boost::math::complement(boost::math::normal(0, 1), 9.5))),
                        std::log(boost::math::cdf(boost::math::normal(0, 1), -9.0) -
                                 boost::math::cdf(boost::math::normal(0, 1), -9.5))}),
       .provenance = "Boost.Math normal upper / lower tail probabilities",
       .differentiable_value = false,
       .check_mean = false,
       .check_variance = false,
       .reference_tolerance = 1e-9},
  };
}

class Issue20Discrete : public ::testing::TestWithParam<DistributionCase> {};
TEST_P(Issue20Discrete, Conforms) { testing::check_conformance(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Families, Issue20Discrete, ::testing::ValuesIn(issue20_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(DiscreteFamilies, InvalidParametersNameTheFamilyAndTheParameter) {
  expect_error([] { Bernoulli::from_probs(1.5); }, "Bernoulli: probs must be a probability in [0, 1]");
  expect_error([] { Bernoulli::from_logits(NAN); }, "Bernoulli: logits");
  expect_error([] { Binomial::from_probs(t({10, 2.5}), 0.5); }, "Binomial: total_count must be a non-negative integer");
  expect_error([] { Binomial::from_probs(-1.0, 0.5); }, "Binomial: total_count");
  expect_error([] { Binomial::from_logits(10.0, NAN); }, "Binomial: logits");
  expect_error([] { Binomial::from_probs(t({1, 2, 3}), t({0.5, 0.5})); }, "Binomial");
  expect_error([] { Poisson(-1.0); }, "Poisson: rate must be non-negative");
  expect_error([] { Poisson::from_log_rate(INFINITY); }, "Poisson: log_rate must be finite");
  expect_error([] { Geometric::from_probs(0.0); }, "Geometric: probs must be a probability in (0, 1]");
  expect_error([] { Geometric::from_logits(-INFINITY); }, "Geometric: logits");
  expect_error([] { NegativeBinomial::from_probs(0.0, 0.5); }, "NegativeBinomial: total_count must be positive");
  expect_error([] { NegativeBinomial::from_probs(3.0, 1.0); },
               "NegativeBinomial: probs must be a probability in [0, 1)");
  expect_error([] { Categorical::from_probs(t({0.5, 0.6})); }, "Categorical: probs must sum to 1");
  expect_error([] { Categorical::from_probs(t({1.5, -0.5})); }, "Categorical: probs must be a probability");
  expect_error([] { Categorical::from_logits(Tensor::scalar(1.0)); }, "Categorical: logits must have shape (..., K)");
  expect_error([] { Categorical::from_logits(t({0, INFINITY})); }, "Categorical: logits must be below +inf");
  expect_error([] { Multinomial::from_probs(-3.0, t({0.5, 0.5})); }, "Multinomial: total_count");
  expect_error([] { Multinomial::from_probs(3.0, t({0.2, 0.2})); }, "Multinomial: probs must sum to 1");
  expect_error([] { Multinomial::from_logits(t({3, 4, 5}), t2({0, 0, 0, 0}, 2, 2)); }, "Multinomial");
  expect_error([] { Multinomial::from_logits(3.0, Tensor::scalar(0.0)); },
               "Multinomial: logits must have shape (..., K)");
  expect_error(
      [] {
        Multinomial::from_logits(3.0, t({0, 0})).log_prob(t({1, 1, 1}));
      },
      "Multinomial: value must have shape (..., 2)");
}

TEST(DiscreteFamilies, BoundaryProbabilitiesGiveExactLogProbabilities) {
  const Bernoulli never = Bernoulli::from_probs(0.0), always = Bernoulli::from_probs(1.0);
  EXPECT_EQ(never.log_prob(0.0).item(), 0.0);
  EXPECT_EQ(never.log_prob(1.0).item(), -INFINITY);
  EXPECT_EQ(always.log_prob(1.0).item(), 0.0);
  EXPECT_EQ(always.log_prob(0.0).item(), -INFINITY);
  EXPECT_EQ(Binomial::from_probs(7.0, 0.0).log_prob(0.0).item(), 0.0);
  EXPECT_EQ(Binomial::from_probs(7.0, 1.0).log_prob(7.0).item(), 0.0);
  EXPECT_EQ(Poisson(0.0).log_prob(0.0).item(), 0.0);
  EXPECT_EQ(Poisson(0.0).log_prob(1.0).item(), -INFINITY);
  EXPECT_EQ(Geometric::from_probs(1.0).log_prob(0.0).item(), 0.0);
  EXPECT_EQ(NegativeBinomial::from_probs(2.5, 0.0).log_prob(0.0).item(), 0.0);
  EXPECT_EQ(Categorical::from_probs(t({0, 1})).log_prob(0.0).item(), -INFINITY);
  EXPECT_TRUE(std::isnan(Bernoulli::from_probs(0.5).log_prob(NAN).item()));
  EXPECT_TRUE(std::isnan(Categorical::from_logits(t({0, 1})).log_prob(NAN).item()));
}

// Values outside the support get -inf, and the gradient of a sum that contains them is the
// gradient of the in-support terms alone: no NaN from 0 * inf in the masked terms.
TEST(DiscreteFamilies, MaskedValuesLeaveFiniteGradients) {
  auto grad_of = [](auto make, const Tensor& param, const Tensor& values) {
    return value_and_grad([&](const Tensor& p) { return sum(make(p).log_prob(values)); }, param);
  };
  const auto binomial = [](const Tensor& p) { return Binomial::from_probs(5.0, p); };
  const auto all = grad_of(binomial, Tensor::scalar(0.3), t({2, 7, -1, 2.5}));
  const auto inside = grad_of(binomial, Tensor::scalar(0.3), t({2}));
  EXPECT_EQ(all.value.item(), -INFINITY);
  EXPECT_DOUBLE_EQ(all.grads[0].item(), inside.grads[0].item());

  // probs at 0: the masked value 3 would have an infinite partial k / p.
  const auto at_zero =
      grad_of([](const Tensor& p) { return Bernoulli::from_probs(p); }, Tensor::scalar(0.0), t({0, 3}));
  EXPECT_DOUBLE_EQ(at_zero.grads[0].item(), -1.0);

  const auto categorical =
      grad_of([](const Tensor& p) { return Categorical::from_probs(p); }, t({0.0, 1.0}), t({1, 5}));
  EXPECT_EQ(categorical.grads[0].at(0), 0.0);
  EXPECT_EQ(categorical.grads[0].at(1), 1.0);

  const auto multinomial =
      grad_of([](const Tensor& l) { return Multinomial::from_logits(4.0, l); }, t({0.0, 1.0}), t2({1, 3, -1, 5}, 2, 2));
  for (std::int64_t i = 0; i < 2; ++i) EXPECT_TRUE(std::isfinite(multinomial.grads[0].at(i)));
}

// A million trials at logits +-40, where p or 1 - p is about 4e-18: too rare for the sample-moment
// checks of the conformance rows, so only the log probabilities are compared with the closed form.
TEST(DiscreteFamilies, BinomialMillionTrialsAtExtremeLogits) {
  const Tensor n = t({1e6, 1e6, 1e6, 1e6}), logits = t({40, 40, -40, -40}), k = t({1e6, 1e6 - 2, 0, 3});
  const Tensor lp = Binomial::from_logits(n, logits).log_prob(k);
  for (std::int64_t i = 0; i < 4; ++i) {
    const double l = logits.at(i), x = k.at(i);
    const double want = log_choose(1e6, x) + x * log_sigmoid(l) + (1e6 - x) * log_sigmoid(-l);
    EXPECT_NEAR(lp.at(i), want, 1e-8 * (1 + std::abs(want))) << "element " << i;
  }
}

TEST(DiscreteFamilies, ShapesAndDtypes) {
  const Binomial b = Binomial::from_logits(t2({5, 6, 7, 8}, 2, 2), t({0.1, -0.2}));
  EXPECT_EQ(b.batch_shape(), (Shape{2, 2}));
  EXPECT_EQ(b.sample(random::Key(3), Shape{4}).shape(), (Shape{4, 2, 2}));
  const Categorical c = Categorical::from_logits(Tensor::zeros(Shape{3, 5}));
  EXPECT_EQ(c.batch_shape(), (Shape{3}));
  EXPECT_EQ(c.event_shape(), Shape{});
  EXPECT_EQ(c.dtype(), DType::i64);
  EXPECT_EQ(c.sample(random::Key(3), Shape{2}).dtype(), DType::i64);
  EXPECT_EQ(c.log_prob(Tensor::zeros(Shape{4, 3}, DType::i64)).shape(), (Shape{4, 3}));
  const Multinomial m = Multinomial::from_logits(t({3, 4}), Tensor::zeros(Shape{2, 5}));
  EXPECT_EQ(m.batch_shape(), (Shape{2}));
  EXPECT_EQ(m.event_shape(), (Shape{5}));
  // f32 parameters keep f32 values and log densities.
  const Poisson p(Tensor::full(Shape{3}, 2.0, DType::f32));
  EXPECT_EQ(p.sample(random::Key(1)).dtype(), DType::f32);
  EXPECT_EQ(p.log_prob(Tensor::scalar(1.0)).dtype(), DType::f32);
  EXPECT_NEAR(p.log_prob(Tensor::scalar(1.0)).at(0), std::log(2.0) - 2.0, 1e-6);
}

TEST(DiscreteFamilies, CdfsAndMoments) {
  const Bernoulli b = Bernoulli::from_logits(40.0);
  EXPECT_EQ(b.cdf(-0.5).item(), 0.0);
  EXPECT_NEAR(b.cdf(0.0).item(), std::exp(log_sigmoid(-40)), 1e-30);
  EXPECT_EQ(b.cdf(1.0).item(), 1.0);
  EXPECT_NEAR(b.variance().item(), std::exp(log_sigmoid(40) + log_sigmoid(-40)), 1e-30);
  const Geometric g = Geometric::from_probs(1e-9);
  EXPECT_NEAR(g.cdf(2.5).item(), boost::math::cdf(boost::math::geometric(1e-9), 2.0), 1e-22);
  EXPECT_EQ(g.cdf(-1.0).item(), 0.0);
  EXPECT_NEAR(Geometric::from_probs(0.3).cdf(4.0).item(), boost::math::cdf(boost::math::geometric(0.3), 4.0), 1e-15);
  // TFP's NegativeBinomial mean r p / (1 - p) and variance r p / (1 - p)^2, also from logits.
  const NegativeBinomial nb = NegativeBinomial::from_logits(4.0, std::log(0.25 / 0.75));
  EXPECT_NEAR(nb.mean().item(), 4 * 0.25 / 0.75, 1e-14);
  EXPECT_NEAR(nb.variance().item(), 4 * 0.25 / (0.75 * 0.75), 1e-14);
  EXPECT_NEAR(nb.probs_parameter().item(), 0.25, 1e-15);
}

// The cdfs at k >= 0 against Boost's, evaluated at floor(k), to a relative error of 1e-12 (from
// probs and from logits, which round 1 - p differently), and their values outside the support.
TEST(Poisson, Cdf) {
  for (double rate : {1e-3, 0.7, 5.0, 300.0}) {
    const Poisson p(rate), from_log_rate = Poisson::from_log_rate(std::log(rate));
    for (double k : {0.0, 0.5, 1.0, 3.0, 10.0, 250.0, 290.0, 400.0}) {
      const double want = boost::math::cdf(boost::math::poisson(rate), std::floor(k));
      EXPECT_NEAR(p.cdf(k).item(), want, 1e-12 * want) << "rate " << rate << ", k " << k;
      EXPECT_NEAR(from_log_rate.cdf(k).item(), want, 1e-12 * want) << "rate " << rate << ", k " << k;
    }
    EXPECT_EQ(p.cdf(-0.5).item(), 0.0);
    EXPECT_EQ(p.cdf(INFINITY).item(), 1.0);
  }
  EXPECT_EQ(Poisson(0.0).cdf(0.0).item(), 1.0);  // the point mass at 0
}

TEST(Binomial, Cdf) {
  for (double n : {1.0, 10.0, 60.0})
    for (double p : {0.02, 0.5, 0.93}) {
      const Binomial b = Binomial::from_probs(n, p), from_logits = Binomial::from_logits(n, std::log(p / (1 - p)));
      for (double k : {0.0, 2.5, 3.0, n - 1, n}) {
        if (k > n) continue;
        const double want = boost::math::cdf(boost::math::binomial(n, p), std::floor(k));
        EXPECT_NEAR(b.cdf(k).item(), want, 1e-12 * want) << "n " << n << ", p " << p << ", k " << k;
        EXPECT_NEAR(from_logits.cdf(k).item(), want, 1e-12 * want) << "n " << n << ", p " << p << ", k " << k;
      }
      EXPECT_EQ(b.cdf(-0.5).item(), 0.0);
      EXPECT_EQ(b.cdf(n + 3).item(), 1.0);
      EXPECT_EQ(b.cdf(INFINITY).item(), 1.0);
    }
}

TEST(NegativeBinomial, Cdf) {
  // TFP's NegativeBinomial(r, p) counts successes before the r-th failure: Boost's
  // negative_binomial(r, 1 - p), which counts failures before the r-th success.
  for (double r : {0.5, 3.0, 40.5})
    for (double p : {0.1, 0.6, 0.95}) {
      const NegativeBinomial nb = NegativeBinomial::from_probs(r, p);
      const NegativeBinomial from_logits = NegativeBinomial::from_logits(r, std::log(p / (1 - p)));
      for (double k : {0.0, 1.0, 7.5, 50.0, 500.0}) {
        const double want = boost::math::cdf(boost::math::negative_binomial(r, 1 - p), std::floor(k));
        EXPECT_NEAR(nb.cdf(k).item(), want, 1e-12 * want) << "r " << r << ", p " << p << ", k " << k;
        EXPECT_NEAR(from_logits.cdf(k).item(), want, 1e-12 * want) << "r " << r << ", p " << p << ", k " << k;
      }
      EXPECT_EQ(nb.cdf(-2.0).item(), 0.0);
      EXPECT_EQ(nb.cdf(INFINITY).item(), 1.0);
    }
}

// The cdfs are differentiable in the probability's or rate's parameter; a gradient with respect to
// NegativeBinomial's total_count (an argument of betainc without a derivative rule) throws. Families
// without a cdf say so.
TEST(DiscreteFamilies, CdfGradientsAndMissingCdfs) {
  testing::expect_ad([](S v) { return Poisson(v[0]).cdf(t({0.0, 3.0, 7.5})); }, {t({2.5})});
  testing::expect_ad([](S v) { return Poisson::from_log_rate(v[0]).cdf(t({0.0, 3.0})); }, {t({0.9})});
  testing::expect_ad([](S v) { return Binomial::from_probs(10.0, v[0]).cdf(t({0.0, 4.0, 9.5, 10.0})); }, {t({0.3})});
  testing::expect_ad([](S v) { return Binomial::from_logits(10.0, v[0]).cdf(t({0.0, 4.0})); }, {t({-0.4})});
  testing::expect_ad([](S v) { return NegativeBinomial::from_probs(3.5, v[0]).cdf(t({0.0, 4.0})); }, {t({0.3})});
  testing::expect_ad([](S v) { return NegativeBinomial::from_logits(3.5, v[0]).cdf(t({-1.0, 4.0})); }, {t({0.2})});
  expect_error(
      [] { grad([](const Tensor& r) { return sum(NegativeBinomial::from_probs(r, 0.3).cdf(2.0)); }, t({3.5})); },
      "betainc: the derivative with respect to a is not implemented");
  expect_error([] { Categorical::from_probs(t({0.5, 0.5})).cdf(0.0); }, "Categorical: the cdf is not available");
}

// Category frequencies of 20000 draws against the probabilities, within 5 binomial standard errors
// (false-failure probability about 6e-7 per comparison).
TEST(DiscreteFamilies, CategoricalFrequencies) {
  const Tensor probs = t({0.1, 0.25, 0.6, 0.05});
  const Tensor draws = Categorical::from_probs(probs).sample(random::Key(11), Shape{20000});
  std::vector<double> counts(4, 0.0);
  for (std::int64_t i = 0; i < draws.numel(); ++i) counts[std::size_t(draws.at(i))] += 1;
  for (std::size_t k = 0; k < 4; ++k) {
    const double p = probs.at(std::int64_t(k));
    EXPECT_NEAR(counts[k] / 20000, p, 5 * std::sqrt(p * (1 - p) / 20000)) << "category " << k;
  }
}

}  // namespace
}  // namespace variate
