// Indexing prims (concat, stack, slice, gather, scatter_add, take, one_hot, sort, argsort) and the
// kernels without a prim of their own (slice_add, take_add).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/tensor/prim.hpp"

namespace variate {
namespace {

using Values = std::vector<double>;

Values values(const Tensor& t) { return t.to_vector<double>(); }

Tensor f64(std::vector<double> v, const Shape& shape) { return Tensor::from(v, shape); }
Tensor i64(std::vector<std::int64_t> v, const Shape& shape) { return Tensor::from(v, shape); }
Tensor i32(std::vector<std::int32_t> v, const Shape& shape) { return Tensor::from(v, shape); }

Tensor random_f64(const Shape& shape, unsigned seed) { return testing::uniform_tensor(shape, seed, -1, 1); }

Tensor random_index(const Shape& shape, std::int64_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int64_t> u(0, size - 1);
  std::vector<std::int64_t> v(std::size_t(shape.numel()));
  for (auto& x : v) x = u(gen);
  return Tensor::from(v, shape);
}

// ---- concat and stack ----

TEST(Concat, AlongEachAxis) {
  const Tensor a = f64({1, 2, 3, 4}, {2, 2}), b = f64({5, 6}, {1, 2}), c = f64({7, 8}, {2, 1});
  const Tensor rows = prim::concat(std::vector{a, b}, 0);
  EXPECT_EQ(rows.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(rows), (Values{1, 2, 3, 4, 5, 6}));
  const Tensor cols = prim::concat(std::vector{a, c, a}, -1);
  EXPECT_EQ(cols.shape(), (Shape{2, 5}));
  EXPECT_EQ(values(cols), (Values{1, 2, 7, 1, 2, 3, 4, 8, 3, 4}));
}

TEST(Concat, MiddleAxisOfRank3) {
  const Tensor a = Tensor::arange(12, DType::f64).view({2, 3, 2}), b = Tensor::full({2, 1, 2}, -1);
  const Tensor out = prim::concat(std::vector{a, b}, 1);
  EXPECT_EQ(out.shape(), (Shape{2, 4, 2}));
  EXPECT_EQ(values(out), (Values{0, 1, 2, 3, 4, 5, -1, -1, 6, 7, 8, 9, 10, 11, -1, -1}));
}

TEST(Concat, PromotesDtypesAndAcceptsEmptyParts) {
  const Tensor a = i32({1, 2}, {2}), b = Tensor::vec({0.5}), empty = Tensor::zeros({0}, DType::i64);
  const Tensor out = prim::concat(std::vector{a, empty, b}, 0);
  EXPECT_EQ(out.dtype(), DType::f64);
  EXPECT_EQ(values(out), (Values{1, 2, 0.5}));
  const Tensor flags =
      prim::concat(std::vector{Tensor::ones({2}, DType::boolean), Tensor::zeros({1}, DType::boolean)}, 0);
  EXPECT_EQ(flags.dtype(), DType::boolean);
  EXPECT_EQ(values(flags), (Values{1, 1, 0}));
}

TEST(Concat, Errors) {
  EXPECT_ERROR(prim::concat(std::vector<Tensor>{}, 0), "concat: expected at least one tensor");
  EXPECT_ERROR(prim::concat(std::vector{Tensor::zeros({2, 3}), Tensor::zeros({2, 4})}, 0),
               "concat: tensor 1 has shape [2, 4] but tensor 0 has shape [2, 3]");
  EXPECT_ERROR(prim::concat(std::vector{Tensor::zeros({2, 3}), Tensor::zeros({6})}, 0),
               "concat: tensor 1 has shape [6]");
  EXPECT_ERROR(prim::concat(std::vector{Tensor::scalar(1), Tensor::scalar(2)}, 0), "concat: cannot concatenate rank-0");
  EXPECT_ERROR(prim::concat(std::vector{Tensor::zeros({2})}, 1), "concat: axis 1 is out of range");
}

TEST(Stack, NewLeadingAndTrailingAxes) {
  const Tensor a = Tensor::vec({1, 2, 3}), b = Tensor::vec({4, 5, 6});
  const Tensor rows = prim::stack(std::vector{a, b}, 0);
  EXPECT_EQ(rows.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(rows), (Values{1, 2, 3, 4, 5, 6}));
  const Tensor cols = prim::stack(std::vector{a, b}, -1);
  EXPECT_EQ(cols.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(cols), (Values{1, 4, 2, 5, 3, 6}));
  const Tensor scalars = prim::stack(std::vector{Tensor::scalar(7), Tensor::scalar(8)}, 0);
  EXPECT_EQ(scalars.shape(), (Shape{2}));
}

TEST(Stack, Errors) {
  EXPECT_ERROR(prim::stack(std::vector{Tensor::zeros({3}), Tensor::zeros({2})}, 0),
               "stack: tensor 1 has shape [2] but tensor 0 has shape [3]");
  EXPECT_ERROR(prim::stack(std::vector{Tensor::zeros({3})}, 2), "stack: axis 2 is out of range");
  EXPECT_ERROR(prim::stack(std::vector<Tensor>{}, 0), "stack: expected at least one tensor");
}

// ---- slice ----

TEST(Slice, PythonBounds) {
  const Tensor x = Tensor::arange(10, DType::f64);
  EXPECT_EQ(values(prim::slice(x, 0, 2, 5)), (Values{2, 3, 4}));
  EXPECT_EQ(values(prim::slice(x, 0, 1, 8, 3)), (Values{1, 4, 7}));
  EXPECT_EQ(values(prim::slice(x, 0, -3, 10)), (Values{7, 8, 9}));
  EXPECT_EQ(values(prim::slice(x, 0, -100, 2)), (Values{0, 1}));
  EXPECT_EQ(values(prim::slice(x, 0, 8, 100)), (Values{8, 9}));
  EXPECT_EQ(values(prim::slice(x, 0, 0, -8)), (Values{0, 1}));
  EXPECT_EQ(values(prim::slice(x, 0, 0, INT64_MAX, 4)), (Values{0, 4, 8}));
  EXPECT_EQ(values(prim::slice(x, 0, 9, INT64_MAX, INT64_MAX)), (Values{9}));
  EXPECT_EQ(prim::slice(x, 0, 5, 5).shape(), (Shape{0}));
  EXPECT_EQ(prim::slice(x, 0, 7, 2).shape(), (Shape{0}));
  EXPECT_EQ(prim::slice(x, 0, 20, 30).shape(), (Shape{0}));
}

TEST(Slice, InnerAxisAndDtypes) {
  const Tensor x = Tensor::arange(24, DType::i32).view({2, 3, 4});
  const Tensor mid = prim::slice(x, 1, 1, 3);
  EXPECT_EQ(mid.shape(), (Shape{2, 2, 4}));
  EXPECT_EQ(mid.dtype(), DType::i32);
  EXPECT_EQ(values(mid), (Values{4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23}));
  const Tensor last = prim::slice(prim::cast(x, DType::f32), -1, 0, 4, 2);
  EXPECT_EQ(last.dtype(), DType::f32);
  EXPECT_EQ(values(last), (Values{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22}));
  const Tensor flags = prim::slice(prim::cast(Tensor::vec({1, 0, 1}), DType::boolean), 0, 1, 3);
  EXPECT_EQ(flags.dtype(), DType::boolean);
  EXPECT_EQ(values(flags), (Values{0, 1}));
}

TEST(Slice, LargeMatchesNaive) {
  const Tensor x = random_f64({300, 400}, 1);
  const Tensor out = prim::slice(x, 1, 3, 399, 2);
  ASSERT_EQ(out.shape(), (Shape{300, 198}));
  const double* px = x.data<double>();
  const double* po = out.data<double>();
  for (std::int64_t r = 0; r < 300; ++r)
    for (std::int64_t j = 0; j < 198; ++j) ASSERT_EQ(po[r * 198 + j], px[r * 400 + 3 + 2 * j]);
}

TEST(Slice, Errors) {
  const Tensor x = Tensor::zeros({4, 5});
  EXPECT_ERROR(prim::slice(x, 0, 0, 3, 0), "slice: step must be positive, got 0");
  EXPECT_ERROR(prim::slice(x, 0, 3, 0, -1), "slice: step must be positive, got -1");
  EXPECT_ERROR(prim::slice(x, 2, 0, 1), "slice: axis 2 is out of range for a tensor of rank 2");
  EXPECT_ERROR(prim::slice(Tensor(), 0, 0, 1), "slice: the input tensor is undefined");
}

TEST(SliceAdd, AddsIntoStridedRows) {
  Tensor out = Tensor::ones({2, 6});
  const Tensor x = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  backend(Device{}).slice_add(x, 1, 1, 2, out);
  EXPECT_EQ(values(out), (Values{1, 2, 1, 3, 1, 4, 1, 5, 1, 6, 1, 7}));
  Tensor ints = Tensor::zeros({3, 2}, DType::i32);
  backend(Device{}).slice_add(i32({7, 8}, {1, 2}), 0, 2, 1, ints);
  EXPECT_EQ(values(ints), (Values{0, 0, 0, 0, 7, 8}));
}

TEST(SliceAdd, IsTheAdjointOfSlice) {
  // <slice(x), g> == <x, slice_add(g)> for any x and g.
  const Tensor x = random_f64({5, 300, 70}, 2), g = random_f64({5, 99, 70}, 3);
  Tensor back = Tensor::zeros(x.shape());
  backend(Device{}).slice_add(g, 1, 4, 3, back);
  const double lhs = prim::sum(prim::mul(prim::slice(x, 1, 4, 300, 3), g)).item();
  const double rhs = prim::sum(prim::mul(x, back)).item();
  EXPECT_NEAR(lhs, rhs, 1e-9);
}

// ---- gather and scatter_add ----

TEST(Gather, TakeAlongEachAxis) {
  const Tensor x = f64({10, 11, 12, 20, 21, 22}, {2, 3});
  const Tensor along_rows = prim::gather(x, 1, i64({2, 0, 1, 1}, {2, 2}));
  EXPECT_EQ(along_rows.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(along_rows), (Values{12, 10, 21, 21}));
  const Tensor along_cols = prim::gather(x, 0, i32({1, 0, 1}, {1, 3}));
  EXPECT_EQ(values(along_cols), (Values{20, 11, 22}));
  const Tensor flags = prim::gather(prim::cast(x, DType::boolean), -1, i64({0}, {1, 1}));
  EXPECT_EQ(flags.dtype(), DType::boolean);
}

TEST(Gather, BroadcastsIndexAndInput) {
  const Tensor x = f64({10, 11, 12, 20, 21, 22}, {2, 3});
  // The index broadcasts over x's rows.
  EXPECT_EQ(values(prim::gather(x, 1, i64({2, 0}, {1, 2}))), (Values{12, 10, 22, 20}));
  // A single row of x broadcasts over the index's rows.
  const Tensor row = f64({5, 6, 7}, {1, 3});
  const Tensor out = prim::gather(row, 1, i64({0, 2, 1, 1}, {4, 1}));
  EXPECT_EQ(out.shape(), (Shape{4, 1}));
  EXPECT_EQ(values(out), (Values{5, 7, 6, 6}));
}

TEST(Gather, LargeMatchesNaive) {
  const Tensor x = random_f64({40, 50, 60}, 4);
  const Tensor index = random_index({40, 70, 60}, 50, 5);
  const Tensor out = prim::gather(x, 1, index);
  const double* px = x.data<double>();
  const double* po = out.data<double>();
  const std::int64_t* pi = index.data<std::int64_t>();
  for (std::int64_t a = 0; a < 40; ++a)
    for (std::int64_t j = 0; j < 70; ++j)
      for (std::int64_t c = 0; c < 60; ++c) {
        const std::int64_t o = (a * 70 + j) * 60 + c;
        ASSERT_EQ(po[o], px[(a * 50 + pi[o]) * 60 + c]);
      }
}

TEST(Gather, Errors) {
  const Tensor x = Tensor::zeros({2, 3});
  EXPECT_ERROR(prim::gather(x, 1, i64({0, 3}, {1, 2})),
               "gather: index 3 is out of range for axis 1 of size 3 (expected 0 <= index < 3)");
  EXPECT_ERROR(prim::gather(x, 0, i64({-1}, {1, 1})), "gather: index -1 is out of range for axis 0 of size 2");
  EXPECT_ERROR(prim::gather(x, 1, Tensor::zeros({2, 1})), "gather: indices must be i32 or i64, got f64");
  EXPECT_ERROR(prim::gather(x, 1, i64({0}, {1})),
               "gather: index of shape [1] must have the rank of the input's shape [2, 3]");
  EXPECT_ERROR(prim::gather(x, 1, i64({0, 0, 0}, {3, 1})), "gather: index of shape [3, 1] does not broadcast");
  EXPECT_ERROR(prim::gather(x, 2, i64({0}, {1, 1})), "gather: axis 2 is out of range");
}

TEST(ScatterAdd, AccumulatesDuplicates) {
  const Tensor base = Tensor::ones({2, 3});
  const Tensor out = prim::scatter_add(base, 1, i64({0, 0, 2, 1, 1, 1}, {2, 3}), f64({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_EQ(values(out), (Values{4, 1, 4, 1, 16, 1}));
  EXPECT_EQ(values(base), (Values{1, 1, 1, 1, 1, 1}));  // the base is not modified
  const Tensor rows = prim::scatter_add(Tensor::zeros({3, 2}), 0, i32({2, 0}, {1, 2}), f64({1, 2}, {1, 2}));
  EXPECT_EQ(values(rows), (Values{0, 2, 0, 0, 1, 0}));
}

TEST(ScatterAdd, BroadcastsIndexAndPromotes) {
  // One index per row of src, used for all its columns.
  const Tensor out = prim::scatter_add(Tensor::zeros({2, 2}, DType::i64), 0, i64({1, 1, 0}, {3, 1}),
                                       f64({1, 2, 3, 4, 0.5, 0.5}, {3, 2}));
  EXPECT_EQ(out.dtype(), DType::f64);
  EXPECT_EQ(values(out), (Values{0.5, 0.5, 4, 6}));
}

TEST(ScatterAdd, IsTheAdjointOfGather) {
  const Tensor x = random_f64({6, 9, 5}, 6), index = random_index({6, 14, 5}, 9, 7), g = random_f64({6, 14, 5}, 8);
  const Tensor back = prim::scatter_add(Tensor::zeros(x.shape()), 1, index, g);
  EXPECT_NEAR(prim::sum(prim::mul(prim::gather(x, 1, index), g)).item(), prim::sum(prim::mul(x, back)).item(), 1e-12);
}

TEST(ScatterAdd, LargeIsDeterministicAndMatchesSerialSums) {
  // Few output rows, many collisions: every element must be summed in source order.
  const Tensor src = random_f64({8, 4000, 33}, 9), index = random_index({8, 4000, 33}, 7, 10);
  const Tensor out = prim::scatter_add(Tensor::zeros({8, 7, 33}), 1, index, src);
  std::vector<double> expected(8 * 7 * 33, 0.0);
  const double* ps = src.data<double>();
  const std::int64_t* pi = index.data<std::int64_t>();
  for (std::int64_t a = 0; a < 8; ++a)
    for (std::int64_t i = 0; i < 4000; ++i)
      for (std::int64_t c = 0; c < 33; ++c) {
        const std::int64_t s = (a * 4000 + i) * 33 + c;
        expected[std::size_t((a * 7 + pi[s]) * 33 + c)] += ps[s];
      }
  EXPECT_EQ(values(out), expected);
}

TEST(ScatterAdd, Errors) {
  const Tensor base = Tensor::zeros({2, 3});
  EXPECT_ERROR(prim::scatter_add(base, 0, i64({2}, {1, 1}), Tensor::ones({1, 1})),
               "scatter_add: source of shape [1, 1] must match the base's shape [2, 3] except along axis 0");
  EXPECT_ERROR(prim::scatter_add(base, 0, i64({2, 0, 0}, {1, 3}), Tensor::ones({1, 3})),
               "scatter_add: index 2 is out of range for axis 0 of size 2");
  EXPECT_ERROR(prim::scatter_add(base, 0, i64({0, 0}, {1, 2}), Tensor::ones({1, 3})),
               "scatter_add: index of shape [1, 2]");
  EXPECT_ERROR(prim::scatter_add(base, 0, Tensor::zeros({1, 3}), Tensor::ones({1, 3})),
               "scatter_add: indices must be i32 or i64, got f64");
  EXPECT_ERROR(prim::scatter_add(base, 0, i64({0}, {1}), Tensor::ones({1})), "scatter_add: base [2, 3], index [1]");
}

// ---- take and take_add ----

TEST(Take, IndexShapeReplacesTheAxis) {
  const Tensor x = Tensor::arange(6, DType::f64).view({3, 2});
  const Tensor rows = prim::take(x, i64({2, 0, 2, 1}, {2, 2}));
  EXPECT_EQ(rows.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(values(rows), (Values{4, 5, 0, 1, 4, 5, 2, 3}));
  const Tensor cols = prim::take(x, i32({1, 1, 0}, {3}), 1);
  EXPECT_EQ(cols.shape(), (Shape{3, 3}));
  EXPECT_EQ(values(cols), (Values{1, 1, 0, 3, 3, 2, 5, 5, 4}));
  const Tensor one = prim::take(x, Tensor::scalar(1, DType::i64), -1);
  EXPECT_EQ(one.shape(), (Shape{3}));
  EXPECT_EQ(values(one), (Values{1, 3, 5}));
  EXPECT_EQ(prim::take(x, Tensor::zeros({0}, DType::i64)).shape(), (Shape{0, 2}));
}

TEST(Take, LargeMatchesNaive) {
  const Tensor x = random_f64({1000, 7}, 11), index = random_index({50000}, 1000, 12);
  const Tensor out = prim::take(x, index);
  const double* px = x.data<double>();
  const double* po = out.data<double>();
  const std::int64_t* pi = index.data<std::int64_t>();
  for (std::int64_t j = 0; j < 50000; ++j)
    for (std::int64_t c = 0; c < 7; ++c) ASSERT_EQ(po[j * 7 + c], px[pi[j] * 7 + c]);
}

TEST(Take, Errors) {
  const Tensor x = Tensor::zeros({3, 2});
  EXPECT_ERROR(prim::take(x, i64({0, 5}, {2})), "take: index 5 is out of range for axis 0 of size 3");
  EXPECT_ERROR(prim::take(x, i64({-2}, {1}), 1), "take: index -2 is out of range for axis 1 of size 2");
  EXPECT_ERROR(prim::take(x, Tensor::vec({0.0})), "take: indices must be i32 or i64, got f64");
  EXPECT_ERROR(prim::take(x, Tensor::zeros({1, 1, 1, 1, 1, 1, 1, 1}, DType::i64)), "take: the result of indexing");
  EXPECT_ERROR(prim::take(Tensor::scalar(1), i64({0}, {1})), "take: axis 0 is out of range");
}

TEST(TakeAdd, AccumulatesDuplicatesDeterministically) {
  Tensor out = Tensor::zeros({3, 2});
  backend(Device{}).take_add(f64({1, 2, 3, 4, 5, 6}, {3, 2}), 0, i64({2, 2, 0}, {3}), out);
  EXPECT_EQ(values(out), (Values{5, 6, 0, 0, 4, 6}));
  // Many source rows into few output rows, along the last axis: summed in source order.
  const Tensor src = random_f64({40, 20000}, 13), index = random_index({20000}, 5, 14);
  Tensor big = Tensor::zeros({40, 5});
  backend(Device{}).take_add(src, 1, index, big);
  std::vector<double> expected(200, 0.0);
  for (std::int64_t a = 0; a < 40; ++a)
    for (std::int64_t j = 0; j < 20000; ++j)
      expected[std::size_t(a * 5 + index.data<std::int64_t>()[j])] += src.data<double>()[a * 20000 + j];
  EXPECT_EQ(values(big), expected);
}

TEST(TakeAdd, IsTheAdjointOfTake) {
  const Tensor x = random_f64({4, 30, 6}, 15), index = random_index({100}, 30, 16), g = random_f64({4, 100, 6}, 17);
  Tensor back = Tensor::zeros(x.shape());
  backend(Device{}).take_add(g, 1, index, back);
  EXPECT_NEAR(prim::sum(prim::mul(prim::take(x, index, 1), g)).item(), prim::sum(prim::mul(x, back)).item(), 1e-12);
}

// ---- one_hot ----

TEST(OneHot, EncodesAlongANewLastAxis) {
  const Tensor hot = prim::one_hot(i64({2, 0, 1, 2}, {2, 2}), 3);
  EXPECT_EQ(hot.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(hot.dtype(), DType::f64);
  EXPECT_EQ(values(hot), (Values{0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  const Tensor small = prim::one_hot(i32({1}, {1}), 2, DType::f32);
  EXPECT_EQ(small.dtype(), DType::f32);
  EXPECT_EQ(values(small), (Values{0, 1}));
}

TEST(OneHot, Errors) {
  EXPECT_ERROR(prim::one_hot(i64({3}, {1}), 3), "one_hot: index 3 is out of range for axis -1 of size 3");
  EXPECT_ERROR(prim::one_hot(i64({0}, {1}), -1), "one_hot: depth must be non-negative, got -1");
  EXPECT_ERROR(prim::one_hot(Tensor::vec({0}), 2), "one_hot: indices must be i32 or i64, got f64");
}

// ---- sort and argsort ----

TEST(Sort, AscendingAndDescending) {
  const Tensor x = Tensor::vec({3, -1, 2, 2, 7});
  EXPECT_EQ(values(prim::sort(x)), (Values{-1, 2, 2, 3, 7}));
  EXPECT_EQ(values(prim::sort(x, 0, true)), (Values{7, 3, 2, 2, -1}));
  const Tensor order = prim::argsort(x);
  EXPECT_EQ(order.dtype(), DType::i64);
  EXPECT_EQ(values(order), (Values{1, 2, 3, 0, 4}));
  EXPECT_EQ(values(prim::argsort(x, -1, true)), (Values{4, 0, 2, 3, 1}));  // ties keep their order
}

TEST(Sort, NanGoesLastAscendingFirstDescending) {
  const Tensor x = Tensor::vec({NAN, 1, NAN, -INFINITY, 0});
  const Values up = values(prim::sort(x));
  EXPECT_EQ(Values(up.begin(), up.begin() + 3), (Values{-INFINITY, 0, 1}));
  EXPECT_TRUE(std::isnan(up[3]) && std::isnan(up[4]));
  EXPECT_EQ(values(prim::argsort(x)), (Values{3, 4, 1, 0, 2}));
  EXPECT_EQ(values(prim::argsort(x, 0, true)), (Values{0, 2, 1, 4, 3}));
  EXPECT_EQ(values(prim::argsort(prim::cast(x, DType::f32))), (Values{3, 4, 1, 0, 2}));
}

TEST(Sort, AlongALeadingAxisAndOtherDtypes) {
  const Tensor x = i32({3, 1, 2, 1, 9, 0}, {3, 2});
  const Tensor sorted = prim::sort(x, 0);
  EXPECT_EQ(sorted.dtype(), DType::i32);
  EXPECT_EQ(values(sorted), (Values{2, 0, 3, 1, 9, 1}));
  EXPECT_EQ(values(prim::argsort(x, 0)), (Values{1, 2, 0, 0, 2, 1}));
  const Tensor flags = prim::cast(Tensor::vec({1, 0, 1, 0}), DType::boolean);
  EXPECT_EQ(values(prim::sort(flags)), (Values{0, 0, 1, 1}));
  EXPECT_EQ(values(prim::argsort(flags, 0, true)), (Values{0, 2, 1, 3}));
}

TEST(Sort, KernelFillsBothOutputs) {
  const Tensor x = Tensor::vec({2, 0, 1});
  Tensor v = Tensor::empty({3}), i = Tensor::empty({3}, DType::i64);
  backend(Device{}).sort(x, 0, false, &v, &i);
  EXPECT_EQ(values(v), (Values{0, 1, 2}));
  EXPECT_EQ(values(i), (Values{1, 2, 0}));
}

TEST(Sort, LargeMatchesStableSort) {
  // Rounded values make many ties, so stability is checked too.
  Tensor x = prim::unary(UnaryOp::floor, prim::mul(random_f64({3000, 40}, 18), Tensor::scalar(20)));
  const Tensor order = prim::argsort(x, 0, true);
  const Tensor sorted = prim::sort(x, 0, true);
  for (std::int64_t c = 0; c < 40; ++c) {
    std::vector<std::int64_t> expected(3000);
    std::iota(expected.begin(), expected.end(), 0);
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::int64_t i, std::int64_t j) { return x.at(i * 40 + c) > x.at(j * 40 + c); });
    for (std::int64_t r = 0; r < 3000; ++r) {
      ASSERT_EQ(order.at(r * 40 + c), double(expected[std::size_t(r)]));
      ASSERT_EQ(sorted.at(r * 40 + c), x.at(expected[std::size_t(r)] * 40 + c));
    }
  }
}

TEST(Sort, Errors) {
  EXPECT_ERROR(prim::sort(Tensor::scalar(1)), "sort: axis -1 is out of range for a tensor of rank 0");
  EXPECT_ERROR(prim::argsort(Tensor::zeros({2}), 1), "argsort: axis 1 is out of range");
  EXPECT_ERROR(prim::sort(Tensor()), "sort: the input tensor is undefined");
}

}  // namespace
}  // namespace variate
