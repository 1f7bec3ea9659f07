#pragma once
// The kernel table a device implements. Callers (tensor/prim.hpp) check arguments, work out result
// shapes and allocate results; a backend only computes into the given outputs. Today there is a
// CPU backend; a CUDA backend implements the same interface. Kernel replay (tensor/replay.hpp)
// needs nothing more from a backend: it records the calls made through this table, and binds the
// small ones only where the device has a binder (src/tensor/kernel_binder.hpp).
#include <cstdint>
#include <span>

#include "variate/tensor/tensor.hpp"

namespace variate {

enum class UnaryOp : std::uint8_t {
  neg,
  exp,
  log,
  log1p,
  expm1,
  sqrt,
  abs,
  sign,
  square,
  reciprocal,
  sigmoid,
  log_sigmoid,
  softplus,
  tanh,
  atan,
  lgamma,
  digamma,
  trigamma,
  erf,
  erfc,
  floor,
  logical_not,
  sin,
  cos,
  log_bessel_i0,
  bessel_i1_over_i0
};
/// igamma(a, x) and igammac(a, x) are the regularized incomplete gamma functions P(a, x) and
/// Q(a, x) = 1 - P(a, x); gamma_log_draw_grad(a, log x) is d log x / d a along P(a, x) held fixed,
/// the implicit reparameterization gradient of a Gamma(a, 1) draw x.
enum class BinaryOp : std::uint8_t {
  add,
  sub,
  mul,
  div,
  pow,
  maximum,
  minimum,
  igamma,
  igammac,
  gamma_log_draw_grad,
  times_nonzero,  // a == 0 ? 0 : a * b: a zero factor wins over an infinite or NaN b
  // Bernoulli(logits = a) at the value b: log p(b) and d log p(b) / da (see the CPU element functions)
  bernoulli_logit_log_prob,
  bernoulli_logit_score,
  // -a^2 / 2 - b: the Normal log density from the standardized value a = (x - loc) / scale and
  // b = log(scale) + log(2 pi) / 2, in one rounding
  normal_log_density,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  logical_and,
  logical_or
};
enum class ReduceOp : std::uint8_t { sum, max, min, prod };

const char* name(UnaryOp op);
const char* name(BinaryOp op);

/// The kernels of one device kind (CPU today): allocation and every primitive op the tensor layer
/// dispatches. Tensors call it through their device; code above the tensor layer never does.
class Backend {
 public:
  virtual ~Backend() = default;

  // Memory. Blocks are recycled by size class; `cached_bytes` and `system_allocations` let tests
  // prove that steady-state loops do not reach the system allocator.
  virtual detail::Storage* allocate_storage(std::size_t bytes) = 0;
  virtual void release_storage(detail::Storage* s) = 0;
  virtual std::int64_t system_allocations() const = 0;

  virtual void fill(Tensor& out, double value) = 0;
  virtual void copy(const Tensor& x, Tensor& out) = 0;  // same shape and dtype
  virtual void cast(const Tensor& x, Tensor& out) = 0;  // same shape, out.dtype() may differ

  // Element-wise. Inputs broadcast to out.shape(); binary inputs already share one dtype.
  virtual void unary(UnaryOp op, const Tensor& x, Tensor& out) = 0;
  virtual void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) = 0;
  virtual void where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) = 0;
  /// The regularized incomplete beta function I_x(a, b); all three are floating, of out's dtype.
  virtual void betainc(const Tensor& a, const Tensor& b, const Tensor& x, Tensor& out) = 0;
  virtual void broadcast_to(const Tensor& x, Tensor& out) = 0;

  /// Reduces the axes flagged in `reduced` (length x.rank()); out has x's rank with those dims 1.
  virtual void reduce(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) = 0;
  /// Index of the maximum along `axis` (first on ties); out is i64 with that axis of size 1.
  virtual void argmax(const Tensor& x, int axis, Tensor& out) = 0;
  virtual void cumsum(const Tensor& x, int axis, bool reverse, Tensor& out) = 0;
  /// The first-order linear recurrence along `axis` over a and u of out's shape and floating dtype:
  /// out_t = a_t out_(t-1) + u_t from out_0 = u_0, or with `adjoint` its transpose, run backwards:
  /// out_t = u_t + a_(t+1) out_(t+1) from the last element, out_(n-1) = u_(n-1).
  virtual void linear_recurrence(const Tensor& a, const Tensor& u, int axis, bool adjoint, Tensor& out) = 0;
  /// Sorts along `axis`; either output may be undefined when not wanted.
  virtual void sort(const Tensor& x, int axis, bool descending, Tensor* values, Tensor* indices) = 0;

  /// out[b] = op(a[b]) @ op(b[b]) with batch dims broadcast; op transposes the last two dims.
  virtual void matmul(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& out) = 0;

  virtual void permute(const Tensor& x, std::span<const int> perm, Tensor& out) = 0;
  /// out = x[..., start : start + step * out.dim(axis) : step, ...]
  virtual void slice(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) = 0;
  /// Adds x into out[..., start : start + step * x.dim(axis) : step, ...].
  virtual void slice_add(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) = 0;
  virtual void concat(std::span<const Tensor> xs, int axis, Tensor& out) = 0;
  /// out[.., i, ..] = x[.., index[.., i, ..], ..] (index has out's shape; take_along_axis).
  virtual void gather(const Tensor& x, int axis, const Tensor& index, Tensor& out) = 0;
  /// out[.., index[.., i, ..], ..] += src[.., i, ..]
  virtual void scatter_add(const Tensor& src, int axis, const Tensor& index, Tensor& out) = 0;
  /// out = x[..., index[j], ...] along axis for a 1-d index (take / index_select).
  virtual void take(const Tensor& x, int axis, const Tensor& index, Tensor& out) = 0;
  /// out[..., index[j], ...] += src[..., j, ...] along axis for a 1-d index.
  virtual void take_add(const Tensor& src, int axis, const Tensor& index, Tensor& out) = 0;

  /// Fused Bernoulli-logit GLM (one pass over x): for each row i and state c, z = x_i . w_c + alpha_c;
  /// log_lik_c = sum_i y_i z - softplus(z) (-inf for a y_i outside {0, 1}); grad_w_c = sum_i g x_i and
  /// grad_alpha_c = sum_i g with g = y_i - sigmoid(z). x (N, D), w (C, D), alpha (C), y (N); outputs
  /// log_lik (C), grad_w (C, D), grad_alpha (C). Many states (chains) share the one pass over x.
  virtual void bernoulli_logit_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y,
                                   Tensor& log_lik, Tensor& grad_w, Tensor& grad_alpha) = 0;
  /// Fused Normal identity-link GLM (one pass over x): for each row i and state c, r = y_i - x_i . w_c
  /// - alpha_c; log_lik_c = sum_i log N(r | 0, sigma_c); with g = r / sigma_c^2, grad_w_c = sum_i g x_i,
  /// grad_alpha_c = sum_i g and grad_sigma_c = sum_i (r^2 / sigma_c^3 - 1 / sigma_c). x (N, D),
  /// w (C, D), alpha (C), sigma (C) positive, y (N); outputs log_lik, grad_alpha, grad_sigma (C) and
  /// grad_w (C, D).
  virtual void normal_id_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& sigma,
                             const Tensor& y, Tensor& log_lik, Tensor& grad_w, Tensor& grad_alpha,
                             Tensor& grad_sigma) = 0;
  /// Fused categorical-logit GLM (one pass over x): for each row i and state c, the K logits
  /// z = x_i W_c + b_c; log_lik_c = sum_i z_{y_i} - logsumexp(z) (-inf if a y_i is not one of 0 .. K-1,
  /// NaN if one is NaN); with g = onehot(y_i) - softmax(z), grad_w_c = sum_i x_i^T g and grad_b_c = sum_i g.
  /// x (N, D), w (C, D, K), b (C, K), y (N) in f64; outputs log_lik (C), grad_w (C, D, K), grad_b (C, K).
  virtual void categorical_logit_glm(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y,
                                     Tensor& log_lik, Tensor& grad_w, Tensor& grad_b) = 0;

  // Linear algebra over the last two dims, batched over the leading ones.
  /// Lower Cholesky factor; returns false if some matrix is not positive definite.
  virtual bool cholesky(const Tensor& x, Tensor& out) = 0;
  /// Solves op(A) X = B for triangular A (lower or upper), op = transpose or identity.
  virtual void triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a, Tensor& out) = 0;
  /// The cotangent of A (symmetric) from that of its lower Cholesky factor L, all of L's shape.
  virtual void cholesky_backward(const Tensor& l, const Tensor& l_grad, Tensor& out) = 0;
};

/// The backend of a device; throws if the device has none in this build.
Backend& backend(Device device);

}  // namespace variate
