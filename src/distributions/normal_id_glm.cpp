#include "variate/distributions/normal_id_glm.hpp"

#include <cmath>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/replay.hpp"

namespace variate::dist {

namespace {

Shape leading(const Tensor& w) { return w.rank() == 2 ? Shape{w.dim(0)} : Shape{}; }

// alpha and sigma are one per state: () with w (D), () or (C) with w (C, D).
void check_per_state(const char* role, const Tensor& p, const Tensor& w) {
  const std::int64_t states = w.rank() == 2 ? w.dim(0) : 1;
  VARIATE_CHECK(p.rank() <= 1 && p.numel() == states, "NormalIdGLM", role, " must have shape () or (", states,
                ") to match w of shape ", w.shape(), ", got ", p.shape());
}

// x and y are checked only when a log density comes out infinite or NaN: a check on every
// evaluation would cost another pass over the data.
void check_data_if_not_finite(const Tensor& log_lik, const Tensor& x, const Tensor& y) {
  host_check({log_lik}, [log_lik, x, y] {
    const autodiff::NoRecording reads_values;
    if (std::isfinite(sum(log_lik).item())) return;
    check_finite("NormalIdGLM", "x", x);
    check_finite("NormalIdGLM", "y", y);
  });
}

}  // namespace

NormalIdGLM::NormalIdGLM(Tensor x, Tensor w, Tensor alpha, Tensor sigma)
    : Distribution(leading(w), Shape{x.rank() == 2 ? x.dim(0) : 0}, common_float_type({x, w, alpha, sigma})) {
  check_defined(name(), "x", x);
  check_defined(name(), "w", w);
  VARIATE_CHECK(x.rank() == 2, name(), "x must be a matrix (N, D), got shape ", x.shape());
  VARIATE_CHECK(!autodiff::detail::is_tracked(x), name(),
                "x is data here; gradients with respect to x are not supported (use "
                "Normal(matmul(x, w) + alpha, sigma) instead)");
  VARIATE_CHECK((w.rank() == 1 || w.rank() == 2) && w.dim(-1) == x.dim(1), name(), "w must have shape (", x.dim(1),
                ") or (C, ", x.dim(1), ") to match x of shape ", x.shape(), ", got ", w.shape());
  check_per_state("alpha", alpha, w);
  check_per_state("sigma", sigma, w);
  check_finite(name(), "w", w);
  check_finite(name(), "alpha", alpha);
  check_positive(name(), "sigma", sigma);
  x_ = as_dtype(x, dtype());
  w_ = as_dtype(w, dtype());
  alpha_ = as_dtype(alpha, dtype());
  sigma_ = as_dtype(sigma, dtype());
}

void NormalIdGLM::check_response(const Tensor& y) const {
  VARIATE_CHECK(y.rank() == 1 && y.dim(0) == x_.dim(0), name(), "y must have shape (", x_.dim(0), "), got ", y.shape());
}

Tensor NormalIdGLM::mean() const {
  // (C, N) or (N): each state's prediction for every row.
  const Tensor z = matmul(x_, w_, false, w_.rank() == 2);
  return w_.rank() == 2 ? transpose(z) + expand_dims(alpha_, -1) : z + alpha_;
}

Tensor NormalIdGLM::variance() const {
  const Tensor var = square(sigma_);
  return broadcast_to(w_.rank() == 2 ? expand_dims(var, -1) : var, sample_full_shape({}));
}

Tensor NormalIdGLM::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor scale = w_.rank() == 2 ? expand_dims(sigma_, -1) : sigma_;
  return mean() + scale * random::normal(key, sample_full_shape(sample_shape), dtype());
}

Tensor NormalIdGLM::pointwise_log_prob(const Tensor& value) const {
  check_response(value);
  return Normal(mean(), w_.rank() == 2 ? expand_dims(sigma_, -1) : sigma_).log_prob(value);
}

Tensor NormalIdGLM::log_prob(const Tensor& value) const {
  check_response(value);
  VARIATE_CHECK(!autodiff::detail::is_tracked(value), name(),
                "y is data here; gradients with respect to y are not supported (use "
                "Normal(matmul(x, w) + alpha, sigma) instead)");
  if (autodiff::records_second_order()) {
    // hessian and hvp differentiate the formula's ops; the fused kernel's rule below is first order.
    const int rows[] = {-1};
    const Tensor log_lik = sum(pointwise_log_prob(value), rows);
    check_data_if_not_finite(log_lik, x_, value);
    return log_lik;
  }
  const prim::NormalGlmResult r = prim::normal_id_glm(x_, w_, alpha_, sigma_, value);
  check_data_if_not_finite(r.log_lik, x_, value);
  // One tape node; the partials were computed in the forward pass, as the output is per state.
  return autodiff::record(r.log_lik, {w_, alpha_, sigma_}, {r.grad_w, r.grad_alpha, r.grad_sigma},
                          [batched = w_.rank() == 2](const autodiff::BackwardContext& ctx) {
                            const Tensor g = ctx.grad();
                            if (ctx.needs_grad(0)) ctx.add(0, (batched ? expand_dims(g, -1) : g) * ctx.saved(0));
                            if (ctx.needs_grad(1)) ctx.add(1, g * ctx.saved(1));
                            if (ctx.needs_grad(2)) ctx.add(2, g * ctx.saved(2));
                          });
}

}  // namespace variate::dist
