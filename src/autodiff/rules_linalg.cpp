// Backward rules of the Cholesky factorization and triangular solves.
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate {

using autodiff::BackwardContext;
using autodiff::record;

namespace {

// Weights of Murray's Phi: 1 strictly below the diagonal, 1/2 on it, 0 above (or the plain lower or
// upper triangle when `diagonal` is 1).
Tensor triangle_weights(std::int64_t n, bool lower, double diagonal, DType dtype) {
  Tensor w = Tensor::zeros(Shape{n, n}, DType::f64);
  double* p = w.data<double>();
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) p[i * n + j] = i == j ? diagonal : ((lower ? i > j : i < j) ? 1.0 : 0.0);
  return cast(w, dtype);
}

}  // namespace

Tensor cholesky(const Tensor& x) {
  Tensor l = prim::cholesky(x);
  // Murray (2016) in one kernel, symmetrized because only a symmetric A is meaningful.
  return record(l, {x}, {l},
                [](const BackwardContext& ctx) { ctx.add(0, prim::cholesky_backward(ctx.saved(0), ctx.grad())); });
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a) {
  Tensor x = prim::triangular_solve(a, b, lower, transpose_a);
  return record(x, {a, b}, {a, x}, [lower, transpose_a](const BackwardContext& ctx) {
    const Tensor& a = ctx.saved(0);
    const Tensor& x = ctx.saved(1);
    // x = op(A)^-1 b  =>  b_bar = op(A)^-T x_bar, and op(A)_bar = -b_bar x^T restricted to A's triangle.
    const Tensor gb = triangular_solve(a, ctx.grad(), lower, !transpose_a);
    if (ctx.needs_grad(1)) ctx.add(1, gb);
    if (ctx.needs_grad(0)) {
      const Tensor ga = transpose_a ? -matmul(x, gb, false, true) : -matmul(gb, x, false, true);
      ctx.add(0, ga * triangle_weights(a.dim(-1), lower, 1.0, ga.dtype()));
    }
  });
}

Tensor logdet_spd(const Tensor& x) {
  const int last[] = {-1};
  return 2.0 * sum(log(diagonal(cholesky(x))), last);
}

}  // namespace variate
