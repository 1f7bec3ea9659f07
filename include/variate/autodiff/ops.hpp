#pragma once
// Differentiable tensor operations: what models and inference code call. Each is the tensor-layer
// operation (tensor/prim.hpp) plus its backward rule; the rules live in src/autodiff/rules_*.cpp,
// one file per family. Ops on constants record nothing and cost only the kernel.
#include <cstdint>
#include <span>
#include <string_view>

#include "variate/tensor/prim.hpp"

namespace variate {

using Axes = std::span<const int>;

// Arithmetic with NumPy broadcasting and dtype promotion.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& x);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, double b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
/// cond ? a : b element-wise, broadcasting all three.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor cast(const Tensor& x, DType dtype);

// Comparisons and logic (not differentiable; return bool tensors).
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
/// Against a number, which takes the tensor's dtype when it is representable in it (as in NumPy).
Tensor eq(const Tensor& a, double b);
Tensor ne(const Tensor& a, double b);
Tensor lt(const Tensor& a, double b);
Tensor le(const Tensor& a, double b);
Tensor gt(const Tensor& a, double b);
Tensor ge(const Tensor& a, double b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& x);

// Element-wise math; integer inputs are computed in f64.
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor square(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor sigmoid(const Tensor& x);
/// log(sigmoid(x)) = -softplus(-x), accurate for large |x|.
Tensor log_sigmoid(const Tensor& x);
/// log(1 + exp(x)), accurate for large |x|.
Tensor softplus(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
/// log I0(x), I0 the modified Bessel function of the first kind of order 0 (finite where I0
/// overflows); its derivative is bessel_i1_over_i0.
Tensor log_bessel_i0(const Tensor& x);
/// I1(x) / I0(x), the ratio of the modified Bessel functions of orders 1 and 0.
Tensor bessel_i1_over_i0(const Tensor& x);
Tensor lgamma(const Tensor& x);
Tensor digamma(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor erfc(const Tensor& x);
Tensor floor(const Tensor& x);

// Regularized incomplete gamma and beta functions (the cdfs of the gamma and beta laws), with NaN
// for parameters a, b <= 0. igamma and igammac are differentiable in a and x; betainc in x only: a
// gradient with respect to its a or b throws, and only when one is requested, so it stays usable as
// a function of x.
/// P(a, x) = gamma(a, x) / Gamma(a) (DLMF 8.2.4): 0 for x <= 0, 1 for x = inf.
Tensor igamma(const Tensor& a, const Tensor& x);
/// Q(a, x) = 1 - P(a, x), accurate where it is small.
Tensor igammac(const Tensor& a, const Tensor& x);
/// I_x(a, b) = B_x(a, b) / B(a, b) (DLMF 8.17.2): 0 for x <= 0, 1 for x >= 1.
Tensor betainc(const Tensor& a, const Tensor& b, const Tensor& x);

// Reductions over `axes` (all axes when empty).
Tensor sum(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor mean(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor max(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor min(const Tensor& x, Axes axes = {}, bool keepdims = false);
/// Whether every (any) element of a bool tensor over `axes` is true; an empty reduction gives true
/// (false). Not differentiable.
Tensor all(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor any(const Tensor& x, Axes axes = {}, bool keepdims = false);
/// log(sum(exp(x))) over axes, computed around the maximum so large inputs do not overflow.
Tensor logsumexp(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor log_softmax(const Tensor& x, int axis = -1);
Tensor softmax(const Tensor& x, int axis = -1);
Tensor argmax(const Tensor& x, int axis, bool keepdims = false);
Tensor cumsum(const Tensor& x, int axis);
/// The first-order linear recurrence h_t = a_t h_(t-1) + u_t along `axis` of the shape a and u
/// broadcast to, from h_0 = u_0 (a_0 is unused): an AR(1) filter, exponential smoothing or a GARCH
/// variance in one op instead of one op per step. Differentiable in both, twice.
Tensor linear_recurrence(const Tensor& a, const Tensor& u, int axis = -1);
Tensor sort(const Tensor& x, int axis = -1, bool descending = false);
Tensor argsort(const Tensor& x, int axis = -1, bool descending = false);

// Products.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);
/// Einstein summation over one or two operands, e.g. "ij,jk->ik", "...ij,...j->...i", "bij->bji".
/// Letters are single characters; "..." stands for leading dims that broadcast. A letter repeated
/// within one operand (a diagonal) is not supported.
Tensor einsum(std::string_view spec, const Tensor& a);
Tensor einsum(std::string_view spec, const Tensor& a, const Tensor& b);

// Shapes and indexing.
Tensor reshape(const Tensor& x, std::span<const std::int64_t> dims);  // one dim may be -1
Tensor reshape(const Tensor& x, std::initializer_list<std::int64_t> dims);
Tensor permute(const Tensor& x, std::span<const int> perm);
Tensor permute(const Tensor& x, std::initializer_list<int> perm);
Tensor transpose(const Tensor& x, int axis0 = -2, int axis1 = -1);
Tensor expand_dims(const Tensor& x, int axis);
Tensor squeeze(const Tensor& x, int axis);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
/// Sums the dims that broadcasting to x's shape added or stretched, leaving `shape` (the inverse of
/// broadcast_to, as for a broadcast input's gradient).
Tensor sum_to(const Tensor& x, const Shape& shape);
Tensor concat(std::span<const Tensor> xs, int axis);
Tensor concat(std::initializer_list<Tensor> xs, int axis);
Tensor stack(std::span<const Tensor> xs, int axis);
Tensor stack(std::initializer_list<Tensor> xs, int axis);
Tensor slice(const Tensor& x, int axis, std::int64_t start, std::int64_t stop, std::int64_t step = 1);
/// x[i0, i1, ...] as NumPy indexes: one index per leading axis (negative from the end), the rest
/// kept; differentiable. Throws naming the axis for an index out of range.
Tensor index(const Tensor& x, std::initializer_list<std::int64_t> indices);
/// take_along_axis.
Tensor gather(const Tensor& x, int axis, const Tensor& index);
Tensor scatter_add(const Tensor& base, int axis, const Tensor& index, const Tensor& src);
Tensor take(const Tensor& x, const Tensor& index, int axis = 0);
Tensor one_hot(const Tensor& index, std::int64_t depth, DType dtype = DType::f64);

// Linear algebra over the last two dims.
Tensor cholesky(const Tensor& x);
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower = true, bool transpose_a = false);
/// The diagonal of the last two dims: (..., n, n) -> (..., n).
Tensor diagonal(const Tensor& x);
/// log|det x| of symmetric positive-definite matrices, through the Cholesky factor.
Tensor logdet_spd(const Tensor& x);

}  // namespace variate
