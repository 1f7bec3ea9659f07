#include "variate/distributions/categorical_logit_glm.hpp"

#include <cmath>

#include "distributions/draw_gradients.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

namespace {

constexpr const char* kName = "CategoricalLogitGLM";

// Checks the shapes (before the base class reads them) and returns the batch shape: () or (C).
Shape checked_batch_shape(const Tensor& x, const Tensor& w, const Tensor& b) {
  check_defined(kName, "x", x);
  check_defined(kName, "w", w);
  check_defined(kName, "b", b);
  VARIATE_CHECK(x.rank() == 2, kName, "x must be a matrix (N, D), got shape ", x.shape());
  VARIATE_CHECK(w.rank() == 2 || w.rank() == 3, kName, "w must have shape (D, K) or (C, D, K) for C chains, got ",
                w.shape());
  VARIATE_CHECK(w.dim(-2) == x.dim(1), kName, "w must have D = ", x.dim(1), " rows to match x of shape ", x.shape(),
                ", got w of shape ", w.shape());
  VARIATE_CHECK(w.dim(-1) >= 1, kName, "w must have at least one category (column), got shape ", w.shape());
  const Shape b_shape = w.rank() == 3 ? Shape{w.dim(0), w.dim(2)} : Shape{w.dim(1)};
  VARIATE_CHECK(b.shape() == b_shape, kName, "b must have shape ", b_shape, " to match w of shape ", w.shape(),
                ", got ", b.shape());
  VARIATE_CHECK(!autodiff::detail::is_tracked(x), kName,
                "x is data here; gradients with respect to x are not "
                "supported (use Categorical(Logits{matmul(x, w) + b}) instead)");
  return w.rank() == 3 ? Shape{w.dim(0)} : Shape{};
}

}  // namespace

CategoricalLogitGLM::CategoricalLogitGLM(Tensor x, Tensor w, Tensor b)
    : Distribution(checked_batch_shape(x, w, b), Shape{x.defined() && x.rank() == 2 ? x.dim(0) : 0}, DType::i64) {
  // x is checked only when a log density comes out NaN (see log_prob): a check here would cost a
  // second pass over the data on every evaluation.
  check_finite(name(), "w", w);
  check_finite(name(), "b", b);
  const DType t = common_float_type({x, w, b});
  x_ = as_dtype(x, t);
  w_ = as_dtype(w, t);
  b_ = as_dtype(b, t);
}

Constraint CategoricalLogitGLM::support() const {
  return Constraint::integer_interval(Tensor::scalar(0.0, x_.dtype()),
                                      Tensor::scalar(double(num_categories() - 1), x_.dtype()));
}

Tensor CategoricalLogitGLM::logits() const {
  // (N, K), or (C, N, K) with x broadcast over the chains.
  const autodiff::NoRecording values;
  return matmul(x_, w_) + (w_.rank() == 3 ? expand_dims(b_, -2) : b_);
}

Tensor CategoricalLogitGLM::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor draw = random::categorical(key, logits(), sample_full_shape(sample_shape));
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw, {x_, w_, b_});
}

Tensor CategoricalLogitGLM::log_prob(const Tensor& value) const {
  VARIATE_CHECK(value.defined() && value.rank() == 1 && value.dim(0) == x_.dim(0), name(), "y must have shape (",
                x_.dim(0), ") to match x of shape ", x_.shape(), ", got ", value.defined() ? value.shape() : Shape{});
  const prim::GlmResult r = prim::categorical_logit_glm(x_, w_, b_, value);
  check_x_if_nan(name(), r.log_lik, x_);
  // One tape node; the partials were computed in the forward pass, as the output is per state.
  return autodiff::record(r.log_lik, {w_, b_}, {r.grad_w, r.grad_alpha},
                          [batched = w_.rank() == 3](const autodiff::BackwardContext& ctx) {
                            const Tensor g = ctx.grad();
                            if (ctx.needs_grad(0))
                              ctx.add(0, (batched ? reshape(g, {g.dim(0), 1, 1}) : g) * ctx.saved(0));
                            if (ctx.needs_grad(1)) ctx.add(1, (batched ? expand_dims(g, -1) : g) * ctx.saved(1));
                          });
}

Tensor CategoricalLogitGLM::pointwise_log_prob(const Tensor& value) const {
  VARIATE_CHECK(value.defined() && value.rank() == 1 && value.dim(0) == x_.dim(0), name(), "y must have shape (",
                x_.dim(0), ") to match x of shape ", x_.shape(), ", got ", value.defined() ? value.shape() : Shape{});
  return Categorical::from_logits(logits()).log_prob(value);
}

}  // namespace variate::dist
