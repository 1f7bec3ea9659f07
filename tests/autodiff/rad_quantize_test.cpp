// Compressed activations (autodiff/rad.hpp, ActNN): stochastic rounding is unbiased, checked by
// enumerating every rounding outcome of a tiny layer; the codes are packed as the layout says;
// values on a level come back exactly; the rounding draws are a pure function of key and op.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/rad.hpp"

namespace variate {
namespace {

using autodiff::detail::dequantize;
using autodiff::detail::quantize;
using testing::random_tensor;

// Draws that force each entry's rounding: a draw below every positive remainder rounds up when the
// remainder is positive, one above every remainder below 1 rounds down.
constexpr double force_up = 0x1p-40, force_down = 1.0 - 0x1p-40;

// The probability that entry i of row `row` of x rounds up: the remainder of (x - m) / s within its
// group, computed here from the definition rather than read from the codes.
double up_probability(const Tensor& x, std::int64_t row, std::int64_t i, int bits, std::int64_t group) {
  const std::int64_t start = i / group * group, end = std::min(start + group, x.dim(1));
  double lo = x.at(row * x.dim(1) + start), hi = lo;
  for (std::int64_t j = start; j < end; ++j) {
    lo = std::min(lo, x.at(row * x.dim(1) + j));
    hi = std::max(hi, x.at(row * x.dim(1) + j));
  }
  if (hi == lo) return 0;  // a constant group is stored exactly
  const double t = (x.at(row * x.dim(1) + i) - lo) / ((hi - lo) / double((1 << bits) - 1));
  return t - std::floor(t);
}

TEST(RadQuantize, WeightGradientIsUnbiasedOverEveryRoundingOutcome) {
  // Every entry of x (2, 3) rounds up or down independently: 64 outcomes, each weighted by its
  // probability. Their average weight gradient g^T dequantize(x) is the exact g^T x.
  const Tensor x = random_tensor(Shape{2, 3}, 3), g = random_tensor(Shape{2, 4}, 4);
  const Tensor exact = prim::matmul(g, x, true, false);
  for (int bits : {1, 2, 4}) {
    for (std::int64_t group : {3, 2}) {  // one group per row; groups of 2 and 1
      Tensor average = Tensor::zeros(exact.shape());
      double total_probability = 0;
      for (int outcome = 0; outcome < 64; ++outcome) {
        std::vector<double> u(6);
        double probability = 1;
        for (std::int64_t e = 0; e < 6; ++e) {
          const bool up = (outcome >> e) & 1;
          const double p = up_probability(x, e / 3, e % 3, bits, group);
          u[std::size_t(e)] = up ? force_up : force_down;
          probability *= up ? p : 1 - p;
        }
        const Tensor x_hat = dequantize(quantize(x, bits, group, Tensor::from(u, Shape{2, 3})), bits, group);
        average = prim::add(average, prim::mul(prim::matmul(g, x_hat, true, false), Tensor::scalar(probability)));
        total_probability += probability;
      }
      EXPECT_NEAR(total_probability, 1.0, 1e-12);
      for (std::int64_t i = 0; i < exact.numel(); ++i)
        EXPECT_NEAR(average.at(i), exact.at(i), 1e-12) << bits << " bits, group " << group << ", element " << i;
    }
  }
}

TEST(RadQuantize, CodesArePackedAndLevelsComeBackExactly) {
  // Row 0 holds the levels 0, 1, 2, 3 of 2 bits (minimum 1, step 0.5) in a group of 4; d = 37
  // spans two words per row at 2 bits (74 bits), three groups of 16 at most.
  std::vector<double> values(2 * 37);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1.0 + 0.5 * double((i * 7 + i / 37) % 4);
  const Tensor x = Tensor::from(values, Shape{2, 37});
  const Tensor draws = Tensor::full(Shape{2, 37}, 0.5);
  const auto q = quantize(x, 2, 16, draws);
  EXPECT_EQ(q.codes.shape(), (Shape{2, 3}));
  EXPECT_EQ(q.codes.dtype(), DType::i32);
  EXPECT_EQ(q.ranges.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(dequantize(q, 2, 16).to_vector<double>(), values);
  // Entry i of a row in bits [2i mod 32, 2i mod 32 + 2) of word 2i / 32: the level of each value,
  // since every group of the row spans the four levels.
  const auto words = q.codes.to_vector<std::int32_t>();
  for (std::size_t i = 0; i < 37; ++i) {
    const auto word = std::uint32_t(words[2 * i / 32]);
    EXPECT_EQ(double((word >> (2 * i % 32)) & 3u), (values[i] - 1.0) / 0.5) << "entry " << i;
  }
}

TEST(RadQuantize, ConstantGroupsAndF32) {
  const Tensor x = prim::cast(Tensor::full(Shape{3, 5}, -2.25), DType::f32);
  const auto q = quantize(x, 4, 2, Tensor::full(Shape{3, 5}, 0.3));
  EXPECT_EQ(q.codes.shape(), (Shape{3, 1}));  // 5 values of 4 bits fit one word
  EXPECT_EQ(q.ranges.dtype(), DType::f32);
  EXPECT_EQ(dequantize(q, 4, 2).to_vector<float>(), x.to_vector<float>());
}

TEST(RadQuantize, RoundingDrawsArePureAndUniform) {
  const std::array<std::uint32_t, 2> key = {5, 9};
  const Tensor a = autodiff::detail::rad_rounding_uniforms(key, 2, 40, 50);
  EXPECT_EQ(a.to_vector<double>(), autodiff::detail::rad_rounding_uniforms(key, 2, 40, 50).to_vector<double>());
  EXPECT_NE(a.to_vector<double>(), autodiff::detail::rad_rounding_uniforms(key, 3, 40, 50).to_vector<double>());
  // 2000 uniforms: mean 1/2 with standard error sqrt(1/12 / 2000) = 0.0065; 5 standard errors.
  const auto u = a.to_vector<double>();
  double mean = 0;
  for (double v : u) {
    EXPECT_GT(v, 0.0);
    EXPECT_LT(v, 1.0);
    mean += v / double(u.size());
  }
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / 2000));
}

TEST(RadQuantize, RejectsWhatItCannotStore) {
  EXPECT_NE(testing::error_of([] { autodiff::RadScope s({.quantize_bits = 3}); }).find("quantize_bits"),
            std::string::npos);
  EXPECT_NE(
      testing::error_of([] { autodiff::RadScope s({.quantize_bits = 2, .quantize_group = 0}); }).find("quantize_group"),
      std::string::npos);
  const Tensor half = Tensor::full(Shape{1, 4}, 0.5);
  const Tensor x = Tensor::from(std::vector<double>{1, 2, 3, 4}, Shape{1, 4});
  EXPECT_NE(testing::error_of([&] { quantize(x, 3, 2, half); }).find("bits must be 1, 2, 4 or 8"), std::string::npos);
  EXPECT_NE(testing::error_of([&] { quantize(x, 2, 0, half); }).find("group size"), std::string::npos);
  const auto q = quantize(x, 2, 2, half);
  EXPECT_NE(testing::error_of([&] { dequantize(q, 2, 1); }).find("do not hold rows"), std::string::npos);
  // A NaN anywhere in a group (min and max skip it, so the group may look constant), an inf, or a
  // range too small for its reciprocal: an error, never a value that silently drops the NaN.
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (const std::vector<double>& bad : {std::vector<double>{1, nan, 3, 2}, std::vector<double>{1, nan, 1, 1},
                                         std::vector<double>{1, inf, 3, 2}, std::vector<double>{0, 1e-310, 0, 0}}) {
    const Tensor v = Tensor::from(bad, Shape{1, 4});
    EXPECT_NE(testing::error_of([&] { quantize(v, 2, 4, half); }).find("need finite values"), std::string::npos)
        << bad[1];
  }
  const Tensor ints = Tensor::zeros(Shape{2, 2}, DType::i64);
  EXPECT_NE(testing::error_of([&] {
              quantize(ints, 2, 2, Tensor::full(Shape{2, 2}, 0.5));
            }).find("f32 or f64"),
            std::string::npos);
}

}  // namespace
}  // namespace variate
