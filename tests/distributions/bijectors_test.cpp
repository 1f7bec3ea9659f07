// Bijectors: round trips, log|det J| against the autodiff Jacobian, inverse log determinants,
// gradients (the generic autodiff checker), images, extreme inputs, and the support-to-bijector
// registry.
#include "variate/distributions/bijectors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/cholesky_outer_product.hpp"
#include "variate/distributions/corr_cholesky.hpp"
#include "variate/distributions/corr_matrix.hpp"
#include "variate/distributions/default_bijector.hpp"
#include "variate/distributions/invert.hpp"
#include "variate/distributions/lower_cholesky.hpp"
#include "variate/distributions/ordered.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/distributions/stick_breaking.hpp"
#include "variate/distributions/unit_vector.hpp"

namespace variate {
using namespace dist;  // the families under test
namespace {

using S = std::span<const Tensor>;
using testing::random_tensor;

Tensor t(std::initializer_list<double> v) { return Tensor::vec(v); }

// Which coordinates of one output y make the Jacobian square: all of them for element-wise maps,
// the first K-1 simplex entries, or the free entries of a triangular factor.
enum class Coords { all, simplex_head, strictly_lower, lower };

Tensor coordinates(const Tensor& y, Coords coords) {
  auto flat_take = [&](bool with_diagonal) {
    const std::int64_t k = y.dim(-1);
    std::vector<std::int64_t> positions;
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t j = 0; j < (with_diagonal ? i + 1 : i); ++j) positions.push_back(i * k + j);
    return take(reshape(y, {k * k}), Tensor::from(positions, Shape{std::int64_t(positions.size())}), 0);
  };
  switch (coords) {
    case Coords::all: return reshape(y, {-1});
    case Coords::simplex_head: return slice(y, -1, 0, y.dim(-1) - 1);
    case Coords::strictly_lower: return flat_take(false);
    case Coords::lower: return flat_take(true);
  }
  return y;
}

// log|det J| of a square matrix as logdet(J^T J) / 2.
double log_abs_det(const Tensor& jac) {
  const std::int64_t n = jac.dim(-1);
  const Tensor square = reshape(jac, {n, n});
  return 0.5 * logdet_spd(matmul(square, square, /*transpose_a=*/true)).item();
}

struct BijectorCase {
  std::string name{};
  std::function<BijectorPtr(S params)> make{};
  std::vector<Tensor> params{};  // f64, checked for gradients
  Tensor x{};                    // inputs: two events stacked along the first axis
  Coords coords = Coords::all;
  Constraint domain = Constraint::real();  // where x lives
  // false for UnitVector, which is not a bijection (R^K onto a sphere): x must be unit vectors for
  // the round trips, and its log-density term is not a Jacobian determinant (checked by
  // UnitVector.TermIsMinusHalfTheSquaredNorm and the sphere's statistical test instead).
  bool bijective = true;
};

// gtest names a failing row by this instead of dumping its bytes.
void PrintTo(const BijectorCase& c, std::ostream* out) { *out << c.name; }

std::vector<BijectorCase> cases() {
  const Tensor x23 = random_tensor(Shape{2, 3}, 11, 1.5);
  return {
      {.name = "Identity", .make = [](S) { return std::make_shared<Identity>(); }, .x = x23},
      {.name = "Exp", .make = [](S) { return std::make_shared<Exp>(); }, .x = x23},
      {.name = "Softplus", .make = [](S) { return std::make_shared<Softplus>(); }, .x = x23},
      {.name = "Sigmoid", .make = [](S) { return std::make_shared<Sigmoid>(); }, .x = x23},
      {.name = "Interval",
       .make = [](S p) { return std::make_shared<Interval>(p[0], p[1]); },
       .params = {t({-1.0, 0.0, 100.0}), t({2.0, 1e-3, 250.0})},
       .x = x23},
      {.name = "Shift",
       .make = [](S p) { return std::make_shared<Shift>(p[0]); },
       .params = {t({0.5, -2.0, 7.0})},
       .x = x23},
      {.name = "Scale",
       .make = [](S p) { return std::make_shared<Scale>(p[0]); },
       .params = {t({0.5, -2.0, 7.0})},
       .x = x23},
      {.name = "Tanh", .make = [](S) { return std::make_shared<Tanh>(); }, .x = x23},
      {.name = "StickBreaking",
       .make = [](S) { return std::make_shared<StickBreaking>(); },
       .x = random_tensor(Shape{2, 4}, 12, 1.5),
       .coords = Coords::simplex_head},
      {.name = "StickBreaking_K2",
       .make = [](S) { return std::make_shared<StickBreaking>(); },
       .x = t({0.7, -1.2}).view(Shape{2, 1}),
       .coords = Coords::simplex_head},
      {.name = "CorrCholesky",
       .make = [](S) { return std::make_shared<CorrCholesky>(); },
       .x = random_tensor(Shape{2, 6}, 13, 1.2),
       .coords = Coords::strictly_lower},
      {.name = "CorrCholesky_K2",
       .make = [](S) { return std::make_shared<CorrCholesky>(); },
       .x = t({0.4, -2.0}).view(Shape{2, 1}),
       .coords = Coords::strictly_lower},
      {.name = "LowerCholesky",
       .make = [](S) { return std::make_shared<LowerCholesky>(); },
       .x = random_tensor(Shape{2, 6}, 14, 1.2),
       .coords = Coords::lower},
      {.name = "Ordered",
       .make = [](S) { return std::make_shared<Ordered>(); },
       .x = random_tensor(Shape{2, 4}, 16, 1.5)},
      {.name = "Ordered_K1",
       .make = [](S) { return std::make_shared<Ordered>(); },
       .x = t({0.7, -1.2}).view(Shape{2, 1})},
      {.name = "PositiveOrdered",
       .make = [](S) { return std::make_shared<PositiveOrdered>(); },
       .x = random_tensor(Shape{2, 4}, 17, 1.5)},
      {.name = "PositiveOrdered_K1",
       .make = [](S) { return std::make_shared<PositiveOrdered>(); },
       .x = t({0.7, -1.2}).view(Shape{2, 1})},
      {.name = "UnitVector",
       .make = [](S) { return std::make_shared<UnitVector>(); },
       .x = t({0.6, 0.0, -0.8, 0.36, 0.48, -0.8}).view(Shape{2, 3}),  // unit vectors
       .bijective = false},
      {.name = "OffsetMultiplier",
       .make = [](S p) { return std::make_shared<OffsetMultiplier>(p[0], p[1]); },
       .params = {t({0.5, -2.0, 7.0}), t({0.5, 2.0, 7.0})},
       .x = x23},
      {.name = "OffsetMultiplier_scalar_multiplier",
       .make = [](S p) { return std::make_shared<OffsetMultiplier>(p[0], p[1]); },
       .params = {t({0.5, -2.0, 7.0}), Tensor::scalar(3.0)},
       .x = x23},
      // Matrix supports (issue 20): Stan's corr_matrix and cov_matrix transforms. Their outputs are
      // symmetric, so the strictly lower (or lower) entries are the free coordinates.
      {.name = "CorrMatrix",
       .make = [](S) { return std::make_shared<CorrMatrix>(); },
       .x = random_tensor(Shape{2, 6}, 16, 1.2),
       .coords = Coords::strictly_lower},
      {.name = "CorrMatrix_K2",
       .make = [](S) { return std::make_shared<CorrMatrix>(); },
       .x = t({0.4, -2.0}).view(Shape{2, 1}),
       .coords = Coords::strictly_lower},
      {.name = "Chain_CholeskyOuterProduct_LowerCholesky",
       .make =
           [](S) {
             return std::make_shared<Chain>(
                 std::vector<BijectorPtr>{std::make_shared<CholeskyOuterProduct>(), std::make_shared<LowerCholesky>()});
           },
       .x = random_tensor(Shape{2, 6}, 17, 1.2),
       .coords = Coords::lower},
      {.name = "Chain_Shift_Exp",
       .make =
           [](S p) {
             return std::make_shared<Chain>(
                 std::vector<BijectorPtr>{std::make_shared<Shift>(p[0]), std::make_shared<Exp>()});
           },
       .params = {t({1.0, -3.0, 0.0})},
       .x = x23},
      // Mixed event ranks: an element-wise Scale, then StickBreaking; Scale's log|scale| terms are
      // summed over the simplex's free parameters.
      {.name = "Chain_StickBreaking_Scale",
       .make =
           [](S p) {
             return std::make_shared<Chain>(
                 std::vector<BijectorPtr>{std::make_shared<StickBreaking>(), std::make_shared<Scale>(p[0])});
           },
       .params = {t({2.0, -0.5, 3.0})},
       .x = x23,
       .coords = Coords::simplex_head},
      {.name = "Chain_empty", .make = [](S) { return std::make_shared<Chain>(std::vector<BijectorPtr>{}); }, .x = x23},
      {.name = "Invert_Exp",
       .make = [](S) { return std::make_shared<Invert>(std::make_shared<Exp>()); },
       .x = exp(x23),
       .domain = Constraint::positive()},
      {.name = "Invert_Interval",
       .make = [](S p) { return std::make_shared<Invert>(std::make_shared<Interval>(p[0], p[1])); },
       .params = {t({-1.0}), t({3.0})},
       .x = testing::uniform_tensor(Shape{2, 3}, 15, -0.9, 2.9),
       .domain = Constraint::interval(t({-1.0}), t({3.0}))},
  };
}

class Bijectors : public ::testing::TestWithParam<BijectorCase> {};

TEST_P(Bijectors, ShapesAndRoundTrip) {
  const BijectorCase& c = GetParam();
  const BijectorPtr b = c.make(c.params);
  const Tensor y = b->forward(c.x);
  ASSERT_EQ(y.shape(), b->forward_shape(c.x.shape()));
  EXPECT_EQ(b->inverse_shape(y.shape()), c.x.shape());
  const Tensor back = b->inverse(y);
  ASSERT_EQ(back.shape(), c.x.shape());
  for (std::int64_t i = 0; i < back.numel(); ++i)
    EXPECT_NEAR(back.at(i), c.x.at(i), 1e-10 * (1 + std::abs(c.x.at(i)))) << "element " << i;

  // One log determinant per event: x's shape without the event axes.
  Shape batch = c.x.shape();
  for (int i = 0; i < b->forward_event_ndims(); ++i) batch.erase(batch.rank() - 1);
  EXPECT_EQ(b->forward_log_det_jacobian(c.x).shape(), batch);
  EXPECT_EQ(b->inverse_log_det_jacobian(y).shape(), batch);
}

TEST_P(Bijectors, LogDetMatchesTheAutodiffJacobian) {
  const BijectorCase& c = GetParam();
  const BijectorPtr b = c.make(c.params);
  for (std::int64_t row = 0; row < c.x.dim(0); ++row) {
    const Tensor x = squeeze(slice(c.x, 0, row, row + 1), 0);
    const Tensor jac = jacobian([&](const Tensor& v) { return coordinates(b->forward(v), c.coords); }, x);
    if (!c.bijective) {
      // UnitVector: the Jacobian is singular along the ray (J x = 0, the map is not a bijection),
      // and the term is Stan's -|x|^2 / 2, not a log-determinant.
      const Tensor along_ray = matmul(jac, x);
      for (std::int64_t i = 0; i < along_ray.numel(); ++i) EXPECT_NEAR(along_ray.at(i), 0.0, 1e-12) << "event " << row;
      EXPECT_NEAR(prim::sum(b->forward_log_det_jacobian(x)).item(),
                  -0.5 * prim::sum(prim::unary(UnaryOp::square, x)).item(), 1e-14);
      continue;
    }
    const double expected = log_abs_det(jac);
    const double got = prim::sum(b->forward_log_det_jacobian(x)).item();
    EXPECT_NEAR(got, expected, 1e-9 * (1 + std::abs(expected))) << "event " << row;
  }
}

TEST_P(Bijectors, InverseLogDetIsMinusForwardLogDet) {
  const BijectorCase& c = GetParam();
  const BijectorPtr b = c.make(c.params);
  const Tensor fldj = b->forward_log_det_jacobian(c.x);
  const Tensor ildj = b->inverse_log_det_jacobian(b->forward(c.x));
  for (std::int64_t i = 0; i < fldj.numel(); ++i)
    EXPECT_NEAR(ildj.at(i), -fldj.at(i), 1e-10 * (1 + std::abs(fldj.at(i)))) << "element " << i;
}

TEST_P(Bijectors, OutputsLandInTheImage) {
  const BijectorCase& c = GetParam();
  const BijectorPtr b = c.make(c.params);
  const Tensor inside = dist::in_support(b->forward_image(c.domain), b->forward(c.x));
  EXPECT_EQ(prim::sum(inside).item(), double(inside.numel())) << b->forward_image(c.domain).str();
}

TEST_P(Bijectors, Gradients) {
  const BijectorCase& c = GetParam();
  const std::size_t np = c.params.size();
  std::vector<Tensor> inputs = c.params;
  inputs.push_back(c.x);
  // method(bijector built from the parameters, the point) for the checker's inputs (params..., point).
  auto check = [&](const char* what, auto method) {
    SCOPED_TRACE(what);
    testing::expect_ad([&](S v) { return method(*c.make(v.first(np)), v[np]); }, inputs);
  };
  check("forward", [](const Bijector& b, const Tensor& x) { return b.forward(x); });
  check("forward_log_det_jacobian", [](const Bijector& b, const Tensor& x) { return b.forward_log_det_jacobian(x); });
  inputs.back() = c.make(c.params)->forward(c.x);
  check("inverse", [](const Bijector& b, const Tensor& y) { return b.inverse(y); });
  check("inverse_log_det_jacobian", [](const Bijector& b, const Tensor& y) { return b.inverse_log_det_jacobian(y); });
}

INSTANTIATE_TEST_SUITE_P(All, Bijectors, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// Where 1 - sigmoid(x) or 1 - tanh(x)^2 round to 0 the log determinants must stay finite (and
// match their asymptotes), and forward must not produce NaN.
TEST(BijectorsExtreme, LogDetsStayFiniteAtPlusMinus40) {
  const Tensor x = t({-40.0, 40.0});
  const std::vector<BijectorPtr> elementwise = {std::make_shared<Sigmoid>(), std::make_shared<Softplus>(),
                                                std::make_shared<Tanh>(), std::make_shared<Exp>(),
                                                std::make_shared<Interval>(-1.0, 2.0)};
  for (const BijectorPtr& b : elementwise) {
    const Tensor fldj = b->forward_log_det_jacobian(x), y = b->forward(x);
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(std::isfinite(fldj.at(i))) << b->name() << " at " << x.at(i);
      EXPECT_FALSE(std::isnan(y.at(i))) << b->name() << " at " << x.at(i);
    }
  }
  // Asymptotes: log sigmoid'(x) ~ -|x|, log softplus'(x) ~ min(x, 0), log tanh'(x) ~ 2 log 2 - 2|x|.
  const Tensor sig = Sigmoid().forward_log_det_jacobian(x), soft = Softplus().forward_log_det_jacobian(x),
               th = Tanh().forward_log_det_jacobian(x);
  EXPECT_NEAR(sig.at(0), -40.0, 1e-12);
  EXPECT_NEAR(sig.at(1), -40.0, 1e-12);
  EXPECT_NEAR(soft.at(0), -40.0, 1e-12);
  EXPECT_NEAR(soft.at(1), 0.0, 1e-16);
  EXPECT_NEAR(th.at(0), 2 * std::log(2.0) - 80.0, 1e-12);
  EXPECT_NEAR(th.at(1), 2 * std::log(2.0) - 80.0, 1e-12);
  // Inverse log determinants at the far ends that the values still resolve.
  EXPECT_NEAR(Softplus().inverse_log_det_jacobian(Softplus().forward(t({-40.0}))).item(), 40.0, 1e-9);
  EXPECT_NEAR(Softplus().inverse(Softplus().forward(t({-40.0}))).item(), -40.0, 1e-9);
  EXPECT_NEAR(Softplus().inverse(Softplus().forward(t({40.0}))).item(), 40.0, 1e-12);
  EXPECT_NEAR(Sigmoid().inverse(Sigmoid().forward(t({-40.0}))).item(), -40.0, 1e-9);

  const Tensor free = t({40.0, -40.0, 40.0, -40.0, 40.0, -40.0});
  for (const BijectorPtr& b :
       std::vector<BijectorPtr>{std::make_shared<StickBreaking>(), std::make_shared<CorrCholesky>()}) {
    const Tensor y = b->forward(free);
    EXPECT_TRUE(std::isfinite(b->forward_log_det_jacobian(free).item())) << b->name();
    for (std::int64_t i = 0; i < y.numel(); ++i) EXPECT_TRUE(std::isfinite(y.at(i))) << b->name() << " element " << i;
  }
  // Stick-breaking in logs: entries far below 1 stay positive instead of underflowing to 0.
  const Tensor simplex = StickBreaking().forward(t({-40.0, -40.0}));
  EXPECT_GT(simplex.at(0), 0.0);
  EXPECT_NEAR(prim::sum(simplex).item(), 1.0, 1e-15);
}

TEST(BijectorsExtreme, IntervalKeepsPrecisionNearTheUpperBound) {
  // low + width * sigmoid(x) would round onto the bound; measuring from it keeps the distance.
  const Interval b(-1000.0, 1.0);
  const double y = b.forward(t({30.0})).item();
  EXPECT_LT(y, 1.0);
  // Exact to the resolution of doubles near 1 (about 1e-16); low + width * sigmoid(x) is off by ~5e-14.
  EXPECT_NEAR(1.0 - y, 1001.0 / (1.0 + std::exp(30.0)), 2e-16);
  EXPECT_NEAR(b.inverse(t({y})).item(), 30.0, 1e-5);
}

TEST(Bijectors, ZeroIsTheUniformSimplex) {
  const Tensor y = StickBreaking().forward(Tensor::zeros(Shape{4}));
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(y.at(i), 0.2, 1e-15);
}

TEST(Bijectors, CorrCholeskyGivesACorrelationMatrix) {
  const Tensor w = CorrCholesky().forward(random_tensor(Shape{10}, 21, 2.0));  // K = 5
  ASSERT_EQ(w.shape(), Shape({5, 5}));
  const Tensor corr = matmul(w, w, false, true);
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(corr.at(i * 5 + i), 1.0, 1e-14);
    for (int j = 0; j < 5; ++j) EXPECT_LE(std::abs(corr.at(i * 5 + j)), 1.0 + 1e-14);
    for (int j = i + 1; j < 5; ++j) EXPECT_EQ(w.at(i * 5 + j), 0.0);
  }
  // K = 1: no free parameters, the 1 x 1 identity.
  const Tensor one = CorrCholesky().forward(Tensor::zeros(Shape{0}));
  ASSERT_EQ(one.shape(), Shape({1, 1}));
  EXPECT_EQ(one.item(), 1.0);
}

TEST(Bijectors, InvertSwapsEventRanksAndShapes) {
  const Invert inv(std::make_shared<CorrCholesky>());
  EXPECT_EQ(inv.forward_event_ndims(), 2);
  EXPECT_EQ(inv.inverse_event_ndims(), 1);
  EXPECT_EQ(inv.forward_shape(Shape{7, 4, 4}), Shape({7, 6}));
  EXPECT_EQ(inv.inverse_shape(Shape{7, 6}), Shape({7, 4, 4}));
  const Tensor w = CorrCholesky().forward(random_tensor(Shape{3, 6}, 22));
  EXPECT_EQ(inv.forward_log_det_jacobian(w).shape(), Shape({3}));
  EXPECT_EQ(inv.forward_image(Constraint::corr_cholesky()).kind, Constraint::Kind::real);
  EXPECT_THROW(Invert(std::make_shared<Exp>()).forward_image(Constraint::real()), Error);
}

TEST(Bijectors, ChainEventRanks) {
  const Chain c({std::make_shared<Exp>(), std::make_shared<CorrCholesky>(), std::make_shared<Scale>(2.0)});
  EXPECT_EQ(c.forward_event_ndims(), 1);
  EXPECT_EQ(c.inverse_event_ndims(), 2);
  EXPECT_EQ(c.forward_shape(Shape{5, 3}), Shape({5, 3, 3}));
  EXPECT_EQ(c.forward_log_det_jacobian(random_tensor(Shape{5, 3}, 23)).shape(), Shape({5}));
}

TEST(Bijectors, KeepTheInputDtype) {
  const Tensor x = prim::cast(t({-1.0, 0.5}), DType::f32);
  for (const BijectorPtr& b : std::vector<BijectorPtr>{
           std::make_shared<Interval>(0.0, 3.0), std::make_shared<Shift>(1.0), std::make_shared<Scale>(2.0),
           std::make_shared<OffsetMultiplier>(1.0, 3.0), std::make_shared<Ordered>(),
           std::make_shared<PositiveOrdered>(), std::make_shared<UnitVector>()}) {
    const Tensor y = b->forward(x);
    EXPECT_EQ(y.dtype(), DType::f32) << b->name();
    EXPECT_EQ(b->forward_log_det_jacobian(x).dtype(), DType::f32) << b->name();
    EXPECT_EQ(b->inverse(y).dtype(), DType::f32) << b->name();
    EXPECT_EQ(b->inverse_log_det_jacobian(y).dtype(), DType::f32) << b->name();
    // In f32 the outputs land in the support too (unit_vector's f32 tolerance).
    EXPECT_EQ(prim::sum(dist::in_support(b->forward_image(Constraint::real()), y)).item(),
              double(dist::in_support(b->forward_image(Constraint::real()), y).numel()))
        << b->name();
  }
  // f32 round trips of the vector bijectors, to f32 precision.
  const Tensor v = prim::cast(t({-0.3, 1.1, -2.0, 0.4}), DType::f32);
  for (const BijectorPtr& b : std::vector<BijectorPtr>{std::make_shared<Ordered>(), std::make_shared<PositiveOrdered>(),
                                                       std::make_shared<OffsetMultiplier>(-1.0, 0.25)}) {
    const Tensor back = b->inverse(b->forward(v));
    for (std::int64_t i = 0; i < 4; ++i) EXPECT_NEAR(back.at(i), v.at(i), 1e-5) << b->name() << " element " << i;
  }
}

TEST(Bijectors, OrderedAndPositiveOrderedFollowStan) {
  // Stan Reference Manual, "Ordered vector": y = (x1, x1 + e^x2, x1 + e^x2 + e^x3).
  const Tensor x = t({0.5, -1.0, 0.3});
  const Tensor y = Ordered().forward(x);
  EXPECT_NEAR(y.at(0), 0.5, 1e-15);
  EXPECT_NEAR(y.at(1), 0.5 + std::exp(-1.0), 1e-15);
  EXPECT_NEAR(y.at(2), 0.5 + std::exp(-1.0) + std::exp(0.3), 1e-15);
  EXPECT_NEAR(Ordered().forward_log_det_jacobian(x).item(), -1.0 + 0.3, 1e-15);
  // "Positive ordered vector": y1 = e^x1.
  const Tensor p = PositiveOrdered().forward(x);
  EXPECT_NEAR(p.at(0), std::exp(0.5), 1e-15);
  EXPECT_NEAR(p.at(2), std::exp(0.5) + std::exp(-1.0) + std::exp(0.3), 1e-15);
  EXPECT_NEAR(PositiveOrdered().forward_log_det_jacobian(x).item(), 0.5 - 1.0 + 0.3, 1e-15);
}

TEST(UnitVector, TermIsMinusHalfTheSquaredNormAndRaysCollapse) {
  const Tensor x = t({3.0, 0.0, -4.0});
  const Tensor y = UnitVector().forward(x);
  EXPECT_NEAR(y.at(0), 0.6, 1e-15);
  EXPECT_NEAR(y.at(2), -0.8, 1e-15);
  EXPECT_NEAR(UnitVector().forward_log_det_jacobian(x).item(), -12.5, 1e-15);
  // Every point of a ray maps to the same unit vector; inverse picks the one on the sphere.
  const Tensor y2 = UnitVector().forward(x * 0.01);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(y2.at(i), y.at(i), 1e-15);
  const Tensor back = UnitVector().inverse(y);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(back.at(i), y.at(i));
  EXPECT_NEAR(UnitVector().inverse_log_det_jacobian(y).item(), 0.5, 1e-15);
}

TEST(Bijectors, OffsetMultiplierIsStansAffineTransform) {
  const OffsetMultiplier b(t({1.0, -2.0}), Tensor::scalar(4.0));
  const Tensor y = b.forward(t({0.5, 0.25}));
  EXPECT_NEAR(y.at(0), 3.0, 1e-15);
  EXPECT_NEAR(y.at(1), -1.0, 1e-15);
  EXPECT_NEAR(b.inverse(y).at(1), 0.25, 1e-15);
  EXPECT_NEAR(b.forward_log_det_jacobian(t({0.5, 0.25})).at(0), std::log(4.0), 1e-15);
  EXPECT_EQ(b.forward_log_det_jacobian(Tensor::scalar(0.0)).shape(), Shape({2}));
  EXPECT_EQ(b.forward_image(Constraint::real()).kind, Constraint::Kind::real);
}

void expect_error(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << message;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(Bijectors, InvalidArgumentsNameTheBijector) {
  expect_error([] { (void)Interval(1.0, 0.0); }, "Interval: low must be less than high");
  expect_error([] { (void)Interval(NAN, 0.0); }, "Interval: low must be finite");
  expect_error([] { (void)Scale(t({1.0, 0.0})); }, "Scale: scale must be nonzero");
  expect_error([] { CorrCholesky().forward(Tensor::zeros(Shape{4})); },
               "CorrCholesky: the last axis must hold K(K-1)/2");
  expect_error([] { CorrCholesky().inverse(Tensor::zeros(Shape{2, 3})); }, "CorrCholesky: expects square matrices");
  expect_error([] { StickBreaking().forward(Tensor::scalar(1.0)); }, "StickBreaking: expects free parameters");
  expect_error([] { StickBreaking().inverse(t({1.0})); },
               "StickBreaking: expects simplexes of shape (..., K) with K >= 2");
  expect_error([] { LowerCholesky().forward(Tensor::zeros(Shape{4})); },
               "LowerCholesky: the last axis must hold K(K+1)/2");
  expect_error([] { Ordered().forward(Tensor::scalar(1.0)); }, "Ordered: expects free parameters of shape (..., K)");
  expect_error(
      [] {
        PositiveOrdered().inverse(Tensor::zeros(Shape{2, 0}));
      },
      "PositiveOrdered: expects positive ordered vectors of shape (..., K) with K >= 1");
  expect_error([] { UnitVector().forward(t({1.0})); },
               "UnitVector: expects free parameters of shape (..., K) with K >= 2");
  expect_error([] { (void)OffsetMultiplier(0.0, -1.0); }, "OffsetMultiplier: multiplier must be positive");
  expect_error([] { (void)OffsetMultiplier(0.0, 0.0); }, "OffsetMultiplier: multiplier must be positive");
  expect_error([] { (void)OffsetMultiplier(NAN, 1.0); }, "OffsetMultiplier: offset must be finite");
  expect_error([] { (void)OffsetMultiplier(t({0.0, 1.0}), t({1.0, 2.0, 3.0})); }, "OffsetMultiplier");
  expect_error([] { Ordered().forward_image(Constraint::positive()); },
               "Ordered: the image of the positive support is not known");
  expect_error([] { Exp().forward_image(Constraint::positive()); },
               "Exp: the image of the positive support is not known");
  // A negative scale turns the order around; one of mixed signs has no one image.
  EXPECT_EQ(Scale(-1.0).forward_image(Constraint::positive()).kind, Constraint::Kind::less_than);
  expect_error(
      [] {
        Scale(Tensor::vec({1.0, -1.0})).forward_image(Constraint::positive());
      },
      "Scale: the image of the positive support");
}

// The registry: each continuous support's bijector maps random reals into the support, and its image
// is that support.
struct RegistryRow {
  Constraint support;
  const char* bijector;
  Shape free_shape;
};

TEST(DefaultBijector, EachContinuousSupport) {
  const std::vector<RegistryRow> rows = {
      {Constraint::real(), "Identity", Shape{4}},
      {Constraint::positive(), "Exp", Shape{4}},
      {Constraint::unit_interval(), "Sigmoid", Shape{4}},
      {Constraint::interval(t({-2.0, 0.0, 5.0, 5.0}), t({-1.0, 1e-3, 6.0, 1e3})), "Interval", Shape{4}},
      {Constraint::greater_than(t({-3.0, 0.0, 2.0, 1e3})), "Chain", Shape{4}},
      {Constraint::less_than(t({-3.0, 0.0, 2.0, 1e3})), "Chain", Shape{4}},
      {Constraint::simplex(), "StickBreaking", Shape{4}},
      {Constraint::corr_cholesky(), "CorrCholesky", Shape{6}},
      {Constraint::lower_cholesky(), "LowerCholesky", Shape{6}},
      {Constraint::ordered(), "Ordered", Shape{4}},
      {Constraint::positive_ordered(), "PositiveOrdered", Shape{4}},
      {Constraint::unit_vector(), "UnitVector", Shape{3}},
      {Constraint::positive_definite(), "Chain", Shape{6}},
      {Constraint::corr_matrix(), "CorrMatrix", Shape{6}},
  };
  for (const RegistryRow& row : rows) {
    SCOPED_TRACE(row.support.str());
    const BijectorPtr b = default_bijector(row.support);
    EXPECT_STREQ(b->name(), row.bijector);
    EXPECT_EQ(b->forward_image(Constraint::real()).kind, row.support.kind);
    Shape batched = row.free_shape;
    batched.insert(0, 3);
    const Tensor y = b->forward(random_tensor(batched, 31, 2.0));
    const Tensor inside = dist::in_support(row.support, y);
    EXPECT_EQ(prim::sum(inside).item(), double(inside.numel()));
  }
  // greater_than(low) is low + exp(x).
  const BijectorPtr lower = default_bijector(Constraint::greater_than(t({2.0})));
  EXPECT_NEAR(lower->forward(t({0.5})).item(), 2.0 + std::exp(0.5), 1e-15);
  EXPECT_NEAR(lower->forward_log_det_jacobian(t({0.5})).item(), 0.5, 1e-15);
}

TEST(DefaultBijector, DiscreteSupportsThrow) {
  const std::vector<Constraint> discrete = {Constraint::nonnegative_integer(),
                                            Constraint::integer_interval(t({0.0}), t({3.0})), Constraint::boolean(),
                                            Constraint::multinomial_counts(t({5.0}))};
  for (const Constraint& c : discrete)
    expect_error(
        [&] { default_bijector(c); },
        "default_bijector: the " + c.str() + " support is discrete and has no bijector to the unconstrained space");
}

}  // namespace
}  // namespace variate
