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
  expect_thread_count_independent(
      [&] { return prim::sum(prim::cast(x, DType::f32), axis0); });
}

}  // namespace
}  // namespace variate
