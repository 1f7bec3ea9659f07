#pragma once
// Tensor operations without autodiff (layer 1). Each checks its arguments, names itself in errors,
// allocates its result and calls the device's kernel. The differentiable versions that user code
// calls live in autodiff/ops.hpp and are built on these.
#include <cstdint>
#include <span>
#include <vector>

#include "variate/tensor/backend.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::prim {

using Axes = std::span<const int>;

Tensor cast(const Tensor& x, DType dtype);
Tensor unary(UnaryOp op, const Tensor& x);
/// Broadcasting binary op; operands are promoted to a common dtype; comparisons return bool.
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
Tensor binary(BinaryOp op, const Tensor& a, double b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
/// The regularized incomplete beta function I_x(a, b), broadcasting all three; floating result.
Tensor betainc(const Tensor& a, const Tensor& b, const Tensor& x);

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor neg(const Tensor& x);

/// Reduces over `axes` (all axes when empty), keeping them as size 1 if keepdims.
Tensor reduce(ReduceOp op, const Tensor& x, Axes axes, bool keepdims);
Tensor sum(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor max(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor argmax(const Tensor& x, int axis, bool keepdims = false);
Tensor cumsum(const Tensor& x, int axis, bool reverse = false);
/// h_t = a_t h_(t-1) + u_t along `axis` from h_0 = u_0, over a and u broadcast together (floating);
/// with `adjoint`, the transpose map: h_t = u_t + a_(t+1) h_(t+1) from the last element.
Tensor linear_recurrence(const Tensor& a, const Tensor& u, int axis, bool adjoint = false);
Tensor sort(const Tensor& x, int axis = -1, bool descending = false);
Tensor argsort(const Tensor& x, int axis = -1, bool descending = false);

/// Batched matrix product with NumPy matmul semantics (1-d operands are promoted and squeezed);
/// transpose flags swap the last two dims of a >= 2-d operand without copying it.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

Tensor reshape(const Tensor& x, const Shape& shape);  // one dim may be -1 via reshape(x, dims)
Tensor reshape(const Tensor& x, std::span<const std::int64_t> dims);
Tensor permute(const Tensor& x, std::span<const int> perm);
Tensor transpose(const Tensor& x, int axis0 = -2, int axis1 = -1);
Tensor expand_dims(const Tensor& x, int axis);
Tensor squeeze(const Tensor& x, int axis);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
/// Sums `grad` down to `shape` (undoes broadcasting); `shape` must broadcast to grad's shape.
Tensor sum_to(const Tensor& grad, const Shape& shape);
Tensor concat(std::span<const Tensor> xs, int axis);
Tensor stack(std::span<const Tensor> xs, int axis);
/// x[start:stop:step] along axis, with Python's rules for negative and out-of-range bounds.
Tensor slice(const Tensor& x, int axis, std::int64_t start, std::int64_t stop, std::int64_t step = 1);
/// take_along_axis: index has x's rank; its dims other than `axis` broadcast against x's.
Tensor gather(const Tensor& x, int axis, const Tensor& index);
/// Returns a copy of `base` with src added at `index` along axis (scatter-add).
Tensor scatter_add(const Tensor& base, int axis, const Tensor& index, const Tensor& src);
/// x[..., index, ...] along axis for an integer index tensor of any shape.
Tensor take(const Tensor& x, const Tensor& index, int axis = 0);
Tensor one_hot(const Tensor& index, std::int64_t depth, DType dtype = DType::f64);

/// The fused Bernoulli-logit GLM (see Backend::bernoulli_logit_glm): x (N, D), w (D) or (C, D),
/// alpha () or (C), y (N) with values 0 or 1. Results have w's leading shape: log_lik () or (C),
/// grad_w like w, grad_alpha like the log-lik.
struct GlmResult {
  Tensor log_lik, grad_w, grad_alpha;
};
GlmResult bernoulli_logit_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y);
/// The fused Normal identity-link GLM (see Backend::normal_id_glm): x (N, D), w (D) or (C, D),
/// alpha and sigma () or (C), y (N). Results have w's leading shape: log_lik, grad_alpha and
/// grad_sigma () or (C), grad_w like w.
struct NormalGlmResult {
  Tensor log_lik, grad_w, grad_alpha, grad_sigma;
};
NormalGlmResult normal_id_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& sigma,
                              const Tensor& y);
/// The fused categorical-logit GLM (see Backend::categorical_logit_glm): x (N, D), w (D, K) or
/// (C, D, K), b (K) or (C, K), y (N) labels 0 .. K-1 of any real dtype. Results have w's leading
/// shape: log_lik () or (C), grad_w like w, grad_alpha (the partials for b) like b.
GlmResult categorical_logit_glm(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y);

Tensor cholesky(const Tensor& x);
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower = true, bool transpose_a = false);
/// The cotangent of a symmetric positive definite A from that of its lower Cholesky factor L
/// (Murray 2016, eq. 10), symmetric; l_grad's upper triangle is not read.
Tensor cholesky_backward(const Tensor& l, const Tensor& l_grad);

}  // namespace variate::prim
