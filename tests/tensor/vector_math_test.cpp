// The branch-free exp/expm1/log/log1p/tanh against the C library: ulp error over wide ranges and the IEEE
// special cases.
#include "tensor/cpu/vector_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "variate/tensor/prim.hpp"

namespace variate::cpu {
namespace {

double ulp_error(double got, double want) {
  if (got == want) return 0;
  return std::abs(got - want) / std::abs(std::nextafter(want, INFINITY) - want);
}

template <class F, class G>
double max_ulp(F ours, G reference, double lo, double hi, bool log_spaced) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(lo, hi);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double t = u(gen);
    const double x = log_spaced ? std::exp(t) : t;
    worst = std::max(worst, ulp_error(ours(x), reference(x)));
  }
  return worst;
}

TEST(VectorMath, ExpIsAccurate) {
  EXPECT_LE(max_ulp([](double x) { return vexp(x); }, [](double x) { return std::exp(x); }, -700, 700, false), 2.0);
  EXPECT_LE(max_ulp([](double x) { return vexp(x); }, [](double x) { return std::exp(x); }, -1, 1, false), 2.0);
  // Subnormal results.
  EXPECT_LE(max_ulp([](double x) { return vexp(x); }, [](double x) { return std::exp(x); }, -744, -709, false), 2.0);
}

TEST(VectorMath, LogIsAccurate) {
  EXPECT_LE(max_ulp(
                vlog<double>, [](double x) { return std::log(x); }, -700, 700, true),
            2.0);
  EXPECT_LE(max_ulp(
                vlog<double>, [](double x) { return std::log(x); }, 0.5, 2, false),
            2.0);
  EXPECT_LE(ulp_error(vlog(4.9e-320), std::log(4.9e-320)), 2.0);  // subnormal input
}

TEST(VectorMath, Log1pIsAccurate) {
  EXPECT_LE(max_ulp(
                vlog1p<double>, [](double x) { return std::log1p(x); }, -40, 40, true),
            2.0);
  EXPECT_LE(max_ulp(
                vlog1p<double>, [](double x) { return std::log1p(x); }, -0.999, 3, false),
            2.0);
  EXPECT_LE(max_ulp([](double x) { return vlog1p(-x); }, [](double x) { return std::log1p(-x); }, -40, -1e-9, true),
            2.0);
}

TEST(VectorMath, Expm1IsAccurate) {
  const auto ours = [](double x) { return vexpm1(x); };
  const auto reference = [](double x) { return std::expm1(x); };
  EXPECT_LE(max_ulp(ours, reference, -745, 709.7, false), 2.0);
  EXPECT_LE(max_ulp(ours, reference, -1, 1, false), 2.0);
  EXPECT_LE(max_ulp(ours, reference, -40, 0, true), 2.0);  // tiny positive arguments
  EXPECT_LE(max_ulp([](double x) { return vexpm1(-x); }, [](double x) { return std::expm1(-x); }, -40, 0, true), 2.0);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(vexpm1(inf), inf);
  EXPECT_EQ(vexpm1(-inf), -1.0);
  EXPECT_EQ(vexpm1(710.0), inf);
  EXPECT_EQ(vexpm1(1e-300), 1e-300);
  EXPECT_TRUE(std::signbit(vexpm1(-0.0)));
  EXPECT_TRUE(std::isnan(vexpm1(std::numeric_limits<double>::quiet_NaN())));
}

// tanh = e / (e + 2) with e = expm1(2|x|): e's 2 ulp, then the sum's and the division's roundings.
TEST(VectorMath, TanhIsAccurate) {
  const auto ours = [](double x) { return vtanh(x); };
  const auto reference = [](double x) { return std::tanh(x); };
  EXPECT_LE(max_ulp(ours, reference, -30, 30, false), 4.0);
  EXPECT_LE(max_ulp(ours, reference, -1, 1, false), 4.0);
  EXPECT_LE(max_ulp(ours, reference, -40, 3, true), 4.0);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(vtanh(inf), 1.0);
  EXPECT_EQ(vtanh(-inf), -1.0);
  EXPECT_EQ(vtanh(400.0), 1.0);
  EXPECT_EQ(vtanh(1e-300), 1e-300);
  EXPECT_TRUE(std::signbit(vtanh(-0.0)));
  EXPECT_TRUE(std::isnan(vtanh(std::numeric_limits<double>::quiet_NaN())));
}

float ulp_error(float got, float want) {
  if (got == want) return 0;
  return std::abs(got - want) / std::abs(std::nextafter(want, INFINITY) - want);
}

// The largest ulp error over 200000 uniform draws in [lo, hi).
template <class F, class G>
float max_ulp_f32(F ours, G reference, float lo, float hi) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> u(lo, hi);
  float worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const float x = u(gen);
    worst = std::max(worst, ulp_error(ours(x), reference(x)));
  }
  return worst;
}

TEST(VectorMath, SinglePrecisionExpAndLogAreAccurate) {
  const auto exp_f = [](float x) { return vexp(x); };
  const auto log_f = [](float x) { return vlog_normal(x); };
  EXPECT_LE(max_ulp_f32(
                exp_f, [](float x) { return std::exp(x); }, -87, 88),
            2.0f);
  EXPECT_LE(max_ulp_f32(
                exp_f, [](float x) { return std::exp(x); }, -1, 1),
            2.0f);
  EXPECT_LE(max_ulp_f32(
                exp_f, [](float x) { return std::exp(x); }, -103, -88),
            2.0f);  // subnormal results
  EXPECT_LE(max_ulp_f32(
                log_f, [](float x) { return std::log(x); }, 1e-30f, 1e30f),
            2.0f);
  EXPECT_LE(max_ulp_f32(
                log_f, [](float x) { return std::log(x); }, 0.5f, 2.0f),
            2.0f);
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(vexp(inf), inf);
  EXPECT_EQ(vexp(-inf), 0.0f);
  EXPECT_EQ(vexp(89.0f), inf);
  EXPECT_EQ(vexp(0.0f), 1.0f);
  EXPECT_TRUE(std::isnan(vexp(nan)));
  EXPECT_EQ(vlog_normal(0.0f), -inf);
  EXPECT_EQ(vlog_normal(inf), inf);
  EXPECT_EQ(vlog_normal(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(vlog_normal(-1.0f)));
  EXPECT_TRUE(std::isnan(vlog_normal(nan)));
}

// The functions written once for both precisions, in single precision against double-precision
// references rounded to float (0.5 ulp from the correctly rounded result, so the bounds include it).
TEST(VectorMath, SinglePrecisionLogLog1pSigmoidAndSoftplusAreAccurate) {
  const auto in_double = [](double (*f)(double)) { return [f](float x) { return float(f(double(x))); }; };
  const auto log_ref = in_double([](double x) { return std::log(x); });
  const auto log1p_ref = in_double([](double x) { return std::log1p(x); });
  const auto sigmoid_ref = in_double([](double x) { return 1 / (1 + std::exp(-x)); });
  const auto softplus_ref = in_double([](double x) { return std::log1p(std::exp(x)); });
  const auto log_f = [](float x) { return vlog(x); };
  EXPECT_LE(max_ulp_f32(log_f, log_ref, 1e-30f, 1e30f), 2.5f);
  EXPECT_LE(max_ulp_f32(log_f, log_ref, 1e-45f, 1e-38f), 2.5f);  // subnormal inputs
  const auto log1p_f = [](float x) { return vlog1p(x); };
  EXPECT_LE(max_ulp_f32(log1p_f, log1p_ref, -0.999f, 3.0f), 2.5f);
  EXPECT_LE(max_ulp_f32(log1p_f, log1p_ref, -1e-6f, 1e-6f), 2.5f);
  // exp's error (up to 2 ulp) passes into these through a sum and a division or a log: 3.5.
  EXPECT_LE(max_ulp_f32([](float x) { return vsigmoid(x); }, sigmoid_ref, -80.0f, 80.0f), 3.5f);
  EXPECT_LE(max_ulp_f32([](float x) { return vsoftplus(x); }, softplus_ref, -80.0f, 80.0f), 3.5f);
  constexpr float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(vlog(0.0f), -inf);
  EXPECT_EQ(vlog1p(-1.0f), -inf);
  EXPECT_EQ(vsigmoid(-200.0f), 0.0f);
  EXPECT_EQ(vsigmoid(200.0f), 1.0f);
  EXPECT_EQ(vsoftplus(200.0f), 200.0f);
  EXPECT_TRUE(std::isnan(vsoftplus(std::numeric_limits<float>::quiet_NaN())));
}

// As the double-precision tests, against double-precision references rounded to float.
TEST(VectorMath, SinglePrecisionExpm1AndTanhAreAccurate) {
  const auto in_double = [](double (*f)(double)) { return [f](float x) { return float(f(double(x))); }; };
  const auto expm1_ref = in_double([](double x) { return std::expm1(x); });
  const auto tanh_ref = in_double([](double x) { return std::tanh(x); });
  const auto expm1_f = [](float x) { return vexpm1(x); };
  const auto tanh_f = [](float x) { return vtanh(x); };
  EXPECT_LE(max_ulp_f32(expm1_f, expm1_ref, -100.0f, 88.7f), 2.5f);
  EXPECT_LE(max_ulp_f32(expm1_f, expm1_ref, -1.0f, 1.0f), 2.5f);
  EXPECT_LE(max_ulp_f32(expm1_f, expm1_ref, -1e-5f, 1e-5f), 2.5f);
  EXPECT_LE(max_ulp_f32(tanh_f, tanh_ref, -12.0f, 12.0f), 4.5f);
  EXPECT_LE(max_ulp_f32(tanh_f, tanh_ref, -1e-3f, 1e-3f), 4.5f);
  constexpr float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(vexpm1(inf), inf);
  EXPECT_EQ(vexpm1(-inf), -1.0f);
  EXPECT_EQ(vtanh(-inf), -1.0f);
  EXPECT_EQ(vtanh(50.0f), 1.0f);
  EXPECT_TRUE(std::signbit(vtanh(-0.0f)));
}

TEST(VectorMath, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(vexp(inf), inf);
  EXPECT_EQ(vexp(-inf), 0.0);
  EXPECT_EQ(vexp(710.0), inf);
  EXPECT_EQ(vexp(0.0), 1.0);
  EXPECT_TRUE(std::isnan(vexp(nan)));
  EXPECT_EQ(vlog(0.0), -inf);
  EXPECT_EQ(vlog(inf), inf);
  EXPECT_TRUE(std::isnan(vlog(-1.0)));
  EXPECT_TRUE(std::isnan(vlog(nan)));
  EXPECT_EQ(vlog1p(-1.0), -inf);
  EXPECT_EQ(vlog1p(inf), inf);
  EXPECT_EQ(vlog1p(0.0), 0.0);
  EXPECT_EQ(vlog1p(1e-300), 1e-300);
  EXPECT_TRUE(std::isnan(vlog1p(-2.0)));
}

TEST(VectorMath, SigmoidAndSoftplusAreStableAtExtremes) {
  EXPECT_EQ(vsigmoid(-800.0), 0.0);
  EXPECT_EQ(vsigmoid(800.0), 1.0);
  EXPECT_NEAR(vsigmoid(-40.0), std::exp(-40.0), 1e-30);
  EXPECT_EQ(vsoftplus(800.0), 800.0);
  EXPECT_NEAR(vsoftplus(-40.0), std::exp(-40.0), 1e-30);
  EXPECT_NEAR(vsoftplus(0.0), std::log(2.0), 1e-16);
}

TEST(Casts, NonFiniteOrOutOfRangeFloatsToIntegersAreErrors) {
  EXPECT_THROW(prim::cast(Tensor::vec({1.0, NAN}), DType::i64), Error);
  EXPECT_THROW(prim::cast(Tensor::vec({3e9}), DType::i32), Error);
  EXPECT_EQ(prim::cast(Tensor::vec({-2.0, 7.9}), DType::i32).at(1), 7.0);
  EXPECT_TRUE(std::isnan(prim::unary(UnaryOp::sign, Tensor::vec({NAN})).at(0)));
}

}  // namespace
}  // namespace variate::cpu
