// Reductions over any set of axes (with keepdims), argmax and cumsum, including f32 accuracy, the
// blocked parallel paths, empty axes, thread-count independence and argument errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <cmath>
#include <numeric>
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

template <std::size_t N>
prim::Axes axes(const std::array<int, N>& a) {
  return prim::Axes(a.data(), N);
}

// x = arange(24) viewed as [2, 3, 4]: x[i, j, k] = 12 i + 4 j + k.
Tensor cube() { return Tensor::arange(24, DType::f64).view({2, 3, 4}); }

TEST(Reduce, SumOverEachAxisAndAll) {
  const Tensor x = cube();
  static constexpr std::array<int, 1> a0{0}, a1{1}, a2{-1};
  EXPECT_EQ(prim::sum(x).shape(), Shape{});
  EXPECT_EQ(prim::sum(x).item(), 276);
  EXPECT_EQ(values(prim::sum(x, axes(a0))), (Values{12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34}));
  EXPECT_EQ(values(prim::sum(x, axes(a1))), (Values{12, 15, 18, 21, 48, 51, 54, 57}));
  EXPECT_EQ(values(prim::sum(x, axes(a2))), (Values{6, 22, 38, 54, 70, 86}));
}

TEST(Reduce, SeveralAxesWithKeepdims) {
  const Tensor x = cube();
  static constexpr std::array<int, 2> outer{0, 2}, inner{1, 2};
  const Tensor s = prim::sum(x, axes(outer), true);
  EXPECT_EQ(s.shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(values(s), (Values{60, 92, 124}));
  const Tensor dropped = prim::sum(x, axes(outer));
  EXPECT_EQ(dropped.shape(), (Shape{3}));
  const Tensor m = prim::max(x, axes(inner), true);
  EXPECT_EQ(m.shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(values(m), (Values{11, 23}));
  EXPECT_EQ(prim::sum(x, {}, true).shape(), (Shape{1, 1, 1}));
}

TEST(Reduce, MinProdAndIntegerDtypes) {
  const Tensor x = Tensor::from(std::vector<std::int32_t>{3, -1, 2, 5, 4, -6}, {2, 3});
  static constexpr std::array<int, 1> rows{1};
  const Tensor mins = prim::reduce(ReduceOp::min, x, axes(rows), false);
  EXPECT_EQ(mins.dtype(), DType::i32);
  EXPECT_EQ(values(mins), (Values{-1, -6}));
  EXPECT_EQ(values(prim::reduce(ReduceOp::prod, x, axes(rows), false)), (Values{-6, -120}));
  EXPECT_EQ(values(prim::reduce(ReduceOp::max, x, axes(rows), false)), (Values{3, 5}));
  const Tensor count = prim::sum(prim::cast(Tensor::vec({1, 0, 1, 1}), DType::boolean));
  EXPECT_EQ(count.dtype(), DType::i64);
  EXPECT_EQ(count.item(), 3);
}

TEST(Reduce, MaxAndMinPropagateNan) {
  const Tensor x = Tensor::vec({1, NAN, 3});
  EXPECT_TRUE(std::isnan(prim::max(x).item()));
  EXPECT_TRUE(std::isnan(prim::reduce(ReduceOp::min, x, {}, false).item()));
}

TEST(Reduce, SinglePrecisionAccumulatesAccurately) {
  // 2^22 additions of 0.1f: a float accumulator would be off by percents.
  const Tensor x = Tensor::full({1 << 22}, 0.1, DType::f32);
  const Tensor s = prim::sum(x);
  EXPECT_EQ(s.dtype(), DType::f32);
  EXPECT_NEAR(s.item(), double(0.1f) * (1 << 22), 1e-7 * (1 << 22) * 0.1);
  static constexpr std::array<int, 1> a0{0};
  const Tensor cols = prim::sum(Tensor::full({1 << 20, 2}, 0.1, DType::f32), axes(a0));
  EXPECT_NEAR(cols.at(1), double(0.1f) * (1 << 20), 1e-7 * (1 << 20) * 0.1);
}

TEST(Reduce, LargeMatchesNaiveForEveryAxisSet) {
  const Tensor x = random_f64({300, 70, 40}, 1);
  const double* px = x.data<double>();
  static constexpr std::array<int, 1> a0{0}, a1{1};
  static constexpr std::array<int, 2> a02{0, 2};
  std::vector<double> e0(70 * 40, 0.0), e1(300 * 40, 0.0), e02(70, 0.0);
  for (std::int64_t i = 0; i < 300; ++i)
    for (std::int64_t j = 0; j < 70; ++j)
      for (std::int64_t k = 0; k < 40; ++k) {
        const double v = px[(i * 70 + j) * 40 + k];
        e0[std::size_t(j * 40 + k)] += v;
        e1[std::size_t(i * 40 + k)] += v;
        e02[std::size_t(j)] += v;
      }
  const auto expect_close = [](const Tensor& t, const std::vector<double>& e) {
    ASSERT_EQ(t.numel(), std::int64_t(e.size()));
    for (std::size_t i = 0; i < e.size(); ++i) ASSERT_NEAR(t.at(std::int64_t(i)), e[i], 1e-11);
  };
  expect_close(prim::sum(x, axes(a0)), e0);
  expect_close(prim::sum(x, axes(a1)), e1);
  expect_close(prim::sum(x, axes(a02)), e02);
  EXPECT_NEAR(prim::sum(x).item(), std::accumulate(e02.begin(), e02.end(), 0.0), 1e-9);
}

// Around the lengths where sums switch to interleaved partial results (16) and where their groups
// of eight end: each op against a loop in order, a NaN anywhere reaching max and min.
TEST(Reduce, EveryLengthAroundThePartialSums) {
  for (std::int64_t n : {1, 7, 15, 16, 17, 23, 24, 25, 121, 1000}) {
    SCOPED_TRACE("length " + std::to_string(n));
    const Tensor x = random_f64({n}, unsigned(n));
    const double* px = x.data<double>();
    Values near_one(std::size_t(n), 0.0);  // keeps the product of many values in range
    double sum = 0, prod = 1, max = -INFINITY, min = INFINITY;
    for (std::int64_t i = 0; i < n; ++i) {
      near_one[std::size_t(i)] = 1 + px[i] / 4;
      sum += px[i];
      prod *= near_one[std::size_t(i)];
      max = std::max(max, px[i]);
      min = std::min(min, px[i]);
    }
    EXPECT_NEAR(prim::sum(x).item(), sum, 1e-13 * double(n));
    EXPECT_NEAR(prim::reduce(ReduceOp::prod, Tensor::from(near_one, {n}), {}, false).item(), prod,
                1e-13 * double(n) * std::abs(prod));
    EXPECT_EQ(prim::reduce(ReduceOp::max, x, {}, false).item(), max);
    EXPECT_EQ(prim::reduce(ReduceOp::min, x, {}, false).item(), min);
    for (std::int64_t at : {std::int64_t(0), n / 2, n - 1}) {
      Tensor with_nan = x.clone();
      with_nan.data<double>()[at] = NAN;
      EXPECT_TRUE(std::isnan(prim::reduce(ReduceOp::max, with_nan, {}, false).item())) << "NaN at " << at;
      EXPECT_TRUE(std::isnan(prim::reduce(ReduceOp::min, with_nan, {}, false).item())) << "NaN at " << at;
      EXPECT_TRUE(std::isnan(prim::sum(with_nan).item())) << "NaN at " << at;
    }
  }
}

TEST(Reduce, LargeIntegerMinAndMax) {
  std::vector<std::int64_t> v(200000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::int64_t(i % 1000) + 5;
  v[123456] = -7;
  v[7] = 4000000000;
  const Tensor x = Tensor::from(v, {200000});
  EXPECT_EQ(prim::reduce(ReduceOp::min, x, {}, false).item(), -7);
  EXPECT_EQ(prim::reduce(ReduceOp::max, x, {}, false).item(), 4000000000.0);
  EXPECT_EQ(prim::reduce(ReduceOp::min, Tensor::arange(200000), {}, false).item(), 0);
}

TEST(Reduce, ResultDoesNotDependOnThreadCount) {
  const Tensor x = random_f64({500000}, 2);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const double serial = prim::sum(x).item();
  omp_set_num_threads(3);
  const double three = prim::sum(x).item();
  omp_set_num_threads(threads);
  EXPECT_EQ(serial, three);
  EXPECT_EQ(serial, prim::sum(x).item());
}

TEST(Reduce, EmptyTensors) {
  static constexpr std::array<int, 1> a0{0}, a1{1};
  EXPECT_EQ(values(prim::sum(Tensor::zeros({0, 3}), axes(a0))), (Values{0, 0, 0}));
  EXPECT_EQ(values(prim::sum(Tensor::zeros({3, 0}), axes(a1))), (Values{0, 0, 0}));
  EXPECT_EQ(prim::sum(Tensor::zeros({4, 0, 2})).item(), 0);
  EXPECT_EQ(values(prim::reduce(ReduceOp::prod, Tensor::zeros({2, 0}), axes(a1), false)), (Values{1, 1}));
  EXPECT_EQ(prim::sum(Tensor::zeros({0, 3}), axes(a1)).shape(), (Shape{0}));
}

TEST(Reduce, Errors) {
  static constexpr std::array<int, 1> a0{0}, bad{3};
  static constexpr std::array<int, 2> twice{1, -1};
  EXPECT_ERROR(prim::max(Tensor::zeros({0, 2}), axes(a0)), "max: cannot reduce the empty axis 0 of shape [0, 2]");
  EXPECT_ERROR(prim::sum(Tensor::zeros({2, 2}), axes(bad)), "sum: axis 3 is out of range for a tensor of rank 2");
  EXPECT_ERROR(prim::sum(Tensor::zeros({2, 2}), axes(twice)), "sum: axis -1 is listed twice");
  EXPECT_ERROR(prim::reduce(ReduceOp::min, Tensor(), {}, false), "min: the input tensor is undefined");
}

TEST(Argmax, FirstMaximumAlongAnAxis) {
  const Tensor x = Tensor::from(Values{1, 5, 5, 2, 9, 0}, {2, 3});
  const Tensor rows = prim::argmax(x, 1);
  EXPECT_EQ(rows.dtype(), DType::i64);
  EXPECT_EQ(rows.shape(), (Shape{2}));
  EXPECT_EQ(values(rows), (Values{1, 1}));  // ties: the first
  EXPECT_EQ(values(prim::argmax(x, 0)), (Values{1, 1, 0}));
  EXPECT_EQ(prim::argmax(x, -1, true).shape(), (Shape{2, 1}));
  EXPECT_EQ(prim::argmax(Tensor::vec({1, NAN, 7, NAN}), 0).item(), 1);  // NaN wins, as in NumPy
  EXPECT_EQ(prim::argmax(Tensor::from(std::vector<std::int32_t>{-4, -2, -3}, {3}), 0).item(), 1);
}

TEST(Argmax, Errors) {
  EXPECT_ERROR(prim::argmax(Tensor::zeros({2, 0}), 1), "argmax: axis 1 of shape [2, 0] is empty");
  EXPECT_ERROR(prim::argmax(Tensor::zeros({2}), 1), "argmax: axis 1 is out of range");
}

TEST(Cumsum, ForwardReverseAndAxes) {
  const Tensor x = Tensor::from(Values{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(values(prim::cumsum(x, 1)), (Values{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(prim::cumsum(x, 0)), (Values{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(values(prim::cumsum(x, -1, true)), (Values{6, 5, 3, 15, 11, 6}));
  const Tensor ints = prim::cumsum(Tensor::from(std::vector<std::int32_t>{1, -1, 5}, {3}), 0);
  EXPECT_EQ(ints.dtype(), DType::i32);
  EXPECT_EQ(values(ints), (Values{1, 0, 5}));
  const Tensor counts = prim::cumsum(prim::cast(Tensor::vec({1, 0, 1}), DType::boolean), 0);
  EXPECT_EQ(counts.dtype(), DType::i64);
  EXPECT_EQ(values(counts), (Values{1, 1, 2}));
  EXPECT_ERROR(prim::cumsum(x, 2), "cumsum: axis 2 is out of range");
}

TEST(LinearRecurrence, ForwardAndTransposeAlongEitherAxis) {
  const Tensor a = Tensor::from(Values{9, 2, 3, 9, 0.5, -1}, {2, 3});
  const Tensor u = Tensor::from(Values{1, 1, 1, 4, 2, 2}, {2, 3});
  // h_t = a_t h_(t-1) + u_t, a_0 unused: (1, 2 + 1, 3 * 3 + 1) and (4, 0.5 * 4 + 2, -4 + 2).
  EXPECT_EQ(values(prim::linear_recurrence(a, u, 1)), (Values{1, 3, 10, 4, 4, -2}));
  // Transpose, from the end: h_t = u_t + a_(t+1) h_(t+1): (1 + 2 * 4, 1 + 3 * 1, 1) and (4 + 0.5 * 0, 2 - 2, 2).
  EXPECT_EQ(values(prim::linear_recurrence(a, u, 1, true)), (Values{9, 4, 1, 4, 0, 2}));
  // Along axis 0 with one coefficient broadcast over the columns: row 1 = 0.5 * row 0 + u_1; and
  // its transpose: row 0 = u_0 + 0.5 * row 1.
  EXPECT_EQ(values(prim::linear_recurrence(Tensor::scalar(0.5), u, 0)), (Values{1, 1, 1, 4.5, 2.5, 2.5}));
  EXPECT_EQ(values(prim::linear_recurrence(Tensor::scalar(0.5), u, 0, true)), (Values{3, 2, 2, 4, 2, 2}));
  const Tensor h32 = prim::linear_recurrence(Tensor::scalar(2.0, DType::f32), Tensor::vec({1, 1, 1}, DType::f32), 0);
  EXPECT_EQ(h32.dtype(), DType::f32);
  EXPECT_EQ(values(h32), (Values{1, 3, 7}));
  EXPECT_EQ(prim::linear_recurrence(Tensor::scalar(2.0), Tensor::zeros({0}), 0).numel(), 0);
  // Integers compute in the floating type.
  EXPECT_EQ(prim::linear_recurrence(Tensor::scalar(1.0), Tensor::from(std::vector<std::int32_t>{1, 2}, {2}), 0).dtype(),
            DType::f64);
}

TEST(LinearRecurrence, Errors) {
  EXPECT_ERROR(prim::linear_recurrence(Tensor::zeros({2}), Tensor::zeros({3}), 0),
               "linear_recurrence: shapes [2] and [3] cannot be broadcast together");
  EXPECT_ERROR(prim::linear_recurrence(Tensor::zeros({2}), Tensor::zeros({2}), 1),
               "linear_recurrence: axis 1 is out of range");
  EXPECT_ERROR(prim::linear_recurrence(Tensor(), Tensor::zeros({2}), 0), "the coefficient tensor is undefined");
}

}  // namespace
}  // namespace variate
