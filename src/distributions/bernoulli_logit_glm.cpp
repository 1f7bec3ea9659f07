#include "variate/distributions/bernoulli_logit_glm.hpp"

#include <cmath>

#include "distributions/draw_gradients.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

namespace {
Shape leading(const Tensor& w) { return w.rank() == 2 ? Shape{w.dim(0)} : Shape{}; }
}  // namespace

BernoulliLogitGLM::BernoulliLogitGLM(Tensor x, Tensor w, Tensor alpha)
    : Distribution(leading(w), Shape{x.rank() == 2 ? x.dim(0) : 0}, common_float_type({x, w, alpha})) {
  check_defined(name(), "x", x);
  VARIATE_CHECK(x.rank() == 2, name(), "x must be a matrix (N, D), got shape ", x.shape());
  VARIATE_CHECK(!autodiff::detail::is_tracked(x), name(),
                "x is data here; gradients with respect to x are not "
                "supported (use Bernoulli(Logits{matmul(x, w) + alpha}) instead)");
  // x is checked only when a log density comes out NaN (see log_prob): a check here would cost a
  // second pass over the data on every evaluation.
  check_finite(name(), "w", w);
  check_finite(name(), "alpha", alpha);
  x_ = as_dtype(x, dtype());
  w_ = as_dtype(w, dtype());
  alpha_ = as_dtype(alpha, dtype());
}

Tensor BernoulliLogitGLM::logits() const {
  // (C, N) or (N): each state's logits for every row.
  const Tensor z = matmul(x_, w_, false, w_.rank() == 2);
  return w_.rank() == 2 ? transpose(z) + expand_dims(alpha_, -1) : z + alpha_;
}

Tensor BernoulliLogitGLM::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor draw =
      random::bernoulli(key, sigmoid(autodiff::stop_gradient(logits())), sample_full_shape(sample_shape));
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw,
                                             {x_, w_, alpha_});
}

Tensor BernoulliLogitGLM::mean() const { return sigmoid(logits()); }

Tensor BernoulliLogitGLM::log_prob(const Tensor& value) const {
  VARIATE_CHECK(value.rank() == 1 && value.dim(0) == x_.dim(0), name(), "y must have shape (", x_.dim(0), "), got ",
                value.shape());
  if (autodiff::records_second_order()) {
    // hessian and hvp differentiate the formula's ops: sum over rows of y l - softplus(l). The fused
    // kernel's rule below is first order only.
    const Tensor l = logits();
    const int rows[] = {-1};
    const Tensor log_lik = sum(as_dtype(value, dtype()) * l - softplus(l), rows);
    check_x_if_nan(name(), log_lik, x_);
    return log_lik;
  }
  const prim::GlmResult r = prim::bernoulli_logit_glm(x_, w_, alpha_, value);
  check_x_if_nan(name(), r.log_lik, x_);
  // One tape node; the partials were computed in the forward pass, as the output is per state.
  return autodiff::record(r.log_lik, {w_, alpha_}, {r.grad_w, r.grad_alpha},
                          [batched = w_.rank() == 2](const autodiff::BackwardContext& ctx) {
                            const Tensor g = ctx.grad();
                            if (ctx.needs_grad(0)) ctx.add(0, (batched ? expand_dims(g, -1) : g) * ctx.saved(0));
                            if (ctx.needs_grad(1)) ctx.add(1, g * ctx.saved(1));
                          });
}

Tensor BernoulliLogitGLM::pointwise_log_prob(const Tensor& value) const {
  VARIATE_CHECK(value.rank() == 1 && value.dim(0) == x_.dim(0), name(), "y must have shape (", x_.dim(0), "), got ",
                value.shape());
  return Bernoulli::from_logits(logits()).log_prob(value);
}

}  // namespace variate::dist
