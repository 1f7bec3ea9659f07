// Element-wise prims: cast, unary math (with its stability at extreme arguments), broadcasting
// binary ops with dtype promotion, where, and the parallel strided paths against naive loops.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/tensor/prim.hpp"

namespace variate {
namespace {

using Values = std::vector<double>;

Values values(const Tensor& t) { return t.to_vector<double>(); }

Tensor random_f64(const Shape& shape, unsigned seed) { return testing::uniform_tensor(shape, seed, -1, 1); }

// ---- cast ----

TEST(Cast, ConvertsBetweenDtypes) {
  const Tensor x = Tensor::vec({-1.5, 0, 2.7});
  const Tensor ints = prim::cast(x, DType::i32);
  EXPECT_EQ(ints.dtype(), DType::i32);
  EXPECT_EQ(values(ints), (Values{-1, 0, 2}));  // truncation toward zero, as in C++ and NumPy
  EXPECT_EQ(values(prim::cast(x, DType::boolean)), (Values{1, 0, 1}));
  EXPECT_EQ(values(prim::cast(prim::cast(x, DType::boolean), DType::f32)), (Values{1, 0, 1}));
  EXPECT_EQ(prim::cast(x, DType::f32).dtype(), DType::f32);
  EXPECT_EQ(prim::cast(x, DType::f64).raw(), x.raw());  // same dtype: no copy
  EXPECT_ERROR(prim::cast(Tensor(), DType::f64), "cast: the input tensor is undefined");
}

// ---- unary ----

TEST(Unary, MatchesTheStandardLibrary) {
  const Values xs = {-3.5, -0.7, 0.0, 0.3, 1.0, 2.5, 40.0};
  const Tensor x = Tensor::vec({-3.5, -0.7, 0.0, 0.3, 1.0, 2.5, 40.0});
  const std::vector<std::pair<UnaryOp, double (*)(double)>> cases = {
      {UnaryOp::neg, [](double v) { return -v; }},
      {UnaryOp::exp, [](double v) { return std::exp(v); }},
      {UnaryOp::expm1, [](double v) { return std::expm1(v); }},
      {UnaryOp::abs, [](double v) { return std::abs(v); }},
      {UnaryOp::sign, [](double v) { return double((v > 0) - (v < 0)); }},
      {UnaryOp::square, [](double v) { return v * v; }},
      {UnaryOp::reciprocal, [](double v) { return 1 / v; }},
      {UnaryOp::sigmoid, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {UnaryOp::log_sigmoid, [](double v) { return -std::log1p(std::exp(-v)); }},
      {UnaryOp::softplus, [](double v) { return std::log1p(std::exp(v)); }},
      {UnaryOp::tanh, [](double v) { return std::tanh(v); }},
      {UnaryOp::lgamma, [](double v) { return std::lgamma(v); }},
      {UnaryOp::erf, [](double v) { return std::erf(v); }},
      {UnaryOp::erfc, [](double v) { return std::erfc(v); }},
      {UnaryOp::floor, [](double v) { return std::floor(v); }},
  };
  for (const auto& [op, reference] : cases) {
    const Tensor y = prim::unary(op, x);
    ASSERT_EQ(y.dtype(), DType::f64);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double expected = reference(xs[i]);
      if (std::isinf(expected))
        EXPECT_EQ(y.at(std::int64_t(i)), expected) << name(op) << "(" << xs[i] << ")";
      else
        EXPECT_NEAR(y.at(std::int64_t(i)), expected, 1e-13 * (1 + std::abs(expected)))
            << name(op) << "(" << xs[i] << ")";
    }
  }
}

TEST(Unary, LogarithmsAndRootsOfPositiveArguments) {
  const Values xs = {1e-300, 1e-20, 0.5, 1, 3, 1e300};
  const Tensor x = Tensor::from(xs, {6});
  const Tensor log = prim::unary(UnaryOp::log, x), log1p = prim::unary(UnaryOp::log1p, x);
  const Tensor sqrt = prim::unary(UnaryOp::sqrt, x);
  for (std::int64_t i = 0; i < 6; ++i) {
    const double v = xs[std::size_t(i)];
    EXPECT_NEAR(log.at(i), std::log(v), 1e-15 * std::abs(std::log(v))) << v;
    EXPECT_NEAR(log1p.at(i), std::log1p(v), 1e-15 * std::log1p(v)) << v;  // exact for tiny v
    EXPECT_EQ(sqrt.at(i), std::sqrt(v)) << v;
  }
  const Values special = values(prim::unary(UnaryOp::log, Tensor::vec({0, -1, INFINITY})));
  EXPECT_EQ(special[0], -INFINITY);
  EXPECT_TRUE(std::isnan(special[1]));
  EXPECT_EQ(special[2], INFINITY);
}

TEST(Unary, StableAtExtremeArguments) {
  const Tensor x = Tensor::vec({-1000, -40, 40, 1000});
  EXPECT_EQ(values(prim::unary(UnaryOp::sigmoid, x)), (Values{0, std::exp(-40.0) / (1 + std::exp(-40.0)), 1, 1}));
  const Values softplus = values(prim::unary(UnaryOp::softplus, x));
  EXPECT_EQ(softplus[0], 0);
  EXPECT_NEAR(softplus[1], std::exp(-40.0), 1e-30);  // no cancellation for very negative x
  EXPECT_EQ(softplus[2], 40);
  EXPECT_EQ(softplus[3], 1000);  // no overflow
  const Values log_sigmoid = values(prim::unary(UnaryOp::log_sigmoid, x));
  EXPECT_EQ(log_sigmoid[0], -1000);
  EXPECT_EQ(log_sigmoid[3], 0);
  EXPECT_NEAR(prim::unary(UnaryOp::expm1, Tensor::vec({1e-10})).item(), 1.00000000005e-10, 1e-25);
}

TEST(Unary, GammaFamily) {
  constexpr double euler = 0.57721566490153286061, pi = std::numbers::pi;
  const Values digamma = values(prim::unary(UnaryOp::digamma, Tensor::vec({1, 0.5, 10, -0.5, 1e-8})));
  EXPECT_NEAR(digamma[0], -euler, 1e-14);
  EXPECT_NEAR(digamma[1], -euler - 2 * std::log(2.0), 1e-14);
  EXPECT_NEAR(digamma[2], 2.25175258906672110764, 1e-14);
  EXPECT_NEAR(digamma[3], 0.03648997397857652056, 1e-13);  // reflection for x < 0
  EXPECT_NEAR(digamma[4], -1e8 - euler, 1e-6);
  const Values trigamma = values(prim::unary(UnaryOp::trigamma, Tensor::vec({1, 0.5, 10, -0.5})));
  EXPECT_NEAR(trigamma[0], pi * pi / 6, 1e-14);
  EXPECT_NEAR(trigamma[1], pi * pi / 2, 1e-13);
  EXPECT_NEAR(trigamma[2], 0.10516633568168574612, 1e-14);
  EXPECT_NEAR(trigamma[3], pi * pi / 2 + 4, 1e-12);  // psi'(-1/2) = pi^2/2 + 4
  const Tensor poles = Tensor::vec({0, -2, NAN});
  for (UnaryOp op : {UnaryOp::digamma, UnaryOp::trigamma})
    for (double v : values(prim::unary(op, poles))) EXPECT_TRUE(std::isnan(v)) << name(op);
  EXPECT_NEAR(prim::unary(UnaryOp::lgamma, Tensor::vec({171.5})).item(), std::lgamma(171.5), 1e-10);
}

TEST(Unary, DtypeRules) {
  const Tensor ints = Tensor::from(std::vector<std::int32_t>{-2, 0, 3}, {3});
  for (UnaryOp op : {UnaryOp::neg, UnaryOp::abs, UnaryOp::sign, UnaryOp::square})
    EXPECT_EQ(prim::unary(op, ints).dtype(), DType::i32) << name(op);
  EXPECT_EQ(values(prim::unary(UnaryOp::abs, ints)), (Values{2, 0, 3}));
  EXPECT_EQ(values(prim::unary(UnaryOp::square, ints)), (Values{4, 0, 9}));
  EXPECT_EQ(values(prim::unary(UnaryOp::sign, ints)), (Values{-1, 0, 1}));
  const Tensor e = prim::unary(UnaryOp::exp, ints);  // integer math becomes f64
  EXPECT_EQ(e.dtype(), DType::f64);
  EXPECT_DOUBLE_EQ(e.at(2), std::exp(3.0));
  const Tensor f = prim::unary(UnaryOp::exp, prim::cast(ints, DType::f32));
  EXPECT_EQ(f.dtype(), DType::f32);
  EXPECT_FLOAT_EQ(float(f.at(2)), std::exp(3.0f));
  const Tensor flags = prim::cast(Tensor::vec({1, 0}), DType::boolean);
  EXPECT_EQ(values(prim::unary(UnaryOp::logical_not, flags)), (Values{0, 1}));
  EXPECT_EQ(prim::unary(UnaryOp::neg, flags).dtype(), DType::f64);
}

TEST(Unary, LargeParallel) {
  const Tensor x = random_f64({300001}, 1);
  const Tensor y = prim::unary(UnaryOp::log_sigmoid, prim::cast(x, DType::f32));
  for (std::int64_t i = 0; i < x.numel(); i += 997) ASSERT_NEAR(y.at(i), -std::log1p(std::exp(-float(x.at(i)))), 1e-6);
}

TEST(Unary, Errors) {
  EXPECT_ERROR(prim::unary(UnaryOp::logical_not, Tensor::vec({1})), "logical_not: expected a bool tensor, got f64");
  EXPECT_ERROR(prim::unary(UnaryOp::exp, Tensor()), "exp: the input tensor is undefined");
}

// ---- binary ----

TEST(Binary, BroadcastsRowsAndColumns) {
  const Tensor col = Tensor::from(Values{1, 2, 3}, {3, 1}), row = Tensor::vec({10, 20, 30, 40});
  const Tensor sum = prim::add(col, row);
  EXPECT_EQ(sum.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(sum), (Values{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
  EXPECT_EQ(values(prim::sub(row, Tensor::scalar(10))), (Values{0, 10, 20, 30}));
  EXPECT_EQ(values(prim::div(Tensor::scalar(60), row)), (Values{6, 3, 2, 1.5}));
  const Tensor cube = prim::mul(Tensor::ones({2, 1, 3}), Tensor::from(Values{1, 2, 3, 4}, {4, 1}));
  EXPECT_EQ(cube.shape(), (Shape{2, 4, 3}));
  EXPECT_EQ(cube.at(3 * 3 + 2), 4);
}

TEST(Binary, AllOps) {
  const Tensor a = Tensor::vec({1, 4, -2, NAN}), b = Tensor::vec({2, 4, 3, 1});
  EXPECT_EQ(values(prim::binary(BinaryOp::pow, Tensor::vec({2, 9}), Tensor::vec({3, 0.5}))), (Values{8, 3}));
  const Values mx = values(prim::binary(BinaryOp::maximum, a, b)), mn = values(prim::binary(BinaryOp::minimum, a, b));
  EXPECT_EQ(Values(mx.begin(), mx.begin() + 3), (Values{2, 4, 3}));
  EXPECT_EQ(Values(mn.begin(), mn.begin() + 3), (Values{1, 4, -2}));
  EXPECT_TRUE(std::isnan(mx[3]) && std::isnan(mn[3]));  // NaN propagates, as in NumPy
  const std::vector<std::pair<BinaryOp, Values>> comparisons = {
      {BinaryOp::eq, {0, 1, 0, 0}}, {BinaryOp::ne, {1, 0, 1, 1}}, {BinaryOp::lt, {1, 0, 1, 0}},
      {BinaryOp::le, {1, 1, 1, 0}}, {BinaryOp::gt, {0, 0, 0, 0}}, {BinaryOp::ge, {0, 1, 0, 0}}};
  for (const auto& [op, expected] : comparisons) {
    const Tensor r = prim::binary(op, a, b);
    EXPECT_EQ(r.dtype(), DType::boolean) << name(op);
    EXPECT_EQ(values(r), expected) << name(op);
  }
  const Tensor p = prim::cast(Tensor::vec({1, 1, 0, 0}), DType::boolean),
               q = prim::cast(Tensor::vec({1, 0, 1, 0}), DType::boolean);
  EXPECT_EQ(values(prim::binary(BinaryOp::logical_and, p, q)), (Values{1, 0, 0, 0}));
  EXPECT_EQ(values(prim::binary(BinaryOp::logical_or, p, q)), (Values{1, 1, 1, 0}));
}

// A zero first factor wins over an infinite or NaN second one (0 log 0 = 0 in densities); a NaN
// first factor stays NaN.
TEST(Binary, TimesNonzero) {
  const Values tn = values(
      prim::binary(BinaryOp::times_nonzero, Tensor::vec({0, 0, 2, NAN, -0.0}), Tensor::vec({INFINITY, NAN, 3, 0, 5})));
  ASSERT_EQ(tn.size(), 5u);
  EXPECT_EQ(tn[0], 0.0);
  EXPECT_EQ(tn[1], 0.0);
  EXPECT_EQ(tn[2], 6.0);
  EXPECT_TRUE(std::isnan(tn[3]));
  EXPECT_FALSE(std::signbit(tn[4]));  // +0, as the where(c == 0, 0, c x) it replaced
}

// -z^2 / 2 - b in one rounding: with operands of few significant bits the exact value is a double
// (and a float), so each result must be it exactly, in both precisions; infinite z gives -inf and
// NaN stays NaN; integer operands compute in double.
TEST(Binary, NormalLogDensityIsMinusHalfTheSquareLessTheNormalizer) {
  const std::vector<double> z = {0, 0.5, -1.25, 3, 1000.25, -7.5, INFINITY, -INFINITY, NAN, 2};
  const std::vector<double> b = {0.75, -2, 10, 0.5, -3.25, 0, 1, 1, 1, NAN};
  for (DType t : {DType::f64, DType::f32}) {
    const Tensor lp = prim::binary(BinaryOp::normal_log_density, prim::cast(Tensor::from(z, {10}), t),
                                   prim::cast(Tensor::from(b, {10}), t));
    EXPECT_EQ(lp.dtype(), t);
    const Values got = values(lp);
    for (std::size_t i = 0; i < 6; ++i)
      EXPECT_EQ(got[i], -z[i] * z[i] / 2 - b[i]) << "z = " << z[i] << ", b = " << b[i];
    EXPECT_EQ(got[6], -INFINITY);
    EXPECT_EQ(got[7], -INFINITY);
    EXPECT_TRUE(std::isnan(got[8]));
    EXPECT_TRUE(std::isnan(got[9]));
  }
  const Tensor ints = prim::binary(BinaryOp::normal_log_density, Tensor::from(std::vector<std::int64_t>{3}, {1}),
                                   Tensor::from(std::vector<std::int64_t>{1}, {1}));
  EXPECT_EQ(ints.dtype(), DType::f64);
  EXPECT_EQ(ints.at(0), -5.5);
}

// The fused Bernoulli-logit terms equal log_sigmoid(+-l) and +-sigmoid(-+l) at 1 and 0, bit for bit;
// NaN values stay NaN; other values are outside the support (-inf, and 0 for the derivative). In both
// precisions, since the loops run in the data's width.
TEST(Binary, BernoulliLogitTermsAreLogSigmoidsOfTheSignedLogit) {
  for (DType t : {DType::f64, DType::f32}) {
    const Tensor l = prim::cast(Tensor::vec({-800, -40, -1.5, 0, 0.3, 40, 800, 2, 2, 2, 2}), t);
    const Tensor x = prim::cast(Tensor::vec({1, 1, 1, 1, 0, 0, 0, NAN, 0.5, -1, 2}), t);
    const Values lp = values(prim::binary(BinaryOp::bernoulli_logit_log_prob, l, x));
    const Values score = values(prim::binary(BinaryOp::bernoulli_logit_score, l, x));
    const Values ls_pos = values(prim::unary(UnaryOp::log_sigmoid, l)),
                 ls_neg = values(prim::unary(UnaryOp::log_sigmoid, prim::neg(l)));
    const Values sig_pos = values(prim::unary(UnaryOp::sigmoid, l)),
                 sig_neg = values(prim::unary(UnaryOp::sigmoid, prim::neg(l)));
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(lp[i], ls_pos[i]) << "x = 1, l = " << l.at(std::int64_t(i));
      EXPECT_EQ(score[i], sig_neg[i]) << "x = 1, l = " << l.at(std::int64_t(i));
    }
    for (std::size_t i = 4; i < 7; ++i) {
      EXPECT_EQ(lp[i], ls_neg[i]) << "x = 0, l = " << l.at(std::int64_t(i));
      EXPECT_EQ(score[i], -sig_pos[i]) << "x = 0, l = " << l.at(std::int64_t(i));
    }
    EXPECT_TRUE(std::isnan(lp[7]) && std::isnan(score[7]));
    for (std::size_t i = 8; i < 11; ++i) {
      EXPECT_EQ(lp[i], -INFINITY) << "x = " << x.at(std::int64_t(i));
      EXPECT_EQ(score[i], 0.0) << "x = " << x.at(std::int64_t(i));
    }
    EXPECT_EQ(lp[0], -800.0);  // log sigmoid(-800) without underflow
    EXPECT_EQ(prim::binary(BinaryOp::bernoulli_logit_log_prob, l, x).dtype(), t);
  }
  // Integer operands compute in double, as division does.
  EXPECT_EQ(prim::binary(BinaryOp::bernoulli_logit_score, Tensor::from(std::vector<std::int64_t>{0}, {1}),
                         Tensor::from(std::vector<std::int64_t>{1}, {1}))
                .dtype(),
            DType::f64);
}

TEST(Binary, DtypePromotion) {
  const Tensor i32 = Tensor::from(std::vector<std::int32_t>{7, -7}, {2});
  const Tensor i64 = Tensor::from(std::vector<std::int64_t>{2, 2}, {2});
  const Tensor f32 = Tensor::vec({0.5, 0.5}, DType::f32);
  const Tensor flags = prim::cast(Tensor::vec({1, 1}), DType::boolean);
  EXPECT_EQ(prim::add(i32, i64).dtype(), DType::i64);
  EXPECT_EQ(prim::add(i32, f32).dtype(), DType::f32);
  EXPECT_EQ(prim::add(f32, Tensor::vec({1, 1})).dtype(), DType::f64);
  const Tensor bool_sum = prim::add(flags, flags);  // bool arithmetic is integer arithmetic
  EXPECT_EQ(bool_sum.dtype(), DType::i64);
  EXPECT_EQ(values(bool_sum), (Values{2, 2}));
  const Tensor quotient = prim::div(i32, i64);  // true division
  EXPECT_EQ(quotient.dtype(), DType::f64);
  EXPECT_EQ(values(quotient), (Values{3.5, -3.5}));
  EXPECT_EQ(prim::binary(BinaryOp::pow, i64, i64).dtype(), DType::f64);
  EXPECT_EQ(values(prim::mul(i32, i64)), (Values{14, -14}));
  EXPECT_EQ(prim::binary(BinaryOp::lt, i32, f32).dtype(), DType::boolean);
}

TEST(Binary, ScalarOperandAdoptsTheTensorDtype) {
  const Tensor ints = Tensor::from(std::vector<std::int32_t>{1, 2}, {2});
  const Tensor shifted = prim::binary(BinaryOp::add, ints, 3.0);
  EXPECT_EQ(shifted.dtype(), DType::i32);
  EXPECT_EQ(values(shifted), (Values{4, 5}));
  const Tensor half = prim::binary(BinaryOp::mul, ints, 0.5);  // a fractional scalar needs floats
  EXPECT_EQ(half.dtype(), DType::f64);
  EXPECT_EQ(values(half), (Values{0.5, 1}));
  EXPECT_EQ(prim::binary(BinaryOp::mul, Tensor::vec({1}, DType::f32), 2.0).dtype(), DType::f32);
  EXPECT_EQ(prim::binary(BinaryOp::gt, ints, 1.5).dtype(), DType::boolean);
  EXPECT_EQ(values(prim::binary(BinaryOp::gt, ints, 1.5)), (Values{0, 1}));
}

TEST(Binary, LargeBroadcastMatchesNaive) {
  const Tensor a = random_f64({64, 1, 513}, 2), b = random_f64({1, 70, 1}, 3);
  const Tensor out = prim::binary(BinaryOp::sub, a, b);
  ASSERT_EQ(out.shape(), (Shape{64, 70, 513}));
  const double* pa = a.data<double>();
  const double* pb = b.data<double>();
  const double* po = out.data<double>();
  for (std::int64_t i = 0; i < 64; ++i)
    for (std::int64_t j = 0; j < 70; ++j)
      for (std::int64_t k = 0; k < 513; ++k) ASSERT_EQ(po[(i * 70 + j) * 513 + k], pa[i * 513 + k] - pb[j]);
  const Tensor c = random_f64({500, 300}, 4), col = random_f64({500, 1}, 5);
  const Tensor q = prim::binary(BinaryOp::lt, col, c);  // first operand broadcast, second contiguous
  for (std::int64_t i = 0; i < 500; ++i)
    for (std::int64_t j = 0; j < 300; ++j) ASSERT_EQ(q.at(i * 300 + j), double(col.at(i) < c.at(i * 300 + j)));
}

TEST(Binary, Errors) {
  EXPECT_ERROR(prim::add(Tensor::zeros({3}), Tensor::zeros({4})),
               "add: shapes [3] and [4] cannot be broadcast together");
  EXPECT_ERROR(prim::mul(Tensor::zeros({2, 3}), Tensor::zeros({3, 2})), "mul: shapes [2, 3] and [3, 2]");
  EXPECT_ERROR(prim::binary(BinaryOp::pow, Tensor(), Tensor::zeros({1})), "pow: the first tensor is undefined");
  EXPECT_ERROR(prim::sub(Tensor::zeros({1}), Tensor()), "sub: the second tensor is undefined");
}

// ---- where ----

TEST(Where, BroadcastsAndPromotes) {
  const Tensor cond = prim::cast(Tensor::from(Values{1, 0, 0, 1}, {2, 2}), DType::boolean);
  const Tensor out = prim::where(cond, Tensor::from(std::vector<std::int32_t>{7, 8}, {2}), Tensor::scalar(-0.5));
  EXPECT_EQ(out.dtype(), DType::f64);
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(out), (Values{7, -0.5, -0.5, 8}));
  const Tensor column = prim::where(prim::cast(Tensor::from(Values{0, 1}, {2, 1}), DType::boolean), Tensor::ones({3}),
                                    Tensor::zeros({3}));
  EXPECT_EQ(values(column), (Values{0, 0, 0, 1, 1, 1}));
}

TEST(Where, LargeMatchesNaive) {
  const Tensor x = random_f64({400, 300}, 6), y = random_f64({300}, 7);
  const Tensor cond = prim::binary(BinaryOp::gt, x, 0.0);
  const Tensor out = prim::where(cond, x, y);
  for (std::int64_t i = 0; i < 400; ++i)
    for (std::int64_t j = 0; j < 300; ++j) {
      const double v = x.at(i * 300 + j);
      ASSERT_EQ(out.at(i * 300 + j), v > 0 ? v : y.at(j));
    }
}

TEST(Where, Errors) {
  EXPECT_ERROR(prim::where(Tensor::ones({2}), Tensor::ones({2}), Tensor::ones({2})),
               "where: the condition must be bool, got f64");
  const Tensor cond = Tensor::ones({3}, DType::boolean);
  EXPECT_ERROR(prim::where(cond, Tensor::ones({2}), Tensor::ones({2})), "where: shapes [3] and [2]");
  EXPECT_ERROR(prim::where(cond, Tensor(), Tensor::ones({3})), "where: the first tensor is undefined");
}

}  // namespace
}  // namespace variate
