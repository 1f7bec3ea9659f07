// Shape prims: reshape (with -1), permute, transpose, expand_dims, squeeze, broadcast_to, sum_to.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "variate/tensor/prim.hpp"

namespace variate {
namespace {

using Values = std::vector<double>;

Values values(const Tensor& t) { return t.to_vector<double>(); }

Tensor reshape(const Tensor& x, std::vector<std::int64_t> dims) { return prim::reshape(x, std::span(dims)); }
Tensor permute(const Tensor& x, std::vector<int> perm) { return prim::permute(x, std::span(perm)); }

TEST(Reshape, InfersOneDimensionAndSharesStorage) {
  const Tensor x = Tensor::arange(24, DType::f64);
  const Tensor y = reshape(x, {2, -1, 4});
  EXPECT_EQ(y.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(y.raw(), x.raw());
  EXPECT_EQ(reshape(x, {-1}).shape(), (Shape{24}));
  EXPECT_EQ(reshape(x, {4, 6}).shape(), (Shape{4, 6}));
  EXPECT_EQ(reshape(Tensor::zeros({0, 3}), {-1, 3}).shape(), (Shape{0, 3}));
  EXPECT_EQ(prim::reshape(Tensor::scalar(5), Shape{1, 1}).shape(), (Shape{1, 1}));
  EXPECT_EQ(values(prim::reshape(x, Shape{6, 4})), values(x));
}

// Views share their storage's write count (kernels keeping a derived copy of an input compare it)
// and its use count; reading through a const tensor writes nothing.
TEST(Reshape, ViewsShareTheWriteAndUseCounts) {
  Tensor x = Tensor::zeros({2, 3});
  const std::uint64_t before = x.write_count();
  EXPECT_EQ(x.use_count(), 1);
  Tensor y = x.view(Shape{6});
  EXPECT_EQ(x.use_count(), 2);
  const Tensor& read_only = y;
  EXPECT_EQ(read_only.data<double>()[4], 0.0);
  EXPECT_EQ(x.write_count(), before);
  y.data<double>()[4] = 1.0;
  EXPECT_EQ(x.write_count(), before + 1);
  EXPECT_EQ(x.at(4), 1.0);
  y = Tensor();
  EXPECT_EQ(x.use_count(), 1);
  EXPECT_EQ(y.use_count(), 0);
}

TEST(Reshape, Errors) {
  const Tensor x = Tensor::zeros({2, 3});
  EXPECT_ERROR(reshape(x, {-1, -1}), "reshape: only one dimension may be -1");
  EXPECT_ERROR(reshape(x, {4, -1}), "reshape: cannot infer the -1 dimension: 6 elements of shape [2, 3]");
  EXPECT_ERROR(reshape(x, {-2, 3}), "reshape: invalid dimension -2");
  EXPECT_ERROR(prim::reshape(x, Shape{4, 2}),
               "reshape: cannot view a tensor of shape [2, 3] (6 elements) as shape [4, 2]");
  EXPECT_ERROR(reshape(Tensor::zeros({0}), {0, -1}), "reshape: cannot infer the -1 dimension");
}

TEST(Permute, MatchesNaiveIndexing) {
  const Tensor x = Tensor::arange(24, DType::f64).view({2, 3, 4});
  const Tensor y = permute(x, {2, 0, 1});
  ASSERT_EQ(y.shape(), (Shape{4, 2, 3}));
  for (std::int64_t k = 0; k < 4; ++k)
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(y.at((k * 2 + i) * 3 + j), double(i * 12 + j * 4 + k));
  EXPECT_EQ(permute(x, {0, 1, 2}).raw(), x.raw());  // identity: no copy
  EXPECT_EQ(permute(x, {-3, -1, -2}).shape(), (Shape{2, 4, 3}));
  const Tensor flags = permute(prim::cast(Tensor::from(Values{1, 0, 0, 1, 1, 0}, {2, 3}), DType::boolean), {1, 0});
  EXPECT_EQ(values(flags), (Values{1, 1, 0, 1, 0, 0}));
}

TEST(Permute, LargeMatchesNaive) {
  std::mt19937 gen(1);
  std::vector<float> v(40 * 50 * 60);
  for (float& f : v) f = float(gen() % 1000);
  const Tensor x = Tensor::from(v, {40, 50, 60});
  const Tensor y = permute(x, {1, 2, 0});
  const float* px = x.data<float>();
  const float* py = y.data<float>();
  for (std::int64_t j = 0; j < 50; ++j)
    for (std::int64_t k = 0; k < 60; ++k)
      for (std::int64_t i = 0; i < 40; ++i) ASSERT_EQ(py[(j * 60 + k) * 40 + i], px[(i * 50 + j) * 60 + k]);
}

TEST(Permute, Errors) {
  const Tensor x = Tensor::zeros({2, 3});
  EXPECT_ERROR(permute(x, {0}), "permute: permutation of length 1 for a tensor of shape [2, 3]");
  EXPECT_ERROR(permute(x, {1, 1}), "permute: axis 1 appears twice in the permutation");
  EXPECT_ERROR(permute(x, {0, 2}), "permute: axis 2 is out of range");
}

TEST(Transpose, LastTwoAxesByDefault) {
  const Tensor x = Tensor::arange(6, DType::f64).view({2, 3});
  const Tensor t = prim::transpose(x);
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(t), (Values{0, 3, 1, 4, 2, 5}));
  const Tensor cube = Tensor::arange(24, DType::i32).view({2, 3, 4});
  EXPECT_EQ(prim::transpose(cube).shape(), (Shape{2, 4, 3}));
  const Tensor swapped = prim::transpose(cube, 0, 2);
  EXPECT_EQ(swapped.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(swapped.dtype(), DType::i32);
  EXPECT_EQ(swapped.at(1 * 6 + 2 * 2 + 1), 12 + 2 * 4 + 1);
  EXPECT_ERROR(prim::transpose(Tensor::zeros({3})), "transpose: expected a tensor of rank >= 2, got shape [3]");
  EXPECT_ERROR(prim::transpose(x, 0, 2), "transpose: axis 2 is out of range");
}

TEST(ExpandDimsAndSqueeze, InsertAndRemoveUnitAxes) {
  const Tensor x = Tensor::zeros({2, 3});
  EXPECT_EQ(prim::expand_dims(x, 0).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(prim::expand_dims(x, 1).shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(prim::expand_dims(x, -1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(prim::expand_dims(Tensor::scalar(1), 0).shape(), (Shape{1}));
  EXPECT_EQ(prim::squeeze(Tensor::zeros({2, 1, 3}), 1).shape(), (Shape{2, 3}));
  EXPECT_EQ(prim::squeeze(Tensor::zeros({1}), -1).shape(), Shape{});
  EXPECT_EQ(prim::squeeze(prim::expand_dims(x, 2), 2).raw(), x.raw());
  EXPECT_ERROR(prim::squeeze(x, 1), "squeeze: axis 1 of shape [2, 3] has size 3, expected 1");
  EXPECT_ERROR(prim::expand_dims(x, 3), "expand_dims: axis 3 is out of range for a tensor of rank 3");
  EXPECT_ERROR(prim::expand_dims(Tensor::zeros({1, 1, 1, 1, 1, 1, 1, 1}), 0), "cannot add a dimension");
}

TEST(BroadcastTo, RepeatsAlongUnitAndNewAxes) {
  const Tensor col = Tensor::from(Values{1, 2}, {2, 1});
  const Tensor b = prim::broadcast_to(col, {3, 2, 2});
  EXPECT_EQ(b.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(values(b), (Values{1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2}));
  EXPECT_EQ(prim::broadcast_to(col, {2, 1}).raw(), col.raw());
  EXPECT_EQ(values(prim::broadcast_to(Tensor::scalar(4, DType::i32), {3})), (Values{4, 4, 4}));
  EXPECT_ERROR(prim::broadcast_to(col, {3, 3}), "broadcast_to: shapes [2, 1] and [3, 3] cannot be broadcast together");
  EXPECT_ERROR(prim::broadcast_to(col, {1, 1}), "broadcast_to: shape [2, 1] cannot be broadcast to [1, 1]");
}

TEST(SumTo, UndoesBroadcasting) {
  const Tensor g = Tensor::arange(24, DType::f64).view({2, 3, 4});
  const Tensor a = prim::sum_to(g, {3, 1});
  EXPECT_EQ(a.shape(), (Shape{3, 1}));
  EXPECT_EQ(values(a), (Values{60, 92, 124}));
  EXPECT_EQ(values(prim::sum_to(g, {1, 4})), (Values{60, 66, 72, 78}));
  EXPECT_EQ(values(prim::sum_to(g, {4})), (Values{60, 66, 72, 78}));
  EXPECT_EQ(prim::sum_to(g, Shape{}).item(), 276);
  EXPECT_EQ(prim::sum_to(g, {2, 3, 4}).raw(), g.raw());
  const Tensor full = prim::sum_to(g, {2, 1, 4});
  EXPECT_EQ(values(full), (Values{12, 15, 18, 21, 48, 51, 54, 57}));
  EXPECT_ERROR(prim::sum_to(g, {5}), "sum_to: shapes [5] and [2, 3, 4] cannot be broadcast together");
  EXPECT_ERROR(prim::sum_to(Tensor::zeros({3}), {2, 3}), "sum_to: shape [2, 3] does not broadcast to [3]");
}

}  // namespace
}  // namespace variate
