// The compressed-rows copy of a mostly-zero design matrix and its two products, against dense
// arithmetic.
#include "tensor/cpu/sparse_rows.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "variate/tensor/prim.hpp"

namespace variate::cpu {
namespace {

// 3 x 5 with 4 nonzeros of 15 (27%), one row all zeros.
Tensor small_matrix() {
  return Tensor::from(std::vector<double>{0, 2, 0, 0, -1,  //
                                          0, 0, 0, 0, 0,   //
                                          3, 0, 0, 0, 0.5},
                      Shape{3, 5});
}

TEST(SparseRows, HoldsTheNonzerosOfEachRowInColumnOrder) {
  const Tensor x = small_matrix();
  const SparseRows s = sparse_rows(x);
  ASSERT_TRUE(s.starts.defined());
  EXPECT_EQ(s.starts.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 2, 4}));
  EXPECT_EQ(s.columns.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 4, 0, 4}));
  EXPECT_EQ(s.values.to_vector<double>(), (std::vector<double>{2, -1, 3, 0.5}));
  EXPECT_EQ(s.values.dtype(), DType::f64);
  EXPECT_EQ(sparse_rows(prim::cast(x, DType::f32)).values.dtype(), DType::f32);
}

TEST(SparseRows, NoneForAMatrixWithTooManyNonzeros) {
  const Tensor x = Tensor::from(std::vector<double>{1, 0, 2, 0, 3, 4}, Shape{2, 3});  // 67% nonzero
  EXPECT_FALSE(sparse_rows(x).starts.defined());
}

// Made once per x and kept; a write to x (counted by its storage) makes a new copy.
TEST(SparseRows, KeptWhileTheMatrixIsUnchanged) {
  Tensor x = small_matrix();
  const SparseRows first = sparse_rows(x);
  EXPECT_EQ(sparse_rows(x).starts.raw(), first.starts.raw());
  x.data<double>()[3] = 7;  // row 0, column 3
  const SparseRows again = sparse_rows(x);
  EXPECT_EQ(again.starts.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 3, 3, 5}));
  EXPECT_EQ(again.columns.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 3, 4, 0, 4}));
}

// Column counts that fill whole vectors, leave a remainder and need several register tiles; a row
// range that starts inside the matrix; w's padding (every operand is filled) does not reach z.
template <class T>
void expect_products_match_dense(std::int64_t n) {
  SCOPED_TRACE("n = " + std::to_string(n));
  const std::int64_t rows = 40, d = 30, r0 = 7, r = 25, stride = sparse_rows_stride<T>(n);
  ASSERT_GE(stride, n);
  std::vector<T> x(std::size_t(rows * d), T(0)), w(std::size_t(d * stride)), g(std::size_t(r * n));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = (i * 7) % 5; j < d; j += 5) x[std::size_t(i * d + j)] = T(0.25 * double((i + j) % 9) - 1);
  for (std::size_t q = 0; q < w.size(); ++q) w[q] = T(0.125 * double(q % 13) - 0.75);
  for (std::size_t q = 0; q < g.size(); ++q) g[q] = T(0.5 * double(q % 7) - 1.5);
  const SparseRows s = sparse_rows(Tensor::from(x, Shape{rows, d}));
  ASSERT_TRUE(s.starts.defined());
  // Every element is a multiple of 2^-5 with few terms, so the sums are exact in either order.
  std::vector<T> z(std::size_t(r * n));
  sparse_rows_times<T>(s, r0, r, w.data(), z.data(), n);
  std::vector<T> out(std::size_t(d * stride), T(1));
  sparse_rows_transposed_times_add<T>(s, r0, r, g.data(), out.data(), n);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t c = 0; c < n; ++c) {
      T want = 0;
      for (std::int64_t j = 0; j < d; ++j) want += x[std::size_t((r0 + i) * d + j)] * w[std::size_t(j * stride + c)];
      ASSERT_EQ(z[std::size_t(i * n + c)], want) << "z " << i << ", " << c;
    }
  for (std::int64_t j = 0; j < d; ++j)
    for (std::int64_t c = 0; c < stride; ++c) {  // the padding stays as it was
      T want = 1;
      for (std::int64_t i = 0; i < r && c < n; ++i)
        want += x[std::size_t((r0 + i) * d + j)] * g[std::size_t(i * n + c)];
      ASSERT_EQ(out[std::size_t(j * stride + c)], want) << "out " << j << ", " << c;
    }
}

TEST(SparseRows, ProductsEqualDenseArithmetic) {
  for (const std::int64_t n : {1, 3, 8, 9, 40, 64, 71, 130}) {
    expect_products_match_dense<double>(n);
    expect_products_match_dense<float>(n);
  }
}

}  // namespace
}  // namespace variate::cpu
