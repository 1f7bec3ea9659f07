// The transforms users declare sites with: the ordered, positive_ordered and unit_vector supports
// (and lower_cholesky, Stan's cholesky_factor_cov), Reparameterized, Restricted, ImproperUniform on
// vector supports, and the registry inference asks (unconstraining_bijector). The bijectors
// themselves are rows of bijectors_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "support/expect_error.hpp"
#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/default_bijector.hpp"
#include "variate/distributions/dirichlet.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/improper_uniform.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/invert.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/ordered.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/distributions/poisson.hpp"
#include "variate/distributions/reparameterized.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/distributions/stick_breaking.hpp"
#include "variate/distributions/uniform.hpp"

namespace variate::dist {
namespace {

Tensor t(std::initializer_list<double> v) { return Tensor::vec(v); }
Tensor m(std::initializer_list<double> v, std::int64_t rows, std::int64_t cols) {
  return Tensor::vec(v).view(Shape{rows, cols});
}

DistributionPtr iid_normal(std::int64_t k, double loc = 0.0, double scale = 1.0) {
  return std::make_shared<Sample>(std::make_shared<Normal>(loc, scale), Shape{k});
}

TEST(Constraints, NamesAndEventAxes) {
  EXPECT_EQ(Constraint::ordered().str(), "ordered");
  EXPECT_EQ(Constraint::positive_ordered().str(), "positive_ordered");
  EXPECT_EQ(Constraint::unit_vector().str(), "unit_vector");
  EXPECT_EQ(Constraint::ordered().event_ndims(), 1);
  EXPECT_EQ(Constraint::positive_ordered().event_ndims(), 1);
  EXPECT_EQ(Constraint::unit_vector().event_ndims(), 1);
  EXPECT_EQ(Constraint::lower_cholesky().event_ndims(), 2);
  for (const Constraint& c : {Constraint::ordered(), Constraint::positive_ordered(), Constraint::unit_vector()})
    EXPECT_FALSE(c.is_discrete()) << c.str();
}

// One flag per row of `values` (the event is the last axis).
std::vector<bool> inside(const Constraint& c, const Tensor& values) {
  const Tensor in = in_support(c, values);
  std::vector<bool> out;
  for (std::int64_t i = 0; i < in.numel(); ++i) out.push_back(prim::cast(in, DType::f64).at(i) == 1.0);
  return out;
}

TEST(Constraints, InSupport) {
  const Tensor rows = m({-1.0, 0.0, 2.0,      // increasing
                         1.0, 1.0, 2.0,       // a tie
                         0.5, 3.0, 2.0,       // decreasing at the end
                         0.1, 0.2, INFINITY,  // not finite
                         0.1, NAN, 0.3},      // NaN
                        5, 3);
  EXPECT_EQ(inside(Constraint::ordered(), rows), (std::vector<bool>{true, false, false, false, false}));
  EXPECT_EQ(inside(Constraint::positive_ordered(), rows), (std::vector<bool>{false, false, false, false, false}));
  EXPECT_EQ(inside(Constraint::positive_ordered(), m({0.1, 0.2, 5.0, 0.0, 0.2, 5.0}, 2, 3)),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(inside(Constraint::ordered(), m({-3.0, 7.0}, 2, 1)), (std::vector<bool>{true, true}));  // K = 1
  EXPECT_EQ(inside(Constraint::unit_vector(), m({0.6, 0.0, -0.8, 0.6, 0.1, -0.8, 0.0, 0.0, 0.0}, 3, 3)),
            (std::vector<bool>{true, false, false}));
  // Cholesky factors of covariance matrices (Stan's cholesky_factor_cov): lower triangular with a
  // positive diagonal.
  const Tensor factors = Tensor::vec({2.0, 0.0, -1.0, 0.5,    // a factor
                                      2.0, 0.1, -1.0, 0.5,    // an entry above the diagonal
                                      2.0, 0.0, -1.0, -0.5})  // a negative diagonal entry
                             .view(Shape{3, 2, 2});
  EXPECT_EQ(inside(Constraint::lower_cholesky(), factors), (std::vector<bool>{true, false, false}));
}

TEST(Constraints, OutsideTheSupportTheLogDensityIsMinusInfinity) {
  const std::vector<std::pair<Constraint, Tensor>> outside = {
      {Constraint::ordered(), t({0.0, -1.0, 2.0})},
      {Constraint::positive_ordered(), t({-0.5, 1.0, 2.0})},
      {Constraint::unit_vector(), t({1.0, 1.0, 0.0})},
      {Constraint::lower_cholesky(), m({1.0, 0.5, 0.0, 1.0}, 2, 2)},
  };
  for (const auto& [support, value] : outside) {
    const ImproperUniform flat(support, value.shape());
    EXPECT_EQ(flat.log_prob(value).item(), -INFINITY) << support.str();
    EXPECT_EQ(flat.log_prob(default_bijector(support)->forward(
                                Tensor::ones(default_bijector(support)->inverse_shape(value.shape()))))
                  .item(),
              0.0)
        << support.str();
  }
}

TEST(ImproperUniform, VectorSupportsSplitBatchAndEvent) {
  const ImproperUniform u(Constraint::unit_vector(), Shape{4, 3});
  EXPECT_EQ(u.batch_shape(), Shape({4}));
  EXPECT_EQ(u.event_shape(), Shape({3}));
  EXPECT_EQ(u.log_prob(Tensor::zeros(Shape{4, 3})).shape(), Shape({4}));
  EXPECT_ERROR(ImproperUniform(Constraint::ordered(), Shape{}), "ImproperUniform: the ordered support spans 1");
  EXPECT_ERROR(ImproperUniform(Constraint::unit_vector(), Shape{1}), "ImproperUniform: a unit_vector needs at least 2");
  EXPECT_ERROR(ImproperUniform(Constraint::lower_cholesky(), Shape{2, 3}),
               "ImproperUniform: a lower_cholesky value is a square");
  EXPECT_ERROR(ImproperUniform(Constraint::nonnegative_integer(), Shape{}), "ImproperUniform: the support must be");
  EXPECT_ERROR(ImproperUniform(Constraint::greater_than(Tensor::scalar(NAN)), Shape{}),
               "ImproperUniform: the support's lower bound must be a number (not NaN)");
  EXPECT_ERROR(ImproperUniform(Constraint::interval(Tensor::scalar(0.0), Tensor::scalar(NAN)), Shape{}),
               "ImproperUniform: the support's upper bound must be a number (not NaN)");
  EXPECT_ERROR(u.log_prob(Tensor::zeros(Shape{4, 2})), "ImproperUniform: expected values whose trailing shape");
}

TEST(UnconstrainingBijector, DefaultUnlessReparameterized) {
  EXPECT_STREQ(unconstraining_bijector(Normal(0.0, 1.0))->name(), "Identity");
  EXPECT_STREQ(unconstraining_bijector(Exponential(1.0))->name(), "Exp");
  EXPECT_STREQ(unconstraining_bijector(Restricted(iid_normal(3), Constraint::ordered()))->name(), "Ordered");
  const Reparameterized r(std::make_shared<Normal>(1.0, 2.0), std::make_shared<OffsetMultiplier>(1.0, 2.0));
  EXPECT_STREQ(unconstraining_bijector(r)->name(), "OffsetMultiplier");
}

TEST(Reparameterized, KeepsTheBase) {
  const auto base = std::make_shared<Normal>(t({1.0, -1.0}), 2.0);
  const Reparameterized r(base, std::make_shared<OffsetMultiplier>(t({1.0, -1.0}), 2.0));
  EXPECT_EQ(r.batch_shape(), Shape({2}));
  EXPECT_EQ(r.support().kind, Constraint::Kind::real);
  const Tensor a = r.sample(random::Key(3), Shape{5}), b = base->sample(random::Key(3), Shape{5});
  for (std::int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(a.at(i), b.at(i));
  EXPECT_EQ(r.log_prob(t({0.3, 0.1})).at(1), base->log_prob(t({0.3, 0.1})).at(1));
  // A positive site sampled on the softplus scale instead of the log scale.
  const Reparameterized soft(std::make_shared<Exponential>(1.0), std::make_shared<Softplus>());
  EXPECT_STREQ(soft.bijector()->name(), "Softplus");
  // Bounds must match as well as kinds.
  const Reparameterized interval(std::make_shared<Uniform>(0.0, 2.0), std::make_shared<Interval>(0.0, 2.0));
  EXPECT_STREQ(interval.bijector()->name(), "Interval");
}

// A bijector that does not say where it maps the real line.
class Opaque final : public Bijector {
 public:
  const char* name() const override { return "Opaque"; }
  Tensor forward(const Tensor& x) const override { return x; }
  Tensor inverse(const Tensor& y) const override { return y; }
  Tensor forward_log_det_jacobian(const Tensor& x) const override { return Tensor::zeros(x.shape()); }
};

// A map of R^n onto itself that mixes the coordinates of a vector (as a flow would).
class Mixing final : public Bijector {
 public:
  const char* name() const override { return "Mixing"; }
  Tensor forward(const Tensor& x) const override { return x; }
  Tensor inverse(const Tensor& y) const override { return y; }
  Tensor forward_log_det_jacobian(const Tensor&) const override { return Tensor::zeros(Shape{}); }
  int forward_event_ndims() const override { return 1; }
  Constraint forward_image(const Constraint& domain) const override { return domain; }
};

TEST(Reparameterized, ErrorsNameTheBijectorAndTheSupport) {
  const auto normal = std::make_shared<Normal>(0.0, 1.0);
  EXPECT_ERROR(Reparameterized(normal, std::make_shared<Exp>()),
               "Reparameterized: bijector Exp must map the real line onto the real support of the base Normal, but "
               "it maps it onto positive");
  EXPECT_ERROR(Reparameterized(std::make_shared<Exponential>(1.0), std::make_shared<Identity>()),
               "Reparameterized: bijector Identity must map the real line onto the positive support of the base "
               "Exponential, but it maps it onto real");
  EXPECT_ERROR(Reparameterized(normal, std::make_shared<Opaque>()),
               "Reparameterized: bijector Opaque must map the real line onto the real support of the base Normal, "
               "but its image of the real line is not known");
  EXPECT_ERROR(Reparameterized(std::make_shared<Uniform>(0.0, 2.0), std::make_shared<Interval>(0.0, 3.0)),
               "the upper bounds differ");
  EXPECT_ERROR(Reparameterized(std::make_shared<Normal>(t({0.0, 1.0}), 1.0), std::make_shared<Mixing>()),
               "Reparameterized: bijector Mixing acts on the last 1 axes, but the base Normal has event shape []");
  EXPECT_ERROR(Reparameterized(iid_normal(3), std::make_shared<Ordered>()),
               "Reparameterized: bijector Ordered must map the real line onto the real support of the base Sample, but "
               "it maps it onto ordered");
  EXPECT_ERROR(Reparameterized(std::make_shared<Poisson>(1.0), std::make_shared<Identity>()),
               "Reparameterized: the base Poisson is discrete");
  EXPECT_ERROR(Reparameterized(nullptr, std::make_shared<Identity>()),
               "Reparameterized: the base distribution is null");
  EXPECT_ERROR(Reparameterized(normal, nullptr), "Reparameterized: the bijector is null");
  EXPECT_ERROR(OffsetMultiplier(0.0, t({1.0, -2.0})),
               "OffsetMultiplier: multiplier must be positive and finite, got -2");
}

TEST(Restricted, LogProbIsTheBasesInsideAndMinusInfinityOutside) {
  const auto base = iid_normal(3, 0.5, 2.0);
  const Restricted r(base, Constraint::ordered());
  EXPECT_EQ(r.support().kind, Constraint::Kind::ordered);
  EXPECT_EQ(r.event_shape(), Shape({3}));
  const Tensor values = m({-1.0, 0.0, 1.0, 1.0, 0.0, -1.0}, 2, 3);
  const Tensor lp = r.log_prob(values), base_lp = base->log_prob(values);
  EXPECT_EQ(lp.at(0), base_lp.at(0));
  EXPECT_EQ(lp.at(1), -INFINITY);
  // An event of two rows of 3 restricted row by row: inside when both rows are ordered.
  const Restricted rows(std::make_shared<Sample>(std::make_shared<Normal>(0.0, 1.0), Shape{2, 3}),
                        Constraint::positive_ordered());
  EXPECT_EQ(rows.log_prob(m({0.1, 0.2, 0.3, 1.0, 2.0, 3.0}, 2, 3)).item(),
            iid_normal(6)->log_prob(t({0.1, 0.2, 0.3, 1.0, 2.0, 3.0})).item());
  EXPECT_EQ(rows.log_prob(m({0.1, 0.2, 0.3, 1.0, 2.0, 1.5}, 2, 3)).item(), -INFINITY);
  // Element-wise restriction of a batch (a half-normal, unnormalized).
  const Restricted half(std::make_shared<Normal>(t({0.0, 0.0}), 1.0), Constraint::positive());
  const Tensor h = half.log_prob(t({0.5, -0.5}));
  EXPECT_EQ(h.at(0), Normal(0.0, 1.0).log_prob(Tensor::scalar(0.5)).item());
  EXPECT_EQ(h.at(1), -INFINITY);
}

TEST(Restricted, DrawsAreExactOrRefused) {
  // Sorted iid draws: the order statistics of 3 standard normals have means -0.8463, 0, 0.8463
  // (numerical integration of 3!/((k-1)!(3-k)!) F^(k-1) (1-F)^(3-k) f); standard errors <= 0.75/sqrt(n).
  const Restricted ordered(iid_normal(3), Constraint::ordered());
  ASSERT_TRUE(ordered.has_sampler());
  constexpr std::int64_t n = 20000;
  const Tensor draws = ordered.sample(random::Key(11), Shape{n});
  ASSERT_EQ(draws.shape(), Shape({n, 3}));
  const Tensor inside = in_support(Constraint::ordered(), draws);
  EXPECT_EQ(prim::sum(inside).item(), double(n));
  const int first[] = {0};
  const Tensor means = prim::binary(BinaryOp::div, prim::sum(draws, first), double(n));
  const double expected[] = {-0.8462843753, 0.0, 0.8462843753};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(means.at(k), expected[k], 5 * 0.75 / std::sqrt(double(n))) << k;
  // Exponential order statistics (Renyi): E[Y_(k)] = sum_(j<=k) 1/(K - j + 1): 1/3, 5/6, 11/6.
  const Restricted times(std::make_shared<Sample>(std::make_shared<Exponential>(1.0), Shape{3}),
                         Constraint::positive_ordered());
  ASSERT_TRUE(times.has_sampler());
  const Tensor t_means =
      prim::binary(BinaryOp::div, prim::sum(times.sample(random::Key(12), Shape{n}), first), double(n));
  const double t_expected[] = {1.0 / 3, 5.0 / 6, 11.0 / 6};
  const double t_sd[] = {1.0 / 3, std::sqrt(13.0 / 36), std::sqrt(49.0 / 36)};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(t_means.at(k), t_expected[k], 5 * t_sd[k] / std::sqrt(double(n))) << k;
  // The base's own support: its draws.
  const Restricted simplex(std::make_shared<Dirichlet>(t({1.0, 2.0, 3.0})), Constraint::simplex());
  ASSERT_TRUE(simplex.has_sampler());
  EXPECT_EQ(simplex.sample(random::Key(1), Shape{2}).shape(), Shape({2, 3}));
  // Refused: not iid (different locations), positive_ordered of a real family, unit_vector.
  const Restricted not_iid(std::make_shared<Independent>(std::make_shared<Normal>(t({0.0, 3.0, -3.0}), 1.0), 1),
                           Constraint::ordered());
  EXPECT_FALSE(not_iid.has_sampler());
  EXPECT_ERROR(not_iid.sample(random::Key(1)),
               "Restricted::sample: no exact sampler for the base Independent restricted to the ordered support");
  EXPECT_FALSE(Restricted(iid_normal(3), Constraint::positive_ordered()).has_sampler());
  EXPECT_FALSE(Restricted(iid_normal(3), Constraint::unit_vector()).has_sampler());
  EXPECT_FALSE(
      Restricted(std::make_shared<Normal>(0.0, 1.0), Constraint::greater_than(Tensor::scalar(0.0))).has_sampler());
}

TEST(Restricted, ErrorsNameRestricted) {
  EXPECT_ERROR(Restricted(std::make_shared<Normal>(t({0.0, 1.0}), 1.0), Constraint::ordered()),
               "Restricted: the ordered support spans the last 1 axes, but the base Normal has event shape []");
  EXPECT_ERROR(Restricted(iid_normal(3), Constraint::nonnegative_integer()),
               "Restricted: the support must be continuous, got nonnegative_integer");
  EXPECT_ERROR(Restricted(std::make_shared<Poisson>(1.0), Constraint::positive()),
               "Restricted: the base Poisson is discrete");
  EXPECT_ERROR(Restricted(nullptr, Constraint::ordered()), "Restricted: the base distribution is null");
}

}  // namespace
}  // namespace variate::dist
