// Every differentiable op through the generic checker: values, gradients vs finite differences,
// throwing behaviour. Rows cover broadcasting, several reduction axes and 1-d / batched products.
#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"

namespace variate {
namespace {

using testing::expect_ad;
using testing::random_tensor;
using testing::uniform_tensor;

struct AdCase {
  const char* name;
  testing::TensorFn f;
  std::vector<Tensor> inputs;
  testing::AdTolerance tol{};
};

Tensor spd(const Tensor& a) {  // a a^T + n I: symmetric positive definite from any square a
  const std::int64_t n = a.dim(-1);
  Tensor eye = Tensor::zeros(Shape{n, n});
  for (std::int64_t i = 0; i < n; ++i) eye.data<double>()[i * n + i] = double(n);
  return matmul(a, a, false, true) + eye;
}

std::vector<AdCase> cases() {
  const Shape s23{2, 3};
  const Tensor x = random_tensor(s23, 1), y = random_tensor(s23, 2), pos = uniform_tensor(s23, 3, 0.2, 3.0);
  const Tensor row = random_tensor(Shape{3}, 4), col = random_tensor(Shape{2, 1}, 5);
  const Tensor x234 = random_tensor(Shape{2, 3, 4}, 6);
  const Tensor idx = Tensor::from(std::vector<std::int64_t>{2, 0, 1, 1}, Shape{4});
  const Tensor idx2 = Tensor::from(std::vector<std::int64_t>{0, 2, 1, 1, 0, 2}, Shape{2, 3});
  const int ax0[] = {0}, ax1[] = {1}, ax02[] = {0, 2}, axm1[] = {-1};
  // Parameters of the incomplete gamma and beta functions, which are differentiable in x only: the
  // rows capture them as constants.
  const Tensor a_row = uniform_tensor(Shape{3}, 31, 0.3, 4.0), a23 = uniform_tensor(s23, 32, 0.3, 4.0);
  const Tensor b_col = uniform_tensor(Shape{2, 1}, 33, 0.3, 4.0), unit = uniform_tensor(s23, 34, 0.05, 0.95);
  using S = std::span<const Tensor>;
  return {
      {"add_broadcast_row", [](S v) { return v[0] + v[1]; }, {x, row}},
      {"sub_broadcast_col", [](S v) { return v[0] - v[1]; }, {x, col}},
      {"mul_broadcast", [](S v) { return v[0] * v[1]; }, {col, row}},
      {"div", [](S v) { return v[0] / v[1]; }, {x, pos}},
      {"scalar_ops", [](S v) { return 2.0 * v[0] - 1.5 / (v[1] + 4.0) + v[0] / 3.0 - 1.0; }, {x, pos}},
      {"neg", [](S v) { return -v[0]; }, {x}},
      {"pow", [](S v) { return pow(v[0], v[1]); }, {pos, y}},
      {"pow_scalar", [](S v) { return pow(v[0], 2.5); }, {pos}},
      {"maximum", [](S v) { return maximum(v[0], v[1]); }, {x, y}},
      {"minimum_broadcast", [](S v) { return minimum(v[0], v[1]); }, {x, row}},
      {"where", [](S v) { return where(gt(v[0], v[1]), v[0] * v[1], v[1]); }, {x, y}},
      {"exp", [](S v) { return exp(v[0]); }, {x}},
      {"log", [](S v) { return log(v[0]); }, {pos}},
      {"log1p", [](S v) { return log1p(v[0]); }, {pos}},
      {"expm1", [](S v) { return expm1(v[0]); }, {x}},
      {"sqrt", [](S v) { return sqrt(v[0]); }, {pos}},
      {"abs", [](S v) { return abs(v[0]); }, {x}},
      {"square", [](S v) { return square(v[0]); }, {x}},
      {"reciprocal", [](S v) { return reciprocal(v[0]); }, {pos}},
      {"sigmoid", [](S v) { return sigmoid(v[0] * 5.0); }, {x}},
      {"log_sigmoid", [](S v) { return log_sigmoid(v[0] * 10.0); }, {x}},
      {"softplus", [](S v) { return softplus(v[0] * 10.0); }, {x}},
      {"tanh", [](S v) { return tanh(v[0]); }, {x}},
      {"lgamma", [](S v) { return lgamma(v[0]); }, {pos}},
      {"digamma", [](S v) { return digamma(v[0]); }, {pos}},
      {"erf", [](S v) { return erf(v[0]); }, {x}},
      {"erfc", [](S v) { return erfc(v[0]); }, {x}},
      {"atan", [](S v) { return atan(v[0] * 2.0); }, {x}},
      {"sin", [](S v) { return sin(v[0] * 3.0); }, {x}},
      {"cos", [](S v) { return cos(v[0] * 3.0); }, {x}},
      // Both branches of the Bessel kernels: the power series below 20, Hankel's expansion above.
      {"log_bessel_i0", [](S v) { return log_bessel_i0(v[0] * 30.0); }, {x}},
      {"bessel_i1_over_i0", [](S v) { return bessel_i1_over_i0(v[0] * 30.0); }, {x}},
      {"igamma_broadcast_a", [=](S v) { return igamma(a_row, v[0]); }, {pos}},
      {"igamma_broadcast_x", [=](S v) { return igamma(a23, v[0]); }, {uniform_tensor(Shape{3}, 35, 0.2, 3.0)}},
      {"igammac_broadcast_a", [=](S v) { return igammac(a_row, v[0]); }, {pos}},
      // In a too (the implicit gradient of a gamma draw times -x p(x; a)), across both of the
      // kernel's branches (x below and above a + 1).
      {"igamma_in_a",
       [=](S v) {
         return igamma(v[0], Tensor::vec({0.05, 0.9, 2.0, 7.0}));
       },
       {Tensor::vec({0.3, 1.5, 0.8, 4.0})}},
      {"igammac_in_a",
       [=](S v) {
         return igammac(v[0], Tensor::vec({0.05, 0.9, 2.0, 7.0}));
       },
       {Tensor::vec({0.3, 1.5, 0.8, 4.0})}},
      {"betainc_broadcast_ab", [=](S v) { return betainc(a_row, b_col, v[0]); }, {unit}},
      {"betainc_broadcast_x",
       [=](S v) { return betainc(a23, b_col, v[0]); },
       {uniform_tensor(Shape{3}, 36, 0.05, 0.95)}},
      {"sum_all", [](S v) { return sum(v[0]); }, {x234}},
      {"sum_axes_0_2", [=](S v) { return sum(v[0], ax02); }, {x234}},
      {"sum_keepdims", [=](S v) { return sum(v[0], ax1, true) * v[0]; }, {x234}},
      {"mean_axis", [=](S v) { return mean(v[0], axm1); }, {x234}},
      {"max_axis", [=](S v) { return max(v[0], ax1); }, {x234}},
      {"min_all", [](S v) { return min(v[0]); }, {x234}},
      {"logsumexp_axes", [=](S v) { return logsumexp(v[0], ax02); }, {x234}},
      {"logsumexp_large", [=](S v) { return logsumexp(v[0] * 400.0, ax0); }, {x}},
      {"log_softmax", [](S v) { return log_softmax(v[0], -1); }, {x234}},
      {"softmax", [](S v) { return softmax(v[0], 0); }, {x}},
      {"cumsum", [](S v) { return cumsum(v[0], 1); }, {x234}},
      {"linear_recurrence",
       [](S v) { return linear_recurrence(v[0], v[1], 1); },
       {uniform_tensor(Shape{2, 3, 4}, 37, -0.9, 0.9), x234}},
      {"linear_recurrence_one_coefficient_per_row",
       [](S v) { return linear_recurrence(v[0], v[1]); },
       {uniform_tensor(Shape{2, 1}, 38, -0.9, 0.9), x}},
      {"linear_recurrence_coefficients_broadcast_over_u",
       [](S v) { return linear_recurrence(v[0], v[1], 0); },
       {uniform_tensor(Shape{2, 3, 4}, 39, -0.9, 0.9), random_tensor(Shape{3, 4}, 40)}},
      {"linear_recurrence_of_one_step", [](S v) { return linear_recurrence(v[0], v[1]); }, {col, col}},
      {"sort", [](S v) { return sort(v[0], -1, false); }, {x234}},
      {"sort_desc_axis0", [](S v) { return sort(v[0], 0, true); }, {x}},
      {"matmul_2d", [](S v) { return matmul(v[0], v[1]); }, {x, random_tensor(Shape{3, 4}, 7)}},
      {"matmul_vec", [](S v) { return matmul(v[0], v[1]); }, {x, row}},
      {"matmul_vec_left", [](S v) { return matmul(v[0], v[1]); }, {random_tensor(Shape{2}, 8), x}},
      {"matmul_dot", [](S v) { return matmul(v[0], v[1]); }, {row, random_tensor(Shape{3}, 9)}},
      {"matmul_batch_broadcast", [](S v) { return matmul(v[0], v[1]); }, {x234, random_tensor(Shape{4, 2}, 10)}},
      {"matmul_batch_both",
       [](S v) { return matmul(v[0], v[1]); },
       {random_tensor(Shape{2, 1, 3, 2}, 11), random_tensor(Shape{4, 2, 5}, 12)}},
      {"matmul_ta", [](S v) { return matmul(v[0], v[1], true, false); }, {x, random_tensor(Shape{2, 4}, 13)}},
      {"matmul_tb", [](S v) { return matmul(v[0], v[1], false, true); }, {x, random_tensor(Shape{4, 3}, 14)}},
      {"matmul_ta_tb", [](S v) { return matmul(v[0], v[1], true, true); }, {x, random_tensor(Shape{4, 2}, 15)}},
      {"einsum_matmul", [](S v) { return einsum("ij,jk->ik", v[0], v[1]); }, {x, random_tensor(Shape{3, 4}, 16)}},
      {"einsum_ellipsis",
       [](S v) { return einsum("...ij,...j->...i", v[0], v[1]); },
       {x234, random_tensor(Shape{3, 4}, 17)}},
      {"einsum_outer_sum", [](S v) { return einsum("bi,bj->ij", v[0], v[1]); }, {x, y}},
      {"einsum_unary", [](S v) { return einsum("bij->jb", v[0]); }, {x234}},
      {"reshape",
       [](S v) {
         return reshape(v[0], {4, -1}) * 2.0;
       },
       {x234}},
      {"permute",
       [](S v) {
         return permute(v[0], {2, 0, 1});
       },
       {x234}},
      {"transpose", [](S v) { return transpose(v[0]); }, {x234}},
      {"expand_squeeze", [](S v) { return squeeze(expand_dims(v[0], 1) * 3.0, 1); }, {x}},
      {"broadcast_to",
       [](S v) {
         return broadcast_to(v[0], Shape{4, 2, 3});
       },
       {col}},
      {"concat",
       [](S v) {
         return concat({v[0], v[1], v[0]}, 1);
       },
       {x, col}},
      {"stack",
       [](S v) {
         return stack({v[0], v[1]}, 2);
       },
       {x, y}},
      {"slice_step", [](S v) { return slice(v[0], 2, 1, 4, 2); }, {x234}},
      {"slice_negative", [](S v) { return slice(v[0], 1, -2, 100); }, {x234}},
      {"element_call", [](S v) { return v[0](1, -1) * v[0](0); }, {x234}},  // Tensor::operator(): index()
      {"gather", [=](S v) { return gather(v[0], 1, idx2); }, {x}},
      {"take_axis1", [=](S v) { return take(v[0], idx, 1); }, {x}},
      {"scatter_add", [=](S v) { return scatter_add(v[0], 1, idx2, v[1]); }, {random_tensor(s23, 18), y}},
      {"cholesky", [](S v) { return cholesky(spd(v[0])); }, {random_tensor(Shape{3, 3}, 19)}},
      {"cholesky_batched", [](S v) { return cholesky(spd(v[0])); }, {random_tensor(Shape{2, 3, 3}, 20)}},
      {"triangular_solve_lower",
       [](S v) { return triangular_solve(cholesky(spd(v[0])), v[1]); },
       {random_tensor(Shape{3, 3}, 21), random_tensor(Shape{3, 2}, 22)}},
      {"triangular_solve_transposed",
       [](S v) { return triangular_solve(cholesky(spd(v[0])), v[1], true, true); },
       {random_tensor(Shape{3, 3}, 23), random_tensor(Shape{2, 3, 2}, 24)}},
      {"triangular_solve_upper",
       [](S v) { return triangular_solve(transpose(cholesky(spd(v[0]))), v[1], false); },
       {random_tensor(Shape{3, 3}, 25), random_tensor(Shape{3, 1}, 26)}},
      {"logdet_spd", [](S v) { return logdet_spd(spd(v[0])); }, {random_tensor(Shape{4, 4}, 27)}},
      {"diagonal", [](S v) { return diagonal(v[0]); }, {random_tensor(Shape{2, 3, 3}, 28)}},
      // Throwing must agree between plain and traced evaluation.
      {"throws_shape_mismatch", [](S v) { return v[0] + v[1]; }, {x, random_tensor(Shape{4}, 29)}},
      {"throws_bad_matmul", [](S v) { return matmul(v[0], v[1]); }, {x, x}},
      {"throws_not_spd", [](S v) { return cholesky(-spd(v[0])); }, {random_tensor(Shape{2, 2}, 30)}},
  };
}

class OpsAd : public ::testing::TestWithParam<AdCase> {};

TEST_P(OpsAd, ValueGradientAndThrowing) {
  const AdCase& c = GetParam();
  expect_ad(c.f, c.inputs, c.tol);
}

// A gradient with respect to the parameters of betainc throws, and only then.
TEST(OpsAd, IncompleteBetaThrowsForParameterGradients) {
  const Tensor a = Tensor::vec({0.7, 2.5}), b = Tensor::vec({1.5, 3.0}), x = Tensor::vec({0.3, 0.6});
  EXPECT_ERROR(grad([&](const Tensor& p) { return sum(betainc(p, b, x)); }, a),
               "betainc: the derivative with respect to a is not implemented");
  EXPECT_ERROR(grad([&](const Tensor& p) { return sum(betainc(a, p, x)); }, b),
               "betainc: the derivative with respect to b is not implemented");
  // With the parameters constant the gradient in x is the density.
  const Tensor g = grad([&](const Tensor& v) { return sum(igamma(a, v)); }, x);
  EXPECT_NEAR(g.at(0), std::pow(0.3, -0.3) * std::exp(-0.3) / std::tgamma(0.7), 1e-14);
}

// all and any reduce bool tensors over the listed axes (all axes when none), with the answer of an
// empty reduction, and record nothing: a mask made of them is a constant inside a transform.
// x(i, j) on a tensor of data, as a model reads it: NumPy's x[i, j] and x[i].
TEST(OpsIndexing, ElementsOfAPlainTensor) {
  const Tensor x = Tensor::from(std::vector<double>{1, 2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(x(1, 2).shape(), Shape{});
  EXPECT_EQ(x(1, 2).item(), 6.0);
  EXPECT_EQ(x(-1, 0).item(), 4.0);
  EXPECT_EQ(x(0).shape(), Shape{3});
  EXPECT_EQ(x(0).at(1), 2.0);
  EXPECT_ERROR(x(2, 0), "index 2 is out of range for axis 0 of size 2 (shape [2, 3])");
  EXPECT_ERROR(x(0, 0, 0), "3 indices for a tensor of shape [2, 3]");
}

TEST(OpsLogic, AllAndAnyOverAxes) {
  const Tensor mask = gt(Tensor::from(std::vector<double>{1, 1, 0, 0, 1, 0}, Shape{2, 3}), 0.0);
  const int rows[] = {-1}, columns[] = {0};
  const Tensor every_row = all(mask, rows), some_row = any(mask, rows);
  ASSERT_EQ(every_row.shape(), (Shape{2}));
  EXPECT_EQ(every_row.dtype(), DType::boolean);
  EXPECT_EQ(every_row.at(0), 0);
  EXPECT_EQ(some_row.at(0), 1);
  EXPECT_EQ(some_row.at(1), 1);
  const Tensor every_column = all(mask, columns, true);
  ASSERT_EQ(every_column.shape(), (Shape{1, 3}));
  EXPECT_EQ(every_column.at(0), 0);
  EXPECT_EQ(every_column.at(1), 1);
  EXPECT_EQ(every_column.at(2), 0);
  EXPECT_EQ(all(mask).item(), 0);
  EXPECT_EQ(any(mask).item(), 1);
  EXPECT_EQ(any(logical_not(Tensor::ones(Shape{4}, DType::boolean))).item(), 0);
}

TEST(OpsLogic, AllAndAnyOfNothing) {
  const Tensor none = Tensor::zeros(Shape{2, 0}, DType::boolean);
  const int rows[] = {-1};
  const Tensor every = all(none, rows), some = any(none, rows);
  ASSERT_EQ(every.shape(), (Shape{2}));
  ASSERT_EQ(some.shape(), (Shape{2}));
  EXPECT_EQ(every.at(1), 1);
  EXPECT_EQ(some.at(1), 0);
  EXPECT_EQ(all(none).item(), 1);
}

TEST(OpsLogic, AllAndAnyAreConstantsAndNeedBool) {
  const Tensor w = Tensor::vec({0.5, -2.0, 3.0});
  const Tensor g = grad([](const Tensor& v) { return sum(v * cast(any(gt(v, 0.0)), v.dtype())); }, w);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(g.at(i), 1.0);
  EXPECT_ERROR(all(w), "all: expected a bool tensor");
  EXPECT_ERROR(any(w), "any: expected a bool tensor");
}

// A number compared with a tensor takes the tensor's dtype, as in arithmetic: 0.1 rounded to f32
// equals an f32 0.1, which an f64 0.1 does not.
TEST(OpsLogic, ComparisonWithANumberTakesTheTensorsDtype) {
  const Tensor tenth = Tensor::scalar(0.1, DType::f32);
  EXPECT_EQ(eq(tenth, 0.1).item(), 1);
  EXPECT_EQ(eq(tenth, Tensor::scalar(0.1)).item(), 0);
  EXPECT_EQ(lt(Tensor::scalar(2.0, DType::i64), 2.5).item(), 1);  // 2.5 is not an integer: compared in f64
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpsAd, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<AdCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace variate
