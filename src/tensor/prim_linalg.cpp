// Tensor-layer linear algebra over the last two dims, batched over the leading ones.
#include "variate/tensor/prim.hpp"

namespace variate::prim {

Tensor cholesky(const Tensor& x) {
  VARIATE_CHECK(x.defined(), "cholesky", "the input tensor is undefined");
  VARIATE_CHECK(x.rank() >= 2 && x.dim(-1) == x.dim(-2), "cholesky",
                "expected square matrices (shape [..., n, n]), got shape ", x.shape());
  VARIATE_CHECK(is_floating(x.dtype()), "cholesky", "expected f32 or f64, got ", x.dtype());
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  VARIATE_CHECK(backend(x.device()).cholesky(x, out), "cholesky",
                "matrix is not positive definite (a matrix of the batch of shape ", x.shape(),
                " has a non-positive or non-finite pivot)");
  return out;
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a) {
  VARIATE_CHECK(a.defined() && b.defined(), "triangular_solve", "an input tensor is undefined");
  VARIATE_CHECK(a.device() == b.device(), "triangular_solve", "operands are on different devices (", a.device(),
                " and ", b.device(), ")");
  VARIATE_CHECK(a.rank() >= 2 && a.dim(-1) == a.dim(-2), "triangular_solve",
                "expected square matrices A (shape [..., n, n]), got shape ", a.shape());
  VARIATE_CHECK(b.rank() >= 2 && b.dim(-2) == a.dim(-1), "triangular_solve", "expected B of shape [..., ", a.dim(-1),
                ", k] for A of shape ", a.shape(), ", got shape ", b.shape());
  Shape shape = broadcast_shapes("triangular_solve", Shape(std::span(a.shape().begin(), std::size_t(a.rank() - 2))),
                                 Shape(std::span(b.shape().begin(), std::size_t(b.rank() - 2))));
  shape.push_back(b.dim(-2));
  shape.push_back(b.dim(-1));
  const DType t = float_type(promote(a.dtype(), b.dtype()));
  Tensor out = Tensor::empty(shape, t, a.device());
  backend(a.device()).triangular_solve(cast(a, t), cast(b, t), lower, transpose_a, out);
  return out;
}

Tensor cholesky_backward(const Tensor& l, const Tensor& l_grad) {
  VARIATE_CHECK(l.defined() && l_grad.defined(), "cholesky_backward", "an input tensor is undefined");
  VARIATE_CHECK(l.device() == l_grad.device(), "cholesky_backward", "operands are on different devices (", l.device(),
                " and ", l_grad.device(), ")");
  VARIATE_CHECK(l.rank() >= 2 && l.dim(-1) == l.dim(-2), "cholesky_backward",
                "expected square matrices L (shape [..., n, n]), got shape ", l.shape());
  VARIATE_CHECK(l_grad.shape() == l.shape(), "cholesky_backward", "expected L's cotangent of L's shape ", l.shape(),
                ", got shape ", l_grad.shape());
  VARIATE_CHECK(is_floating(l.dtype()), "cholesky_backward", "expected f32 or f64, got ", l.dtype());
  Tensor out = Tensor::empty(l.shape(), l.dtype(), l.device());
  backend(l.device()).cholesky_backward(l, cast(l_grad, l.dtype()), out);
  return out;
}

}  // namespace variate::prim
