// Conformance rows and shape tests for the wrapper distributions: Independent, Sample,
// TransformedDistribution, MixtureSameFamily, Deterministic, Reparameterized and Restricted. References are closed
// forms written out here (normal log densities summed or mixed by hand, the log-normal density).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "support/conformance.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/deterministic.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/mixture_same_family.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/distributions/reparameterized.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/distributions/stick_breaking.hpp"
#include "variate/distributions/transformed_distribution.hpp"

namespace variate {
using namespace dist;  // the families under test
namespace {

using testing::DistributionCase;
using testing::t;
using testing::t2;
using S = std::span<const Tensor>;

double normal_lpdf(double x, double loc, double scale) {
  const double z = (x - loc) / scale;
  return -0.5 * z * z - std::log(scale) - 0.5 * std::log(2 * std::numbers::pi);
}

// log N(log x; loc, scale) - log x.
double log_normal_lpdf(double x, double loc, double scale) {
  return normal_lpdf(std::log(x), loc, scale) - std::log(x);
}

double logsumexp(const std::vector<double>& v) {
  double m = -INFINITY;
  for (double e : v) m = std::max(m, e);
  double s = 0;
  for (double e : v) s += std::exp(e - m);
  return m + std::log(s);
}

// log sum_k softmax(logits)_k N(x; loc_k, scale_k).
double mixture_lpdf(double x, const std::vector<double>& logits, const std::vector<double>& loc,
                    const std::vector<double>& scale) {
  const double norm = logsumexp(logits);
  std::vector<double> terms;
  for (std::size_t k = 0; k < logits.size(); ++k) terms.push_back(logits[k] - norm + normal_lpdf(x, loc[k], scale[k]));
  return logsumexp(terms);
}

DistributionPtr normal(const Tensor& loc, const Tensor& scale) { return std::make_shared<Normal>(loc, scale); }

std::vector<DistributionCase> cases() {
  return {
      {.name = "Independent_Normal",
       .make = [](S p) { return std::make_shared<Independent>(normal(p[0], p[1]), 1); },
       .params = {t({0.5, -1.0, 2.0}), t({1.0, 0.3, 4.0})},
       .value = t2({0.1, -0.8, 5.0, 1.5, -1.2, -3.0}, 2, 3),
       .reference_values = t({normal_lpdf(0.1, 0.5, 1.0) + normal_lpdf(-0.8, -1.0, 0.3) + normal_lpdf(5.0, 2.0, 4.0),
                              normal_lpdf(1.5, 0.5, 1.0) + normal_lpdf(-1.2, -1.0, 0.3) + normal_lpdf(-3.0, 2.0, 4.0)}),
       .provenance = "sum of closed-form normal log densities"},
      {.name = "Sample_Normal",
       .make = [](S p) { return std::make_shared<Sample>(normal(p[0], p[1]), Shape{4}); },
       .params = {Tensor::scalar(1.0), Tensor::scalar(2.0)},
       .value = t({0.0, 1.0, 3.5, -2.0}),
       .reference_values = Tensor::scalar(normal_lpdf(0.0, 1.0, 2.0) + normal_lpdf(1.0, 1.0, 2.0) +
                                          normal_lpdf(3.5, 1.0, 2.0) + normal_lpdf(-2.0, 1.0, 2.0)),
       .provenance = "sum of closed-form normal log densities"},
      // A batch of two: the iid axis follows the batch axis.
      {.name = "Sample_batch",
       .make = [](S p) { return std::make_shared<Sample>(normal(p[0], p[1]), Shape{3}); },
       .params = {t({0.0, 10.0}), t({1.0, 0.5})},
       .value = t2({0.1, 0.2, -0.3, 10.4, 9.5, 10.0}, 2, 3),
       .reference_values = t({normal_lpdf(0.1, 0, 1) + normal_lpdf(0.2, 0, 1) + normal_lpdf(-0.3, 0, 1),
                              normal_lpdf(10.4, 10, 0.5) + normal_lpdf(9.5, 10, 0.5) + normal_lpdf(10.0, 10, 0.5)}),
       .provenance = "sum of closed-form normal log densities"},
      {.name = "TransformedDistribution_Normal_Exp",
       .make =
           [](S p) { return std::make_shared<TransformedDistribution>(normal(p[0], p[1]), std::make_shared<Exp>()); },
       .params = {t({0.0, -1.0, 2.0}), t({1.0, 0.5, 0.25})},
       .value = t({0.5, 0.3, 8.0}),
       .reference = [](const std::vector<double>& p, double x) { return log_normal_lpdf(x, p[0], p[1]); },
       .provenance = "closed-form log-normal density -log x - log s - log(2 pi)/2 - (log x - mu)^2 / (2 s^2)",
       .outside = t({-1.0, -0.5, -3.0}),
       // No closed-form moments for a general TransformedDistribution; draws are checked for the
       // support and a finite density, and their logs against the base below.
       .check_mean = false,
       .check_variance = false},
      {.name = "MixtureSameFamily_Normal",
       .make = [](S p) { return std::make_shared<MixtureSameFamily>(p[0], normal(p[1], p[2])); },
       .params = {t({0.2, -1.0, 1.5}), t({-2.0, 0.5, 3.0}), t({0.5, 1.0, 2.0})},
       .value = t({-2.1, 0.0, 0.7, 3.3, 10.0}),
       .reference_values =
           [] {
             std::vector<double> v;
             for (double x : {-2.1, 0.0, 0.7, 3.3, 10.0})
               v.push_back(mixture_lpdf(x, {0.2, -1.0, 1.5}, {-2.0, 0.5, 3.0}, {0.5, 1.0, 2.0}));
             return Tensor::from(v, Shape{5});
           }(),
       .provenance = "logsumexp of log weights + closed-form normal log densities"},
      // Two mixtures of three; the components' loc carries the batch, the scale broadcasts.
      {.name = "MixtureSameFamily_batch",
       .make = [](S p) { return std::make_shared<MixtureSameFamily>(p[0], normal(p[1], p[2])); },
       .params = {t2({0.0, 0.0, 0.0, 2.0, -1.0, 0.5}, 2, 3), t2({-1.0, 0.0, 1.0, 5.0, 6.0, 8.0}, 2, 3),
                  t({0.5, 0.75, 1.0})},
       .value = t({0.25, 6.5}),
       .reference_values = t({mixture_lpdf(0.25, {0, 0, 0}, {-1, 0, 1}, {0.5, 0.75, 1.0}),
                              mixture_lpdf(6.5, {2.0, -1.0, 0.5}, {5, 6, 8}, {0.5, 0.75, 1.0})}),
       .provenance = "logsumexp of log weights + closed-form normal log densities"},
      // The base's density, draws and moments; only inference's coordinates change.
      {.name = "Reparameterized_Normal_OffsetMultiplier",
       .make =
           [](S p) {
             return std::make_shared<Reparameterized>(normal(p[0], p[1]),
                                                      std::make_shared<OffsetMultiplier>(p[0], p[1]));
           },
       .params = {t({0.5, -1.0, 2.0}), t({1.0, 0.3, 4.0})},
       .value = t({0.1, -0.8, 5.0}),
       .reference = [](const std::vector<double>& p, double x) { return normal_lpdf(x, p[0], p[1]); },
       .provenance = "closed-form normal log density"},
      // Stan's `ordered[3] c; c ~ normal(loc, scale);`: the unnormalized iid density on ordered
      // vectors, -inf on the others. Draws are sorted iid draws; their moments (order statistics)
      // are checked in transforms_test.cpp.
      {.name = "Restricted_ordered_Normal",
       .make =
           [](S p) {
             return std::make_shared<Restricted>(std::make_shared<Sample>(normal(p[0], p[1]), Shape{3}),
                                                 Constraint::ordered());
           },
       .params = {Tensor::scalar(0.5), Tensor::scalar(2.0)},
       .value = t({-1.0, 0.25, 3.0}),
       .reference_values =
           Tensor::scalar(normal_lpdf(-1.0, 0.5, 2.0) + normal_lpdf(0.25, 0.5, 2.0) + normal_lpdf(3.0, 0.5, 2.0)),
       .provenance = "sum of closed-form normal log densities (Stan: no renormalization)",
       .outside = t({0.25, -1.0, 3.0}),
       .check_mean = false,
       .check_variance = false},
      // Parameters are captured rather than passed: the density is flat (0 or -inf), so there is no
      // gradient to compare with finite differences. loc values are exact in binary so that the
      // sample mean of identical draws is exact.
      {.name = "Deterministic",
       .make =
           [](S) {
             return std::make_shared<Deterministic>(t({1.5, -2.0, 0.25}));
           },
       .value = t({1.5, -2.0, 0.25}),
       .reference_values = t({0.0, 0.0, 0.0}),
       .provenance = "TFP Deterministic: 0 at loc",
       .outside = t({1.0, 2.0, 0.0}),
       .differentiable_value = false},
  };
}

class Wrappers : public ::testing::TestWithParam<DistributionCase> {};
TEST_P(Wrappers, Conforms) { testing::check_conformance(GetParam()); }
INSTANTIATE_TEST_SUITE_P(All, Wrappers, ::testing::ValuesIn(cases()), [](const auto& info) { return info.param.name; });

void expect_error(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << message;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

DistributionPtr normal_batch(const Shape& shape) { return normal(Tensor::zeros(shape), Tensor::ones(shape)); }

TEST(Independent, Shapes) {
  const Independent one(normal_batch(Shape{2, 3}), 1);
  EXPECT_EQ(one.batch_shape(), Shape({2}));
  EXPECT_EQ(one.event_shape(), Shape({3}));
  EXPECT_EQ(one.sample(random::Key(1), Shape{5}).shape(), Shape({5, 2, 3}));
  EXPECT_EQ(one.log_prob(Tensor::zeros(Shape{5, 2, 3})).shape(), Shape({5, 2}));
  // By default every batch axis is reinterpreted.
  const Independent all(normal_batch(Shape{2, 3}));
  EXPECT_EQ(all.batch_shape(), Shape({}));
  EXPECT_EQ(all.event_shape(), Shape({2, 3}));
  EXPECT_EQ(all.reinterpreted_batch_ndims(), 2);
  EXPECT_NEAR(all.log_prob(Tensor::zeros(Shape{2, 3})).item(), 6 * normal_lpdf(0, 0, 1), 1e-12);
  // Nested: the base's event axes stay last.
  const Independent nested(std::make_shared<Independent>(normal_batch(Shape{4, 2, 3}), 1), 1);
  EXPECT_EQ(nested.batch_shape(), Shape({4}));
  EXPECT_EQ(nested.event_shape(), Shape({2, 3}));
  expect_error([] { (void)Independent(normal_batch(Shape{3}), 2); },
               "Independent: reinterpreted_batch_ndims must be in [0, 1] (the rank of the base Normal's batch shape");
  expect_error([] { (void)Independent(nullptr, 0); }, "Independent: the base distribution is null");
}

TEST(Sample, Shapes) {
  const Sample d(normal(t({0.0, 100.0}), 1.0), Shape{4, 5});
  EXPECT_EQ(d.batch_shape(), Shape({2}));
  EXPECT_EQ(d.event_shape(), Shape({4, 5}));
  const Tensor draws = d.sample(random::Key(3), Shape{3});
  ASSERT_EQ(draws.shape(), Shape({3, 2, 4, 5}));
  // The iid axes sit after the batch axis: every draw of batch member 1 is near 100.
  for (std::int64_t i = 0; i < draws.numel(); ++i) EXPECT_EQ(draws.at(i) > 50, (i / 20) % 2 == 1) << i;
  EXPECT_EQ(d.log_prob(draws).shape(), Shape({3, 2}));
  // A value with only the event shape broadcasts against the batch.
  const Tensor lp = d.log_prob(Tensor::zeros(Shape{4, 5}));
  ASSERT_EQ(lp.shape(), Shape({2}));
  EXPECT_NEAR(lp.at(0), 20 * normal_lpdf(0, 0, 1), 1e-10);
  EXPECT_NEAR(lp.at(1), 20 * normal_lpdf(0, 100, 1), 1e-8);
  EXPECT_EQ(d.mean().shape(), Shape({2, 4, 5}));
  EXPECT_EQ(d.mean().at(20), 100.0);
  expect_error(
      [&] {
        d.log_prob(Tensor::zeros(Shape{2, 5, 4}));
      },
      "Sample: expected values whose trailing shape is [4, 5] (sample_shape [4, 5] + the base Normal's event shape "
      "[])");
}

TEST(TransformedDistribution, SimplexFromIndependentNormals) {
  // StickBreaking needs an event axis: Independent turns the Normal's batch of three into one.
  const auto base = std::make_shared<Independent>(normal(t({0.0, 1.0, -1.0}), t({1.0, 0.5, 2.0})), 1);
  const auto bijector = std::make_shared<StickBreaking>();
  const TransformedDistribution d(base, bijector);
  EXPECT_EQ(d.batch_shape(), Shape({}));
  EXPECT_EQ(d.event_shape(), Shape({4}));
  EXPECT_EQ(d.support().kind, Constraint::Kind::simplex);
  const Tensor y = d.sample(random::Key(5), Shape{6});
  ASSERT_EQ(y.shape(), Shape({6, 4}));
  const Tensor inside = dist::in_support(d.support(), y);
  EXPECT_EQ(prim::sum(inside).item(), 6.0);
  const Tensor lp = d.log_prob(y);
  const Tensor expected = base->log_prob(bijector->inverse(y)) + bijector->inverse_log_det_jacobian(y);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(lp.at(i), expected.at(i), 1e-12);
  // Off the simplex (a negative entry): -inf, not NaN.
  EXPECT_EQ(d.log_prob(t({0.5, -0.1, 0.3, 0.3})).item(), -INFINITY);
  expect_error(
      [&] { (void)TransformedDistribution(normal(0.0, 1.0), bijector); },
      "TransformedDistribution: the bijector StickBreaking acts on 1 trailing axes but the base Normal has event "
      "shape [] (wrap the base in Independent");
}

TEST(TransformedDistribution, ElementwiseBijectorOnAnEventSumsItsLogDet) {
  // Exp on a 3-vector event equals three independent log-normals.
  const Tensor loc = t({0.0, 1.0, -1.0}), scale = t({1.0, 0.5, 2.0});
  const TransformedDistribution vector(std::make_shared<Independent>(normal(loc, scale), 1), std::make_shared<Exp>());
  const Independent independent(std::make_shared<TransformedDistribution>(normal(loc, scale), std::make_shared<Exp>()),
                                1);
  const Tensor y = t2({0.5, 2.0, 0.1, 1.0, 3.0, 0.2}, 2, 3);
  const Tensor a = vector.log_prob(y), b = independent.log_prob(y);
  ASSERT_EQ(a.shape(), Shape({2}));
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(a.at(i), b.at(i), 1e-12);
  EXPECT_EQ(vector.log_prob(t({0.5, -2.0, 0.1})).item(), -INFINITY);
}

TEST(TransformedDistribution, DrawsAreTheBaseDrawsMapped) {
  const auto base = normal(t({0.0, -1.0, 2.0}), t({1.0, 0.5, 0.25}));
  const TransformedDistribution d(base, std::make_shared<Exp>());
  const Tensor y = d.sample(random::Key(9), Shape{7});
  const Tensor x = base->sample(random::Key(9), Shape{7});
  for (std::int64_t i = 0; i < y.numel(); ++i) EXPECT_NEAR(std::log(y.at(i)), x.at(i), 1e-12);
}

TEST(TransformedDistribution, SupportIsTheBijectorsImage) {
  const auto shifted = TransformedDistribution(
      normal(0.0, 1.0),
      std::make_shared<Chain>(std::vector<BijectorPtr>{std::make_shared<Shift>(2.0), std::make_shared<Exp>()}));
  EXPECT_EQ(shifted.support().kind, Constraint::Kind::greater_than);
  EXPECT_EQ(shifted.log_prob(1.5).item(), -INFINITY);
  EXPECT_NEAR(shifted.log_prob(3.0).item(), normal_lpdf(0.0, 0.0, 1.0), 1e-14);  // x = log(3 - 2) = 0, |dx/dy| = 1
  EXPECT_EQ(TransformedDistribution(normal(0.0, 1.0), std::make_shared<Tanh>()).support().kind,
            Constraint::Kind::interval);
  // A NaN value keeps its NaN density.
  EXPECT_TRUE(std::isnan(TransformedDistribution(normal(0.0, 1.0), std::make_shared<Exp>()).log_prob(NAN).item()));
  // Exp of a positive base has no known image: densities still work, support() says why not.
  const TransformedDistribution unknown(
      std::make_shared<TransformedDistribution>(normal(0.0, 1.0), std::make_shared<Exp>()), std::make_shared<Exp>());
  EXPECT_TRUE(std::isfinite(unknown.log_prob(3.0).item()));
  expect_error([&] { unknown.support(); }, "Exp: the image of the positive support is not known");
}

TEST(MixtureSameFamily, ShapesAndErrors) {
  const MixtureSameFamily d(t2({0, 0, 0, 1, 2, 3}, 2, 3), normal(t({-1.0, 0.0, 1.0}), 1.0));
  EXPECT_EQ(d.batch_shape(), Shape({2}));
  EXPECT_EQ(d.event_shape(), Shape({}));
  EXPECT_EQ(d.sample(random::Key(1), Shape{4}).shape(), Shape({4, 2}));
  EXPECT_EQ(d.log_prob(Tensor::zeros(Shape{4, 2})).shape(), Shape({4, 2}));
  // Mixtures of vector events: components Independent over the last axis.
  const MixtureSameFamily vec(t({0.0, 1.0}), std::make_shared<Independent>(normal_batch(Shape{2, 3}), 1));
  EXPECT_EQ(vec.event_shape(), Shape({3}));
  EXPECT_EQ(vec.sample(random::Key(2), Shape{5}).shape(), Shape({5, 3}));
  EXPECT_EQ(vec.log_prob(Tensor::zeros(Shape{5, 3})).shape(), Shape({5}));
  EXPECT_NEAR(vec.log_prob(Tensor::zeros(Shape{3})).item(), 3 * normal_lpdf(0, 0, 1), 1e-12);
  // A component with weight zero (logit -inf) is never drawn.
  const MixtureSameFamily half(t({0.0, -INFINITY}), normal(t({-5.0, 5.0}), 0.1));
  const Tensor draws = half.sample(random::Key(3), Shape{200});
  EXPECT_LT(prim::max(draws).item(), 0.0);
  expect_error(
      [] {
        (void)MixtureSameFamily(t({0.0, 0.0}), normal(t({0.0, 1.0, 2.0}), 1.0));
      },
      "MixtureSameFamily: the components' batch shape must end in the number of components 2 (the last axis of "
      "mixture_logits), got the Normal batch shape [3]");
  expect_error(
      [] {
        (void)MixtureSameFamily(t({0.0, NAN}), normal(t({0.0, 1.0}), 1.0));
      },
      "MixtureSameFamily: mixture_logits must be a number (not NaN)");
  expect_error([] { (void)MixtureSameFamily(Tensor::scalar(0.0), normal(t({0.0}), 1.0)); },
               "MixtureSameFamily: mixture_logits must have a component axis");
}

TEST(Deterministic, LogProbAndShapes) {
  const Deterministic d(t2({1.0, 2.0, 3.0, 4.0}, 2, 2));
  EXPECT_EQ(d.batch_shape(), Shape({2, 2}));
  EXPECT_EQ(d.sample(random::Key(1), Shape{3}).shape(), Shape({3, 2, 2}));
  const Tensor lp = d.log_prob(t({1.0, 0.0}));
  ASSERT_EQ(lp.shape(), Shape({2, 2}));
  EXPECT_EQ(lp.at(0), 0.0);
  EXPECT_EQ(lp.at(1), -INFINITY);
  EXPECT_EQ(lp.at(2), -INFINITY);
  EXPECT_TRUE(std::isnan(Deterministic(1.0).log_prob(NAN).item()));
  expect_error([] { (void)Deterministic(Tensor::scalar(INFINITY)); }, "Deterministic: loc must be finite");
}

TEST(TransformedDistribution, OutsideTheImageTheGradientIsFinite) {
  auto [value, grads] = value_and_grad(
      [](const Tensor& mu) {
        return sum(TransformedDistribution(std::make_shared<Normal>(mu, 1.0), std::make_shared<Exp>())
                       .log_prob(Tensor::vec({-1.0, 2.0})));
      },
      Tensor::scalar(0.3));
  EXPECT_EQ(value.item(), -INFINITY);
  EXPECT_TRUE(std::isfinite(grads[0].item()));
}

}  // namespace
}  // namespace variate
