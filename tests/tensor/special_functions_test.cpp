// The special-function kernels (atan, igamma, igammac, betainc): accuracy against Boost.Math 1.74
// (Debian libboost-dev) over wide parameter ranges, including tails down to 1e-300, a few values
// from mpmath at 50 digits, special values, dtypes and broadcasting.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <iomanip>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "variate/tensor/prim.hpp"

namespace variate {
namespace {

using Values = std::vector<double>;

Values values(const Tensor& t) { return t.to_vector<double>(); }
Tensor vec(const Values& v) { return Tensor::from(v, Shape{std::int64_t(v.size())}); }

// Relative error; below 1e-300 (subnormal results, whose relative precision nobody promises) the
// absolute error, in units of 1e-300.
double relative_error(double got, double want) {
  if (std::abs(want) < 1e-300) return std::abs(got - want) / 1e-300;
  return std::abs(got - want) / std::abs(want);
}

// Powers of ten from 10^lo to 10^hi in steps of 10^step, times 1.0371 so that no parameter is an
// integer: for integer b <= 40 Boost 1.74 sums a finite binomial series, which loses up to 3e-12
// for large a (I_0.9(177.828, 10) is off by 2.6e-12 against mpmath; see HighPrecisionReferences).
Values parameters(double lo, double hi, double step) {
  Values out;
  for (double e = lo; e <= hi + 1e-9; e += step) out.push_back(1.0371 * std::pow(10.0, e));
  return out;
}

// "(a, x)" or "(a, b, x)" with all digits. (Streams rather than string concatenation, on which
// GCC 12 reports a false -Wrestrict.)
std::string point(std::initializer_list<double> coordinates) {
  std::ostringstream out;
  out << std::setprecision(17) << "(";
  const char* separator = "";
  for (double c : coordinates) {
    out << separator << c;
    separator = ", ";
  }
  out << ")";
  return out.str();
}

// Tracks the largest relative error of a grid and where it occurred.
struct Worst {
  double error = 0;
  std::string where;
  void add(double got, double want, const std::string& at) {
    const double e = relative_error(got, want);
    if (!(e <= error)) {  // NaN counts as the worst
      error = e;
      std::ostringstream out;
      out << std::setprecision(17) << at << ": got " << got << ", want " << want;
      where = out.str();
    }
  }
};

TEST(Atan, MatchesTheStandardLibrary) {
  const Values xs = {-1e300, -3.0, -1.0, -1e-8, 0.0, 0.5, 2.0, 1e10, INFINITY, -INFINITY};
  const Values y = values(prim::unary(UnaryOp::atan, vec(xs)));
  for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(y[i], std::atan(xs[i])) << xs[i];
  EXPECT_EQ(y[8], std::numbers::pi / 2);
  EXPECT_TRUE(std::isnan(prim::unary(UnaryOp::atan, vec({NAN})).item()));
  const Tensor f = prim::unary(UnaryOp::atan, prim::cast(vec({1.0}), DType::f32));
  EXPECT_EQ(f.dtype(), DType::f32);
  EXPECT_FLOAT_EQ(float(f.item()), std::atan(1.0f));
  EXPECT_EQ(prim::unary(UnaryOp::atan, Tensor::from(std::vector<std::int64_t>{1}, Shape{1})).dtype(), DType::f64);
}

// P and Q on a grid of a in [1e-3, 1e4] and x from 1e-4 to a + 700: a log-spaced sweep, a sweep of
// +-40 standard deviations around the mean a (both tails down to 1e-300 and below), and points far
// in the upper tail. Both are computed through the tensor ops, one element per grid point.
TEST(IncompleteGamma, MatchesBoostOverWideRanges) {
  Values as = parameters(-3, 4, 0.25);
  as.insert(as.end(), {1e-3, 0.5, 1.0, 2.5, 15.5, 16.0, 1e4});
  Values a_grid, x_grid;
  for (double a : as) {
    Values xs;
    for (double e = -4; e <= 4.5; e += 0.5) xs.push_back(std::pow(10.0, e));
    for (double s = -40; s <= 40; s += 1) xs.push_back(a + s * std::sqrt(a));
    for (double t : {50.0, 200.0, 500.0, 600.0, 650.0, 680.0, 700.0}) xs.push_back(a + t);
    for (double x : xs) {
      if (x <= 0) continue;
      a_grid.push_back(a);
      x_grid.push_back(x);
    }
  }
  const Values p = values(prim::binary(BinaryOp::igamma, vec(a_grid), vec(x_grid)));
  const Values q = values(prim::binary(BinaryOp::igammac, vec(a_grid), vec(x_grid)));
  Worst worst_p, worst_q;
  int tiny_p = 0, tiny_q = 0;
  for (std::size_t i = 0; i < a_grid.size(); ++i) {
    const double a = a_grid[i], x = x_grid[i];
    const double want_p = boost::math::gamma_p(a, x), want_q = boost::math::gamma_q(a, x);
    worst_p.add(p[i], want_p, point({a, x}));
    worst_q.add(q[i], want_q, point({a, x}));
    tiny_p += want_p > 1e-300 && want_p < 1e-250;
    tiny_q += want_q > 1e-300 && want_q < 1e-250;
  }
  EXPECT_LT(worst_p.error, 1e-12) << "P at " << worst_p.where;
  EXPECT_LT(worst_q.error, 1e-12) << "Q at " << worst_q.where;
  // The grid reaches both tails near the bottom of the double range.
  EXPECT_GT(tiny_p, 10);
  EXPECT_GT(tiny_q, 10);
}

TEST(IncompleteGamma, HighPrecisionReferences) {
  // mpmath 1.3 gammainc(..., regularized=True) at 50 digits.
  struct Case {
    BinaryOp op;
    double a, x, want;
  };
  const Case cases[] = {
      {BinaryOp::igamma, 1e4, 9e3, 2.0732992024339280144e-25},   // large a, lower tail
      {BinaryOp::igammac, 1e-3, 0.5, 5.6006665647074988868e-4},  // small a: 1 - P would cancel
      {BinaryOp::igammac, 0.5, 700.0, 2.101014516264217495e-306},
      {BinaryOp::igamma, 2.5, 1e-120, 3.0090111122547000361e-301},
  };
  for (const Case& c : cases) {
    const double got = prim::binary(c.op, Tensor::scalar(c.a), Tensor::scalar(c.x)).item();
    EXPECT_LT(relative_error(got, c.want), 1e-13) << name(c.op) << point({c.a, c.x});
  }
}

TEST(IncompleteGamma, SpecialValues) {
  auto p = [](double a, double x) {
    return prim::binary(BinaryOp::igamma, Tensor::scalar(a), Tensor::scalar(x)).item();
  };
  auto q = [](double a, double x) {
    return prim::binary(BinaryOp::igammac, Tensor::scalar(a), Tensor::scalar(x)).item();
  };
  for (double x : Values{0.0, -1.0, -INFINITY}) {
    EXPECT_EQ(p(2.0, x), 0.0) << x;
    EXPECT_EQ(q(2.0, x), 1.0) << x;
  }
  EXPECT_EQ(p(2.0, INFINITY), 1.0);
  EXPECT_EQ(q(2.0, INFINITY), 0.0);
  for (double a : Values{0.0, -1.0, NAN})
    for (double x : Values{0.5, 0.0, INFINITY}) {
      EXPECT_TRUE(std::isnan(p(a, x))) << point({a, x});
      EXPECT_TRUE(std::isnan(q(a, x))) << point({a, x});
    }
  EXPECT_TRUE(std::isnan(p(2.0, NAN)));
  EXPECT_TRUE(std::isnan(q(2.0, NAN)));
  // a = inf: the limits (the law's mass has moved to infinity), undefined at x = inf.
  EXPECT_EQ(p(INFINITY, 1e300), 0.0);
  EXPECT_EQ(q(INFINITY, 1e300), 1.0);
  EXPECT_TRUE(std::isnan(p(INFINITY, INFINITY)));
  // Closed forms: P(1, x) = 1 - e^-x, Q(1/2, x) = erfc(sqrt(x)).
  EXPECT_NEAR(p(1.0, 1e-10), -std::expm1(-1e-10), 1e-14 * 1e-10);
  EXPECT_NEAR(q(0.5, 30.0), std::erfc(std::sqrt(30.0)), 1e-14 * std::erfc(std::sqrt(30.0)));
}

TEST(IncompleteGamma, DtypesAndBroadcasting) {
  const Tensor a = Tensor::from(Values{0.5, 3.0}, Shape{2, 1}), x = vec({0.1, 1.0, 10.0});
  const Tensor p = prim::binary(BinaryOp::igamma, a, x);
  EXPECT_EQ(p.shape(), (Shape{2, 3}));
  EXPECT_EQ(p.dtype(), DType::f64);
  EXPECT_NEAR(p.at(4), boost::math::gamma_p(3.0, 1.0), 1e-15);
  const Tensor f = prim::binary(BinaryOp::igammac, prim::cast(a, DType::f32), prim::cast(x, DType::f32));
  EXPECT_EQ(f.dtype(), DType::f32);
  EXPECT_FLOAT_EQ(float(f.at(5)), float(boost::math::gamma_q(3.0, 10.0)));
  // Integer operands are computed in f64, as true division is.
  const Tensor ints = prim::binary(BinaryOp::igamma, Tensor::from(std::vector<std::int64_t>{2}, Shape{1}),
                                   Tensor::from(std::vector<std::int64_t>{3}, Shape{1}));
  EXPECT_EQ(ints.dtype(), DType::f64);
  EXPECT_NEAR(ints.item(), boost::math::gamma_p(2.0, 3.0), 1e-15);
  EXPECT_ERROR(prim::binary(BinaryOp::igamma, vec({1, 2}), x), "igamma: shapes");
}

// I_x(a, b) on a grid of a, b in [1e-3, 1e4] and x at powers of ten down to 1e-300, at 1 - 10^-k,
// within +-40 standard deviations of the mean and across (0, 1).
TEST(IncompleteBeta, MatchesBoostOverWideRanges) {
  const Values ps = parameters(-3, 4, 0.5);
  Values a_grid, b_grid, x_grid;
  for (double a : ps)
    for (double b : ps) {
      Values xs;
      for (double k : {1, 2, 3, 5, 8, 12, 20, 50, 100, 200, 300}) xs.push_back(std::pow(10.0, -k));
      for (int k = 1; k <= 15; ++k) xs.push_back(1 - std::pow(10.0, -k));
      const double mean = a / (a + b), sd = std::sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)));
      for (double s = -40; s <= 40; s += 4) xs.push_back(mean + s * sd);
      for (double x = 0.05; x < 1; x += 0.1) xs.push_back(x);
      for (double x : xs) {
        if (!(x > 0 && x < 1)) continue;
        a_grid.push_back(a);
        b_grid.push_back(b);
        x_grid.push_back(x);
      }
    }
  const Values got = values(prim::betainc(vec(a_grid), vec(b_grid), vec(x_grid)));
  Worst worst;
  int tiny = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double a = a_grid[i], b = b_grid[i], x = x_grid[i];
    const double want = boost::math::ibeta(a, b, x);
    worst.add(got[i], want, point({a, b, x}));
    tiny += want > 1e-300 && want < 1e-250;
  }
  EXPECT_LT(worst.error, 1e-12) << "I_x(a, b) at (a, b, x) = " << worst.where;
  EXPECT_GT(tiny, 20);
}

TEST(IncompleteBeta, HighPrecisionReferences) {
  // mpmath 1.3 betainc(a, b, 0, x, regularized=True) at 50 digits.
  struct Case {
    double a, b, x, want;
  };
  const Case cases[] = {
      {177.828, 10, 0.9, 7.8937052334750486381e-3},   // Boost 1.74 is off by 2.6e-12 here
      {1e4, 0.01, 0.9998, 4.9659531684029196882e-4},  // large a, small b: the continued
                                                      // fraction's terms nearly cancel
      {1e-3, 1e-3, 0.5, 0.5},                         // symmetry
      {3e3, 2e3, 0.5, 5.1957789376398457015e-46},     // large a and b, lower tail
  };
  for (const Case& c : cases) {
    const double got = prim::betainc(Tensor::scalar(c.a), Tensor::scalar(c.b), Tensor::scalar(c.x)).item();
    EXPECT_LT(relative_error(got, c.want), 1e-14) << c.a << ", " << c.b << ", " << c.x;
  }
}

TEST(IncompleteBeta, SpecialValues) {
  auto ibeta = [](double a, double b, double x) {
    return prim::betainc(Tensor::scalar(a), Tensor::scalar(b), Tensor::scalar(x)).item();
  };
  for (double x : Values{0.0, -1.0, -INFINITY}) EXPECT_EQ(ibeta(2.0, 3.0, x), 0.0) << x;
  for (double x : Values{1.0, 2.0, INFINITY}) EXPECT_EQ(ibeta(2.0, 3.0, x), 1.0) << x;
  for (double bad : Values{0.0, -1.0, NAN}) {
    EXPECT_TRUE(std::isnan(ibeta(bad, 3.0, 0.5))) << bad;
    EXPECT_TRUE(std::isnan(ibeta(2.0, bad, 0.5))) << bad;
  }
  EXPECT_TRUE(std::isnan(ibeta(2.0, 3.0, NAN)));
  // Infinite parameters: the limits, NaN when both are infinite.
  EXPECT_EQ(ibeta(INFINITY, 3.0, 0.999), 0.0);
  EXPECT_EQ(ibeta(2.0, INFINITY, 1e-300), 1.0);
  EXPECT_TRUE(std::isnan(ibeta(INFINITY, INFINITY, 0.5)));
  // Closed forms: I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b.
  EXPECT_NEAR(ibeta(2.5, 1.0, 0.3), std::pow(0.3, 2.5), 1e-16);
  EXPECT_NEAR(ibeta(1.0, 4.0, 1e-10), -std::expm1(4 * std::log1p(-1e-10)), 1e-14 * 4e-10);
}

TEST(IncompleteBeta, DtypesAndBroadcasting) {
  const Tensor a = Tensor::from(Values{0.5, 3.0}, Shape{2, 1}), b = vec({1.5, 2.0, 40.0}), x = Tensor::scalar(0.3);
  const Tensor i = prim::betainc(a, b, x);
  EXPECT_EQ(i.shape(), (Shape{2, 3}));
  EXPECT_EQ(i.dtype(), DType::f64);
  for (std::int64_t r = 0; r < 2; ++r)
    for (std::int64_t c = 0; c < 3; ++c)
      EXPECT_NEAR(i.at(r * 3 + c), boost::math::ibeta(a.at(r), b.at(c), 0.3), 1e-15) << r << ", " << c;
  const Tensor f = prim::betainc(prim::cast(a, DType::f32), prim::cast(b, DType::f32), prim::cast(x, DType::f32));
  EXPECT_EQ(f.dtype(), DType::f32);
  EXPECT_FLOAT_EQ(float(f.at(4)), float(boost::math::ibeta(3.0, 2.0, 0.3)));
  EXPECT_EQ(prim::betainc(Tensor::from(std::vector<std::int32_t>{2}, Shape{1}), b, x).dtype(), DType::f64);
  EXPECT_ERROR(prim::betainc(a, b, vec({0.1, 0.2})), "betainc: shapes");
  EXPECT_ERROR(prim::betainc(a, b, Tensor()), "betainc: the x tensor is undefined");
}

}  // namespace
}  // namespace variate

namespace variate {
namespace {

// d P(a, x) / da by the five-point central difference of Boost's P (or -Q where P > 1/2, the tail
// held with full relative accuracy): truncation error h^4 |f^(5)| / 30 and rounding error about
// 3 eps |f| / (2 h). The step is 1e-3 of the scale on which f changes with a: a for a < 1,
// sqrt(a) above (the law's width in a), and 5 / |log x| where that is smaller (in the lower tail
// P ~ x^a / Gamma(a + 1), whose derivatives in a grow like |log x|^k). Both errors are then below
// 1e-11 of the derivative at the points below.
double reference_igamma_grad_a(double a, double x) {
  const bool lower = boost::math::gamma_p(a, x) <= 0.5;
  auto f = [&](double s) { return lower ? boost::math::gamma_p(s, x) : -boost::math::gamma_q(s, x); };
  const double h = 1e-3 * std::min(a < 1 ? a : std::sqrt(a), 5 / std::abs(std::log(x)));
  return (8 * (f(a + h) - f(a - h)) - (f(a + 2 * h) - f(a - 2 * h))) / (12 * h);
}

// The implicit reparameterization gradient of a Gamma(a, 1) draw x, d log x / da =
// -(dP/da) / (x p(x; a)), against the reference derivative, at the 1e-6, ..., 1 - 1e-6 quantiles
// (where draws occur) of a from 0.1 to 1e3. Its two branches (series below x = a + 1, continued
// fraction above) are both reached, and are accurate to a few hundred epsilons; the bound 1e-9 is
// the reference's error (above) with a margin of 100.
TEST(IncompleteGamma, ImplicitDrawGradientMatchesDerivativeOfP) {
  Values a_grid, log_x_grid;
  for (double a : {0.1, 0.37, 1.0, 2.5, 13.0, 150.0, 1000.0})
    for (double u : {1e-6, 1e-3, 0.1, 0.5, 0.9, 0.999, 1 - 1e-6}) {
      a_grid.push_back(a);
      log_x_grid.push_back(std::log(u < 0.5 ? boost::math::gamma_p_inv(a, u) : boost::math::gamma_q_inv(a, 1 - u)));
    }
  const Values got = values(prim::binary(BinaryOp::gamma_log_draw_grad, vec(a_grid), vec(log_x_grid)));
  int series = 0, fraction = 0;
  for (std::size_t i = 0; i < a_grid.size(); ++i) {
    const double a = a_grid[i], x = std::exp(log_x_grid[i]);
    const double x_density = std::exp(a * std::log(x) - x - std::lgamma(a));
    const double want = -reference_igamma_grad_a(a, x) / x_density;
    EXPECT_GT(got[i], 0) << point({a, x});
    EXPECT_LT(relative_error(got[i], want), 1e-9) << point({a, x}) << " got " << got[i] << " want " << want;
    (x < a + 1 ? series : fraction) += 1;
  }
  EXPECT_GT(series, 10);
  EXPECT_GT(fraction, 10);
  // mpmath 1.3 at 40 digits, -diff(gammainc(a, 0, x, regularized=True), a) / (x^a e^-x / gamma(a)),
  // in the far lower tail.
  const Values deep = values(prim::binary(
      BinaryOp::gamma_log_draw_grad, vec({0.1, 0.37, 1.0}),
      vec({std::log(6.073048362407943e-61), std::log(4.426844773218345e-17), std::log(1.0000005000003338e-06)})));
  EXPECT_LT(relative_error(deep[0], 1382.300750518300438682520425462599471505), 1e-13);
  EXPECT_LT(relative_error(deep[1], 101.5234075222334016717755961507472907436), 1e-13);
  EXPECT_LT(relative_error(deep[2], 14.23830176221592548664546214075615057904), 1e-13);
  // A draw that underflowed keeps a finite gradient from its log: P ~ x^a / Gamma(a + 1) there, so
  // d log x / da = (digamma(a + 1) - log x) / a.
  const Values tiny = values(prim::binary(BinaryOp::gamma_log_draw_grad, vec({0.01}), vec({-2000.0})));
  EXPECT_NEAR(tiny[0], (boost::math::digamma(1.01) + 2000.0) / 0.01, 1e-12 * tiny[0]);
}

}  // namespace
}  // namespace variate
