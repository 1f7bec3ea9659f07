// matmul: NumPy semantics for 1-d operands, transpose flags, batch broadcasting, dtype rules, and
// each parallel path (row split, blocked contraction when A is transposed, many small products,
// the kernels for n <= 32, k <= 64 or cache-sized operands) against a naive triple loop.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
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

// op(a) @ op(b) for 2-d f64 tensors by the definition.
Values naive_matmul(const Tensor& a, const Tensor& b, bool ta = false, bool tb = false) {
  const std::int64_t m = ta ? a.dim(1) : a.dim(0), k = ta ? a.dim(0) : a.dim(1);
  const std::int64_t n = tb ? b.dim(0) : b.dim(1);
  const double* pa = a.data<double>();
  const double* pb = b.data<double>();
  Values out(std::size_t(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t l = 0; l < k; ++l)
        acc += (ta ? pa[l * m + i] : pa[i * k + l]) * (tb ? pb[j * k + l] : pb[l * n + j]);
      out[std::size_t(i * n + j)] = acc;
    }
  return out;
}

void expect_close(const Tensor& actual, const Values& expected, double tol) {
  ASSERT_EQ(actual.numel(), std::int64_t(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(actual.at(std::int64_t(i)), expected[i], tol) << "at flat index " << i;
}

TEST(Matmul, SmallProduct) {
  const Tensor a = Tensor::from(Values{1, 2, 3, 4, 5, 6}, {2, 3}), b = Tensor::from(Values{1, 0, 0, 1, 1, 1}, {3, 2});
  const Tensor c = prim::matmul(a, b);
  EXPECT_EQ(c.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(c), (Values{4, 5, 10, 11}));
}

TEST(Matmul, OneDimensionalOperands) {
  const Tensor m = Tensor::from(Values{1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor v3 = Tensor::vec({1, 0, -1}), v2 = Tensor::vec({1, 1});
  const Tensor mv = prim::matmul(m, v3);
  EXPECT_EQ(mv.shape(), (Shape{2}));
  EXPECT_EQ(values(mv), (Values{-2, -2}));
  const Tensor vm = prim::matmul(v2, m);
  EXPECT_EQ(vm.shape(), (Shape{3}));
  EXPECT_EQ(values(vm), (Values{5, 7, 9}));
  const Tensor dot = prim::matmul(v3, v3);
  EXPECT_EQ(dot.shape(), Shape{});
  EXPECT_EQ(dot.item(), 2);
  const Tensor mtv = prim::matmul(m, v2, true);  // m^T v
  EXPECT_EQ(values(mtv), (Values{5, 7, 9}));
  const Tensor batched = prim::matmul(Tensor::ones({4, 2, 3}), v3);
  EXPECT_EQ(batched.shape(), (Shape{4, 2}));
}

TEST(Matmul, TransposeFlags) {
  const Tensor a = random_f64({5, 4}, 1), b = random_f64({5, 3}, 2), c = random_f64({3, 4}, 3),
               d = random_f64({4, 5}, 4);
  expect_close(prim::matmul(a, b, true, false), naive_matmul(a, b, true, false), 1e-14);
  expect_close(prim::matmul(a, c, false, true), naive_matmul(a, c, false, true), 1e-14);
  expect_close(prim::matmul(a, d, true, true), naive_matmul(a, d, true, true), 1e-14);
  EXPECT_EQ(prim::matmul(a, d, true, true).shape(), (Shape{4, 4}));
  expect_close(prim::matmul(a, b, true, false), values(prim::matmul(prim::transpose(a), b)), 1e-14);
}

TEST(Matmul, BatchBroadcasting) {
  const Tensor a = random_f64({2, 1, 3, 4}, 5), b = random_f64({5, 4, 2}, 6);
  const Tensor c = prim::matmul(a, b);
  ASSERT_EQ(c.shape(), (Shape{2, 5, 3, 2}));
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 5; ++j) {
      const Tensor ai = prim::reshape(prim::slice(a, 0, i, i + 1), Shape{3, 4});
      const Tensor bj = prim::reshape(prim::slice(b, 0, j, j + 1), Shape{4, 2});
      const Tensor cij = prim::reshape(prim::slice(prim::slice(c, 0, i, i + 1), 1, j, j + 1), Shape{3, 2});
      expect_close(cij, naive_matmul(ai, bj), 1e-14);
    }
  // A batch of transposed matrices times one shared matrix.
  const Tensor shared = random_f64({3, 6}, 7);
  const Tensor t = prim::matmul(a, shared, true, false);
  EXPECT_EQ(t.shape(), (Shape{2, 1, 4, 6}));
  const Tensor a1 = prim::reshape(prim::slice(a, 0, 1, 2), Shape{3, 4});
  expect_close(prim::reshape(prim::slice(t, 0, 1, 2), Shape{4, 6}), naive_matmul(a1, shared, true, false), 1e-14);
}

TEST(Matmul, DtypeRules) {
  const Tensor ints = Tensor::from(std::vector<std::int64_t>{1, 2, 3, 4}, {2, 2});
  const Tensor c = prim::matmul(ints, ints);
  EXPECT_EQ(c.dtype(), DType::f64);
  EXPECT_EQ(values(c), (Values{7, 10, 15, 22}));
  const Tensor f = prim::cast(ints, DType::f32);
  EXPECT_EQ(prim::matmul(f, f).dtype(), DType::f32);
  EXPECT_EQ(prim::matmul(f, prim::cast(ints, DType::f64)).dtype(), DType::f64);
}

TEST(Matmul, TallTransposedTimesVector) {
  // X^T v for a tall design matrix: the logistic-regression gradient's shape.
  for (std::int64_t rows : {3000, 20000}) {
    const Tensor x = random_f64({rows, 51}, 8), v = random_f64({rows}, 9);
    const Tensor g = prim::matmul(x, v, true);
    ASSERT_EQ(g.shape(), (Shape{51}));
    expect_close(g, naive_matmul(x, v.view({rows, 1}), true, false), 1e-10);
    // The blocked contraction must not depend on the number of threads.
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const Tensor serial = prim::matmul(x, v, true);
    omp_set_num_threads(threads);
    EXPECT_EQ(values(serial), values(g));
  }
}

TEST(Matmul, TallTransposedTimesTransposed) {
  const Tensor x = random_f64({20000, 51}, 10), w = random_f64({3, 20000}, 11);
  const Tensor g = prim::matmul(x, w, true, true);
  ASSERT_EQ(g.shape(), (Shape{51, 3}));
  expect_close(g, naive_matmul(x, w, true, true), 1e-10);
}

TEST(Matmul, TallTimesMatrixSplitsRows) {
  const Tensor x = random_f64({3000, 51}, 12), w = random_f64({51, 4}, 13), wt = random_f64({4, 51}, 14);
  expect_close(prim::matmul(x, w), naive_matmul(x, w), 1e-12);
  expect_close(prim::matmul(x, wt, false, true), naive_matmul(x, wt, false, true), 1e-12);
}

TEST(Matmul, ManySmallProducts) {
  const Tensor a = random_f64({3000, 5, 6}, 15), b = random_f64({6, 3}, 16);
  const Tensor c = prim::matmul(a, b);
  ASSERT_EQ(c.shape(), (Shape{3000, 5, 3}));
  for (std::int64_t i : {0, 1234, 2999}) {
    const Tensor ai = prim::reshape(prim::slice(a, 0, i, i + 1), Shape{5, 6});
    expect_close(prim::reshape(prim::slice(c, 0, i, i + 1), Shape{5, 3}), naive_matmul(ai, b), 1e-14);
  }
}

// op(a) @ op(b) in double, and for each element the bound k * eps * sum_l |a_il| |b_lj| on the
// rounding error of any summation order in a type with machine epsilon eps (Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., eq. 3.5, with gamma_k <= k * eps).
struct Reference {
  Values value, tolerance;
};

double epsilon(DType dtype) {
  return dtype == DType::f64 ? std::numeric_limits<double>::epsilon() : double(std::numeric_limits<float>::epsilon());
}

Reference reference_matmul(const Tensor& a, const Tensor& b, bool ta, bool tb, double eps) {
  const Tensor a64 = prim::cast(a, DType::f64), b64 = prim::cast(b, DType::f64);
  const Values value = naive_matmul(a64, b64, ta, tb);
  const Values magnitude = naive_matmul(prim::unary(UnaryOp::abs, a64), prim::unary(UnaryOp::abs, b64), ta, tb);
  const double k = double(ta ? a.dim(0) : a.dim(1));
  Values tolerance(magnitude.size());
  for (std::size_t i = 0; i < magnitude.size(); ++i) tolerance[i] = k * eps * magnitude[i] + 1e-300;
  return {value, tolerance};
}

void expect_within(const Tensor& actual, const Reference& expected, const std::string& what) {
  const Values got = values(actual);
  ASSERT_EQ(got.size(), expected.value.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::abs(got[i] - expected.value[i]), expected.tolerance[i]) << what << " at flat index " << i;
}

// Storage shapes of A and B for op(A) m x k and op(B) k x n.
Shape storage(std::int64_t rows, std::int64_t cols, bool transposed) {
  return transposed ? Shape{cols, rows} : Shape{rows, cols};
}

// Every n from 1 to 33 (1 and 33 take the general path), both dtypes and all transpose flags: the
// inner-product form (n <= 2 or 4), broadcasts along n, and with A transposed lanes along m
// (n <= 8). m = 263 is not a multiple of any register tile; k is odd and just large enough
// (m n k >= 2^18) for the product to leave the small-product path. With A transposed this k gives a
// single partial sum, so the columns of A are split across threads instead.
TEST(Matmul, SkinnyProductsAgainstReference) {
  const std::int64_t m = 263;
  for (DType dtype : {DType::f64, DType::f32}) {
    const double eps = epsilon(dtype);
    for (std::int64_t n = 1; n <= 33; ++n)
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          const std::int64_t k = (1 << 18) / (m * n) + 1 + ((1 << 18) / (m * n)) % 2;
          const Tensor a = prim::cast(random_f64(storage(m, k, ta), unsigned(20 + n)), dtype);
          const Tensor b = prim::cast(random_f64(storage(k, n, tb), unsigned(80 + n)), dtype);
          const Tensor c = prim::matmul(a, b, ta, tb);
          ASSERT_EQ(c.shape(), (Shape{m, n}));
          ASSERT_EQ(c.dtype(), dtype);
          expect_within(c, reference_matmul(a, b, ta, tb, eps),
                        std::string(name(dtype)) + " n=" + std::to_string(n) + " ta=" + std::to_string(ta) +
                            " tb=" + std::to_string(tb));
        }
  }
}

// A transposed with a long contracted dimension: several partial sums (super-blocks) of uneven
// length, each over chunks whose last one is short.
TEST(Matmul, SkinnyTransposedLongContraction) {
  for (DType dtype : {DType::f64, DType::f32}) {
    const double eps = epsilon(dtype);
    for (std::int64_t n : {2, 7, 10, 17, 32}) {
      const std::int64_t m = 37, k = 9001;
      const Tensor a = prim::cast(random_f64({k, m}, unsigned(200 + n)), dtype);
      const Tensor b = prim::cast(random_f64({k, n}, unsigned(300 + n)), dtype);
      expect_within(prim::matmul(a, b, true, false), reference_matmul(a, b, true, false, eps),
                    std::string(name(dtype)) + " n=" + std::to_string(n));
    }
  }
}

// A short contracted dimension (k <= 64) and many columns, as in U V^T for matrix factorization:
// column panels with a partial last one, row counts that are not a multiple of the register tile.
TEST(Matmul, SmallContractionAgainstReference) {
  for (DType dtype : {DType::f64, DType::f32}) {
    const double eps = epsilon(dtype);
    for (std::int64_t k : {1, 2, 7, 20, 63, 64, 65})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          const std::int64_t m = 157, n = std::max<std::int64_t>(33, (1 << 18) / (m * k) + 35);
          const Tensor a = prim::cast(random_f64(storage(m, k, ta), unsigned(500 + k)), dtype);
          const Tensor b = prim::cast(random_f64(storage(k, n, tb), unsigned(600 + k)), dtype);
          const Tensor c = prim::matmul(a, b, ta, tb);
          ASSERT_EQ(c.shape(), (Shape{m, n}));
          expect_within(c, reference_matmul(a, b, ta, tb, eps),
                        std::string(name(dtype)) + " k=" + std::to_string(k) + " ta=" + std::to_string(ta) +
                            " tb=" + std::to_string(tb));
        }
  }
}

// Small outer products (a contracted dimension of 1), which skip Eigen: every transpose flag.
TEST(Matmul, SmallOuterProducts) {
  for (std::int64_t m : {1, 3, 11})
    for (std::int64_t n : {1, 4, 11})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          const Tensor a = random_f64(ta ? Shape{1, m} : Shape{m, 1}, unsigned(m));
          const Tensor b = random_f64(tb ? Shape{n, 1} : Shape{1, n}, unsigned(100 + n));
          const Tensor c = prim::matmul(a, b, ta, tb);
          ASSERT_EQ(c.shape(), (Shape{m, n}));
          EXPECT_EQ(values(c), naive_matmul(a, b, ta, tb)) << m << " x " << n << " ta=" << ta << " tb=" << tb;
        }
}

// Operands that fit in the caches (kPanelMaxBytes) with a long contracted dimension, as in the
// layers of a small network at batch 100: column panels with a partial last one (n = 50, 200 and
// 784 are not multiples of the panel width), row counts that are not a multiple of the register
// tile (m = 100 and 203), all transpose flags.
TEST(Matmul, CacheSizedProductsAgainstReference) {
  struct Dims {
    std::int64_t m, k, n;
  };
  for (DType dtype : {DType::f64, DType::f32}) {
    const double eps = epsilon(dtype);
    for (const Dims d : {Dims{100, 784, 200}, Dims{100, 200, 50}, Dims{203, 100, 784}, Dims{100, 50, 200}})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          const Tensor a = prim::cast(random_f64(storage(d.m, d.k, ta), unsigned(700 + d.k)), dtype);
          const Tensor b = prim::cast(random_f64(storage(d.k, d.n, tb), unsigned(800 + d.n)), dtype);
          const Tensor c = prim::matmul(a, b, ta, tb);
          ASSERT_EQ(c.shape(), (Shape{d.m, d.n}));
          expect_within(c, reference_matmul(a, b, ta, tb, eps),
                        std::string(name(dtype)) + " m=" + std::to_string(d.m) + " k=" + std::to_string(d.k) +
                            " n=" + std::to_string(d.n) + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb));
        }
  }
}

// Batched operands keep the general per-matrix path; a shared skinny right-hand side over a batch.
TEST(Matmul, SkinnyBatchBroadcasting) {
  const Tensor a = random_f64({3, 300, 40}, 400), w = random_f64({40, 10}, 401);
  const Tensor c = prim::matmul(a, w);
  ASSERT_EQ(c.shape(), (Shape{3, 300, 10}));
  for (std::int64_t i = 0; i < 3; ++i) {
    const Tensor ai = prim::reshape(prim::slice(a, 0, i, i + 1), Shape{300, 40});
    expect_within(prim::reshape(prim::slice(c, 0, i, i + 1), Shape{300, 10}),
                  reference_matmul(ai, w, false, false, epsilon(DType::f64)), "batch");
  }
}

TEST(Matmul, EmptyDimensions) {
  const Tensor c = prim::matmul(Tensor::ones({2, 0}), Tensor::ones({0, 3}));
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(c), (Values(6, 0.0)));
  EXPECT_EQ(prim::matmul(Tensor::ones({0, 4}), Tensor::ones({4, 3})).shape(), (Shape{0, 3}));
}

TEST(Matmul, Errors) {
  EXPECT_ERROR(prim::matmul(Tensor::zeros({2, 3}), Tensor::zeros({2, 3})),
               "matmul: contracted dimensions differ: shapes [2, 3] and [2, 3] give 3 vs 2");
  EXPECT_EQ(prim::matmul(Tensor::zeros({2, 3}), Tensor::zeros({2, 3}), false, true).shape(), (Shape{2, 2}));
  EXPECT_ERROR(prim::matmul(Tensor::zeros({2, 3}), Tensor::zeros({4, 3}), true),
               "matmul: contracted dimensions differ: shapes [2, 3] (transposed) and [4, 3]");
  EXPECT_ERROR(prim::matmul(Tensor::scalar(1), Tensor::zeros({1})), "matmul: operands must have rank >= 1");
  EXPECT_ERROR(prim::matmul(Tensor::zeros({3}), Tensor::zeros({3, 3}), true),
               "matmul: only operands of rank >= 2 can be transposed");
  EXPECT_ERROR(prim::matmul(Tensor::zeros({2, 2, 2}), Tensor::zeros({3, 2, 2})),
               "matmul: shapes [2] and [3] cannot be broadcast together");
  EXPECT_ERROR(prim::matmul(Tensor(), Tensor::zeros({1})), "matmul: the first tensor is undefined");
}

}  // namespace
}  // namespace variate
