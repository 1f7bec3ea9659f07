// Results must be bitwise identical for any thread count (DESIGN.md, "Determinism").
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <functional>

#include "support/ad_check.hpp"

namespace variate {
namespace {

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

void expect_thread_count_independent(const std::function<Tensor()>& f) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const Tensor one = f();
  omp_set_num_threads(2);
  const Tensor two = f();
  omp_set_num_threads(3);
  const Tensor three = f();
  omp_set_num_threads(threads);
  EXPECT_TRUE(bitwise_equal(one, two));
  EXPECT_TRUE(bitwise_equal(one, three));
}

TEST(Determinism, ReductionsAndProducts) {
  const Tensor x = testing::random_tensor(Shape{20000, 37}, 1);
  const Tensor v = testing::random_tensor(Shape{37}, 2), g = testing::random_tensor(Shape{20000}, 3);
  const int axis0[] = {0}, axis1[] = {1};
  expect_thread_count_independent([&] { return prim::sum(x); });
  expect_thread_count_independent([&] { return prim::sum(x, axis0); });
  expect_thread_count_independent([&] { return prim::sum(x, axis1); });
  expect_thread_count_independent([&] { return prim::matmul(x, v); });
  expect_thread_count_independent([&] { return prim::matmul(x, g, true, false); });
  const Tensor sq = testing::random_tensor(Shape{300, 300}, 4);
  expect_thread_count_independent([&] { return prim::matmul(sq, sq); });
  expect_thread_count_independent([&] { return prim::unary(UnaryOp::softplus, x); });
  expect_thread_count_independent([&] { return prim::sum(prim::cast(x, DType::f32), axis0); });
}

// The kernels of matmul_skinny.cpp: rows of A split across threads (X W, U V^T), and partial sums
// over fixed super-blocks of the contracted dimension (X^T G), also when the columns of A are split
// (short k).
TEST(Determinism, SkinnyProducts) {
  for (DType dtype : {DType::f64, DType::f32}) {
    const Tensor x = prim::cast(testing::random_tensor(Shape{20011, 37}, 5), dtype);
    const Tensor w = prim::cast(testing::random_tensor(Shape{37, 10}, 6), dtype);
    const Tensor wt = prim::cast(testing::random_tensor(Shape{3, 37}, 7), dtype);
    const Tensor g = prim::cast(testing::random_tensor(Shape{20011, 10}, 8), dtype);
    const Tensor gt = prim::cast(testing::random_tensor(Shape{25, 20011}, 9), dtype);
    expect_thread_count_independent([&] { return prim::matmul(x, w); });
    expect_thread_count_independent([&] { return prim::matmul(x, wt, false, true); });
    expect_thread_count_independent([&] { return prim::matmul(x, g, true, false); });
    expect_thread_count_independent([&] { return prim::matmul(x, gt, true, true); });
    const Tensor g4 = prim::cast(testing::random_tensor(Shape{20011, 4}, 14), dtype);  // n <= 8: lanes along m
    expect_thread_count_independent([&] { return prim::matmul(x, g4, true, false); });
    const Tensor w2 = prim::cast(testing::random_tensor(Shape{37, 2}, 15), dtype);  // inner-product form
    expect_thread_count_independent([&] { return prim::matmul(x, w2); });
    const Tensor wide = prim::cast(testing::random_tensor(Shape{300, 3001}, 10), dtype);
    const Tensor h = prim::cast(testing::random_tensor(Shape{300, 5}, 11), dtype);
    expect_thread_count_independent([&] { return prim::matmul(wide, h, true, false); });
    // A short contracted dimension: U V^T.
    const Tensor u = prim::cast(testing::random_tensor(Shape{943, 20}, 12), dtype);
    const Tensor v = prim::cast(testing::random_tensor(Shape{1682, 20}, 13), dtype);
    expect_thread_count_independent([&] { return prim::matmul(u, v, false, true); });
    // Cache-sized operands, a network layer's products: forward, input and weight gradients.
    const Tensor batch = prim::cast(testing::random_tensor(Shape{100, 784}, 16), dtype);
    const Tensor weight = prim::cast(testing::random_tensor(Shape{200, 784}, 17), dtype);
    const Tensor grad = prim::cast(testing::random_tensor(Shape{100, 200}, 18), dtype);
    expect_thread_count_independent([&] { return prim::matmul(batch, weight, false, true); });
    expect_thread_count_independent([&] { return prim::matmul(grad, weight); });
    expect_thread_count_independent([&] { return prim::matmul(grad, batch, true, false); });
  }
}

// The fused categorical-logit GLM: fixed blocks of rows, partial sums over fixed super-blocks added
// in order (several super-blocks of 288-row blocks at D = 300, a ragged last block), with one state
// and with the C K = 40 columns that take the Eigen products.
TEST(Determinism, CategoricalLogitGLM) {
  for (DType dtype : {DType::f64, DType::f32}) {
    const Tensor x = prim::cast(testing::random_tensor(Shape{20011, 300}, 16), dtype);
    const Tensor y =
        prim::cast(prim::binary(BinaryOp::mul, testing::uniform_tensor(Shape{20011}, 17, 0, 1), 10.0), DType::i64);
    for (const Shape& w_shape : {Shape{300, 10}, Shape{4, 300, 10}}) {
      const Tensor w = prim::cast(testing::random_tensor(w_shape, 18, 0.1), dtype);
      const Shape b_shape = w.rank() == 3 ? Shape{4, 10} : Shape{10};
      const Tensor b = prim::cast(testing::random_tensor(b_shape, 19), dtype);
      expect_thread_count_independent([&] {
        const prim::GlmResult r = prim::categorical_logit_glm(x, w, b, y);
        const Tensor parts[] = {prim::reshape(r.log_lik, Shape{r.log_lik.numel()}),
                                prim::reshape(r.grad_w, Shape{r.grad_w.numel()}),
                                prim::reshape(r.grad_alpha, Shape{r.grad_alpha.numel()})};
        return prim::concat(parts, 0);
      });
    }
  }
}

}  // namespace
}  // namespace variate
