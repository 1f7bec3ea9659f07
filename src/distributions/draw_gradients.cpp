#include "distributions/draw_gradients.hpp"

#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist::detail {

using autodiff::BackwardContext;

namespace {

// d log G / d a of the gamma draws G = exp(log_g) with concentrations a (broadcast).
// A backward value only (the kernel has no differentiable op).
Tensor log_draw_grad(const Tensor& a, const Tensor& log_g) {
  return prim::binary(BinaryOp::gamma_log_draw_grad, cast(a, log_g.dtype()), log_g);
}

}  // namespace

Tensor gamma_draw(random::Key key, const Tensor& concentration, const Shape& shape) {
  const Tensor g = random::gamma(key, autodiff::stop_gradient(concentration), shape);
  return autodiff::record(g, {concentration}, {concentration, g}, [](const BackwardContext& ctx) {
    const Tensor& g = ctx.saved(1);
    // A draw clamped at the smallest normal number gets that number's gradient, which is tiny.
    const Tensor dg = g * log_draw_grad(ctx.saved(0), log(g));
    ctx.add(0, ctx.grad() * dg);
  });
}

Tensor beta_draw(random::Key key, const Tensor& concentration1, const Tensor& concentration0, const Shape& shape) {
  Tensor logs;
  const Tensor x =
      random::beta(key, autodiff::stop_gradient(concentration1), autodiff::stop_gradient(concentration0), shape, &logs);
  if (!autodiff::detail::any_tracked(std::vector<Tensor>{concentration1, concentration0})) return x;
  const Tensor log_x = squeeze(slice(logs, -1, 0, 1), -1);
  const Tensor log_y = squeeze(slice(logs, -1, 1, 2), -1);
  // x (1 - x) = X Y / (X + Y)^2 from the logs, so that it keeps its digits where x is close to 1.
  const Tensor top = maximum(log_x, log_y);
  const Tensor log_total = top + log1p(exp(-abs(log_x - log_y)));
  const Tensor spread = exp(log_x + log_y - log_total * 2.0);
  return autodiff::record(x, {concentration1, concentration0}, {concentration1, concentration0, log_x, log_y, spread},
                          [](const BackwardContext& ctx) {
                            const Tensor g = ctx.grad() * ctx.saved(4);
                            if (ctx.needs_grad(0)) ctx.add(0, g * log_draw_grad(ctx.saved(0), ctx.saved(2)));
                            if (ctx.needs_grad(1)) ctx.add(1, -(g * log_draw_grad(ctx.saved(1), ctx.saved(3))));
                          });
}

Tensor dirichlet_draw(random::Key key, const Tensor& concentration, const Shape& shape) {
  Tensor logs;
  const Tensor x = random::dirichlet(key, autodiff::stop_gradient(concentration), shape, &logs);
  return autodiff::record(x, {concentration}, {concentration, logs, x}, [](const BackwardContext& ctx) {
    const Tensor& x = ctx.saved(2);
    const int last[] = {-1};
    // VJP: sum_i g_i (delta_ij - x_i) x_j D_j = x_j D_j (g_j - sum_i g_i x_i).
    const Tensor centered = ctx.grad() - sum(ctx.grad() * x, last, true);
    ctx.add(0, centered * x * log_draw_grad(ctx.saved(0), ctx.saved(1)));
  });
}

Tensor without_draw_gradient(const char* family, const char* why, const Tensor& draw,
                             std::initializer_list<Tensor> params) {
  std::vector<Tensor> inputs{draw};
  inputs.insert(inputs.end(), params.begin(), params.end());
  return autodiff::record(
      autodiff::stop_gradient(draw), std::span<const Tensor>(inputs), {}, [family, why](const BackwardContext& ctx) {
        if (ctx.needs_grad(0)) ctx.add(0, ctx.grad());
        for (int i = 1; i < ctx.num_inputs(); ++i)
          if (ctx.needs_grad(i))
            variate::detail::fail(family, ": a draw has no gradient with respect to the parameters (", why,
                                  "); apply stop_gradient to the draw, or use a "
                                  "score-function gradient estimator");
      });
}

}  // namespace variate::dist::detail
