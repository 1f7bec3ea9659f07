#pragma once
// How a draw gets its gradient with respect to the parameters (private to src/distributions).
// Location-scale families and inverse-cdf transforms are differentiable as written (x = loc + scale
// eps with the noise a constant). The gamma family is not: its draws come from rejection samplers,
// whose output is not a smooth function of the parameters for a fixed random stream. These draws
// get implicit reparameterization gradients instead (Figurnov, Mohamed & Mnih, "Implicit
// reparameterization gradients", NeurIPS 2018): holding u = F(x; a) fixed gives
// dx/da = -(dF(x; a)/da) / p(x; a), which is what an inverse-cdf sampler's pathwise gradient would
// be. Beta and Dirichlet draws are normalized gamma draws, so their gradients flow through those.
// Draws with no gradient at all (discrete families, a mixture's choice of component) raise an
// error when a gradient reaches them, never a silent zero.
#include <initializer_list>

#include "variate/autodiff/ops.hpp"
#include "variate/random/key.hpp"

namespace variate::dist::detail {

/// random::gamma(key, concentration, shape), differentiable in concentration (d log x / da from
/// BinaryOp::gamma_log_draw_grad).
Tensor gamma_draw(random::Key key, const Tensor& concentration, const Shape& shape);
/// random::beta(key, concentration1, concentration0, shape), differentiable in both through its
/// gamma draws X and Y: with x = X / (X + Y), dx/da = x (1 - x) dlogX/da and
/// dx/db = -x (1 - x) dlogY/db.
Tensor beta_draw(random::Key key, const Tensor& concentration1, const Tensor& concentration0, const Shape& shape);
/// random::dirichlet(key, concentration, shape), differentiable in concentration through its gamma
/// draws G_j: with x_i = G_i / sum G, dx_i/dalpha_j = (delta_ij - x_i) x_j dlogG_j/dalpha_j.
Tensor dirichlet_draw(random::Key key, const Tensor& concentration, const Shape& shape);

/// `draw` (whose own gradient, if any, passes through) as a draw that has no gradient with respect
/// to `params`: a backward pass that reaches it while one of them is tracked throws, naming
/// `family` and `why`. `family` and `why` must outlive the tape (string literals).
Tensor without_draw_gradient(const char* family, const char* why, const Tensor& draw,
                             std::initializer_list<Tensor> params);

}  // namespace variate::dist::detail
