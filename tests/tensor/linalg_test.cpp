// cholesky and triangular_solve: values against hand-computed factors and against reconstruction
// (L L^T = A, op(A) X = B), batching and broadcasting, the parallel paths, and argument errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/tensor/prim.hpp"

namespace variate {
namespace {

using Values = std::vector<double>;

Values values(const Tensor& t) { return t.to_vector<double>(); }

void expect_close(const Tensor& actual, const Tensor& expected, double tol) {
  ASSERT_EQ(actual.shape(), expected.shape());
  for (std::int64_t i = 0; i < actual.numel(); ++i)
    ASSERT_NEAR(actual.at(i), expected.at(i), tol) << "at flat index " << i;
}

Tensor random_f64(const Shape& shape, unsigned seed) { return testing::uniform_tensor(shape, seed, -1, 1); }

// Well-conditioned symmetric positive definite matrices: M M^T + n I.
Tensor random_spd(const Shape& shape, unsigned seed) {
  const Tensor m = random_f64(shape, seed);
  const std::int64_t n = shape[shape.rank() - 1];
  Tensor eye = Tensor::zeros({n, n});
  for (std::int64_t i = 0; i < n; ++i) eye.data<double>()[i * n + i] = double(n);
  return prim::add(prim::matmul(m, m, false, true), eye);
}

// A triangular matrix with a dominant diagonal, so solves are well conditioned.
Tensor random_triangular(const Shape& shape, bool lower, unsigned seed) {
  Tensor a = random_f64(shape, seed);
  const std::int64_t n = shape[shape.rank() - 1];
  double* p = a.data<double>();
  for (std::int64_t b = 0; b < a.numel() / (n * n); ++b)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double& v = p[(b * n + i) * n + j];
        if (i == j)
          v = 2 + std::abs(v);
        else if (lower ? j > i : j < i)
          v = 0;
      }
  return a;
}

TEST(Cholesky, KnownFactor) {
  const Tensor a = Tensor::from(Values{4, 2, 2, 10}, {2, 2});
  EXPECT_EQ(values(prim::cholesky(a)), (Values{2, 0, 1, 3}));
  // Only the lower triangle is read, as in LAPACK and JAX.
  const Tensor lower_only = Tensor::from(Values{4, 99, 2, 10}, {2, 2});
  EXPECT_EQ(values(prim::cholesky(lower_only)), (Values{2, 0, 1, 3}));
}

TEST(Cholesky, ReconstructsBatchesAndZeroesTheUpperTriangle) {
  const Tensor a = random_spd({2, 3, 6, 6}, 1);
  const Tensor l = prim::cholesky(a);
  ASSERT_EQ(l.shape(), a.shape());
  expect_close(prim::matmul(l, l, false, true), a, 1e-12);
  for (std::int64_t b = 0; b < 6; ++b)
    for (std::int64_t i = 0; i < 6; ++i)
      for (std::int64_t j = 0; j < 6; ++j) {
        const double v = l.at((b * 6 + i) * 6 + j);
        if (j > i) {
          ASSERT_EQ(v, 0.0);
        } else if (j == i) {
          ASSERT_GT(v, 0.0);
        }
      }
}

TEST(Cholesky, LargeMatrixUsesTheBlockedAlgorithm) {
  const Tensor a = random_spd({150, 150}, 20);
  const Tensor l = prim::cholesky(a);
  expect_close(prim::matmul(l, l, false, true), a, 1e-11);
  EXPECT_EQ(l.at(3 * 150 + 100), 0.0);
}

TEST(Cholesky, EveryOrderReconstructs) {
  for (std::int64_t n : {1, 2, 5, 31, 32, 33, 64}) {
    SCOPED_TRACE("order " + std::to_string(n));
    const Tensor a = random_spd({n, n}, 21);
    const Tensor l = prim::cholesky(a);
    expect_close(prim::matmul(l, l, false, true), a, 1e-11);
    EXPECT_EQ(l.at(n - 1), n == 1 ? l.at(0) : 0.0);  // the first row's last entry: upper, zero
  }
}

TEST(Cholesky, SinglePrecision) {
  const Tensor a = prim::cast(random_spd({5, 5}, 2), DType::f32);
  const Tensor l = prim::cholesky(a);
  EXPECT_EQ(l.dtype(), DType::f32);
  expect_close(prim::matmul(l, l, false, true), a, 1e-5);
}

TEST(Cholesky, ManySmallMatricesInParallel) {
  const Tensor a = random_spd({20000, 3, 3}, 3);
  const Tensor l = prim::cholesky(a);
  for (std::int64_t b : {std::int64_t(0), std::int64_t(12345), std::int64_t(19999)}) {
    const Tensor one = prim::cholesky(prim::slice(a, 0, b, b + 1));
    EXPECT_EQ(values(one), values(prim::slice(l, 0, b, b + 1)));
  }
  expect_close(prim::matmul(l, l, false, true), a, 1e-12);
}

TEST(Cholesky, EmptyMatrices) { EXPECT_EQ(prim::cholesky(Tensor::zeros({3, 0, 0})).shape(), (Shape{3, 0, 0})); }

TEST(Cholesky, NotPositiveDefinite) {
  const Tensor indefinite = Tensor::from(Values{1, 2, 2, 1}, {2, 2});
  EXPECT_ERROR(prim::cholesky(indefinite), "cholesky: matrix is not positive definite");
  // One bad matrix in a batch fails the whole call, and the message names the batch's shape.
  Tensor batch = random_spd({4, 3, 3}, 4);
  batch.data<double>()[2 * 9 + 4] = -1;
  EXPECT_ERROR(prim::cholesky(batch),
               "cholesky: matrix is not positive definite (a matrix of the batch of shape [4, 3, 3]");
  EXPECT_ERROR(prim::cholesky(Tensor::from(Values{NAN, 0, 0, 1}, {2, 2})), "cholesky: matrix is not positive definite");
  EXPECT_ERROR(prim::cholesky(Tensor::from(Values{1, 0, NAN, 1}, {2, 2})), "cholesky: matrix is not positive definite");
  EXPECT_ERROR(prim::cholesky(Tensor::zeros({2, 2}, DType::f32)), "cholesky: matrix is not positive definite");
}

TEST(Cholesky, ArgumentErrors) {
  EXPECT_ERROR(prim::cholesky(Tensor::zeros({2, 3})),
               "cholesky: expected square matrices (shape [..., n, n]), got shape [2, 3]");
  EXPECT_ERROR(prim::cholesky(Tensor::zeros({4})),
               "cholesky: expected square matrices (shape [..., n, n]), got shape [4]");
  EXPECT_ERROR(prim::cholesky(Tensor::zeros({2, 2}, DType::i64)), "cholesky: expected f32 or f64, got i64");
  EXPECT_ERROR(prim::cholesky(Tensor()), "cholesky: the input tensor is undefined");
}

// Murray (2016), eq. 10, from the tensor layer's products and solves:
// sym(L^-T Phi(L^T L_bar) L^-1), Phi keeping the lower triangle with its diagonal halved.
Tensor cholesky_backward_formula(const Tensor& l, const Tensor& l_bar) {
  const std::int64_t n = l.dim(-1);
  Tensor phi = Tensor::zeros({n, n});
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j <= i; ++j) phi.data<double>()[i * n + j] = i == j ? 0.5 : 1.0;
  const Tensor p = prim::mul(prim::matmul(l, l_bar, true, false), phi);
  const Tensor y = prim::triangular_solve(l, p, true, true);
  const Tensor s = prim::transpose(prim::triangular_solve(l, prim::transpose(y), true, true));
  return prim::mul(prim::add(s, prim::transpose(s)), Tensor::scalar(0.5, l.dtype()));
}

// Orders 6, 40 and 150 take the unblocked algorithm (the first two) and the blocked formula.
TEST(CholeskyBackward, MatchesMurraysMatrixFormula) {
  for (std::int64_t n : {1, 6, 40, 150}) {
    SCOPED_TRACE("order " + std::to_string(n));
    const Tensor l = prim::cholesky(random_spd({2, n, n}, 22));
    const Tensor l_bar = random_f64({2, n, n}, 23);
    const Tensor a_bar = prim::cholesky_backward(l, l_bar);
    ASSERT_EQ(a_bar.shape(), l.shape());
    expect_close(a_bar, cholesky_backward_formula(l, l_bar), 1e-10);
    expect_close(a_bar, prim::transpose(a_bar), 0.0);
  }
  EXPECT_EQ(prim::cholesky_backward(Tensor::zeros({3, 0, 0}), Tensor::zeros({3, 0, 0})).shape(), (Shape{3, 0, 0}));
  const Tensor l32 = prim::cast(prim::cholesky(random_spd({5, 5}, 24)), DType::f32);
  const Tensor bar32 = prim::cast(random_f64({5, 5}, 25), DType::f32);
  const Tensor a_bar32 = prim::cholesky_backward(l32, bar32);
  EXPECT_EQ(a_bar32.dtype(), DType::f32);
  expect_close(a_bar32, cholesky_backward_formula(l32, bar32), 1e-5);
}

TEST(CholeskyBackward, ArgumentErrors) {
  EXPECT_ERROR(prim::cholesky_backward(Tensor::zeros({2, 3}), Tensor::zeros({2, 3})),
               "cholesky_backward: expected square matrices L (shape [..., n, n]), got shape [2, 3]");
  EXPECT_ERROR(prim::cholesky_backward(Tensor::zeros({2, 2}), Tensor()),
               "cholesky_backward: an input tensor is undefined");
  EXPECT_ERROR(prim::cholesky_backward(Tensor::zeros({2, 2}), Tensor::zeros({3, 3})),
               "cholesky_backward: expected L's cotangent of L's shape [2, 2], got shape [3, 3]");
}

TEST(TriangularSolve, KnownSolution) {
  const Tensor l = Tensor::from(Values{2, 0, 1, 4}, {2, 2});
  const Tensor b = Tensor::from(Values{4, 9}, {2, 1});
  EXPECT_EQ(values(prim::triangular_solve(l, b)), (Values{2, 1.75}));                  // 2x = 4; x + 4y = 9
  EXPECT_EQ(values(prim::triangular_solve(l, b, true, true)), (Values{0.875, 2.25}));  // 2x + y = 4; 4y = 9
}

// Orders 7 and 40 and widths 1 and 6 take each path: substitution a column or a row at a time, and
// Eigen's blocked solve.
TEST(TriangularSolve, AllTriangleAndTransposeCombinations) {
  for (std::int64_t n : {7, 40})
    for (std::int64_t k : {1, 6})
      for (bool lower : {true, false})
        for (bool transpose : {false, true}) {
          SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k) + (lower ? ", lower" : ", upper") +
                       (transpose ? ", transposed" : ""));
          const Tensor a = random_triangular({n, n}, lower, 5), b = random_f64({n, k}, 6);
          const Tensor x = prim::triangular_solve(a, b, lower, transpose);
          ASSERT_EQ(x.shape(), (Shape{n, k}));
          expect_close(prim::matmul(a, x, transpose, false), b, 1e-12);
        }
}

TEST(TriangularSolve, BatchDimsBroadcast) {
  const Tensor a = random_triangular({2, 1, 4, 4}, true, 7), b = random_f64({3, 4, 2}, 8);
  const Tensor x = prim::triangular_solve(a, b);
  ASSERT_EQ(x.shape(), (Shape{2, 3, 4, 2}));
  expect_close(prim::matmul(a, x), prim::broadcast_to(b, {2, 3, 4, 2}), 1e-12);
  const Tensor shared = prim::triangular_solve(random_triangular({4, 4}, false, 9), b, false, true);
  EXPECT_EQ(shared.shape(), (Shape{3, 4, 2}));
}

TEST(TriangularSolve, ManyRightHandSidesInParallel) {
  const Tensor a = random_triangular({60, 60}, true, 10), b = random_f64({60, 3000}, 11);
  const Tensor x = prim::triangular_solve(a, b, true, true);
  expect_close(prim::matmul(a, x, true, false), b, 1e-10);
  // The same bits whatever the thread count.
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const Tensor serial = prim::triangular_solve(a, b, true, true);
  omp_set_num_threads(threads);
  EXPECT_EQ(values(serial), values(x));
}

TEST(TriangularSolve, DtypesAndManyBatches) {
  const Tensor a = prim::cast(random_triangular({5000, 3, 3}, false, 12), DType::f32);
  const Tensor b = prim::cast(random_f64({5000, 3, 2}, 13), DType::f32);
  const Tensor x = prim::triangular_solve(a, b, false);
  EXPECT_EQ(x.dtype(), DType::f32);
  expect_close(prim::matmul(a, x), b, 1e-5);
  // Integer right-hand sides are promoted to floating point.
  const Tensor ints =
      prim::triangular_solve(Tensor::from(Values{2, 0, 0, 4}, {2, 2}), Tensor::ones({2, 1}, DType::i64));
  EXPECT_EQ(ints.dtype(), DType::f64);
  EXPECT_EQ(values(ints), (Values{0.5, 0.25}));
}

TEST(TriangularSolve, Errors) {
  const Tensor a = Tensor::ones({3, 3});
  EXPECT_ERROR(prim::triangular_solve(Tensor::ones({3, 2}), Tensor::ones({3, 1})),
               "triangular_solve: expected square matrices A (shape [..., n, n]), got shape [3, 2]");
  EXPECT_ERROR(prim::triangular_solve(a, Tensor::ones({2, 1})),
               "triangular_solve: expected B of shape [..., 3, k] for A of shape [3, 3], got shape [2, 1]");
  EXPECT_ERROR(prim::triangular_solve(a, Tensor::ones({3})), "triangular_solve: expected B of shape");
  EXPECT_ERROR(prim::triangular_solve(Tensor::ones({2, 3, 3}), Tensor::ones({4, 3, 1})),
               "triangular_solve: shapes [2] and [4] cannot be broadcast together");
  EXPECT_ERROR(prim::triangular_solve(a, Tensor()), "triangular_solve: an input tensor is undefined");
}

}  // namespace
}  // namespace variate
