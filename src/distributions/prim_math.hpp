#pragma once
// Short names for the non-differentiable element-wise ops (tensor/prim.hpp) in which the univariate
// families write their log densities and analytic partials: Stan's anatomy computes plain values
// and records one tape node, and spelling each step as prim::unary(UnaryOp::..., x) would bury the
// formulas. Private to src/distributions. A double operand adopts the tensor's dtype, so f32
// families stay f32.
#include "variate/distributions/parameters.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::dist::pm {

inline Tensor scalar_like(double v, const Tensor& like) { return Tensor::scalar(v, like.dtype()); }

inline Tensor add(const Tensor& a, const Tensor& b) { return prim::add(a, b); }
inline Tensor add(const Tensor& a, double b) { return prim::binary(BinaryOp::add, a, b); }
inline Tensor sub(const Tensor& a, const Tensor& b) { return prim::sub(a, b); }
inline Tensor sub(const Tensor& a, double b) { return prim::binary(BinaryOp::sub, a, b); }
inline Tensor sub(double a, const Tensor& b) { return prim::sub(scalar_like(a, b), b); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return prim::mul(a, b); }
inline Tensor mul(const Tensor& a, double b) { return prim::binary(BinaryOp::mul, a, b); }
inline Tensor div(const Tensor& a, const Tensor& b) { return prim::div(a, b); }
inline Tensor div(const Tensor& a, double b) { return prim::binary(BinaryOp::div, a, b); }
inline Tensor div(double a, const Tensor& b) { return prim::div(scalar_like(a, b), b); }
inline Tensor neg(const Tensor& x) { return prim::neg(x); }

inline Tensor log(const Tensor& x) { return prim::unary(UnaryOp::log, x); }
inline Tensor log1p(const Tensor& x) { return prim::unary(UnaryOp::log1p, x); }
inline Tensor exp(const Tensor& x) { return prim::unary(UnaryOp::exp, x); }
inline Tensor expm1(const Tensor& x) { return prim::unary(UnaryOp::expm1, x); }
inline Tensor square(const Tensor& x) { return prim::unary(UnaryOp::square, x); }
inline Tensor abs(const Tensor& x) { return prim::unary(UnaryOp::abs, x); }
inline Tensor sign(const Tensor& x) { return prim::unary(UnaryOp::sign, x); }
inline Tensor reciprocal(const Tensor& x) { return prim::unary(UnaryOp::reciprocal, x); }
inline Tensor softplus(const Tensor& x) { return prim::unary(UnaryOp::softplus, x); }
inline Tensor tanh(const Tensor& x) { return prim::unary(UnaryOp::tanh, x); }
inline Tensor lgamma(const Tensor& x) { return prim::unary(UnaryOp::lgamma, x); }
inline Tensor digamma(const Tensor& x) { return prim::unary(UnaryOp::digamma, x); }

/// `x` with the elements outside `support` replaced by `fill`, a point inside it (NaN stays NaN, as
/// mask_outside_support keeps it). A density and its partials computed from the result are finite
/// where `x` is outside, so the zero cotangent that the mask routes there cannot meet an infinite
/// partial (0 * inf = NaN) in the backward pass.
inline Tensor inside_or(const Constraint& support, const Tensor& x, const Tensor& fill) {
  const Tensor keep = prim::binary(BinaryOp::logical_or, in_support(support, x), prim::binary(BinaryOp::ne, x, x));
  return prim::where(keep, x, prim::cast(fill, x.dtype()));
}

}  // namespace variate::dist::pm
