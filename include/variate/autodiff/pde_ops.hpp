#pragma once
// A differentiable PDE solve whose tape node saves the trajectory, or under RAD (autodiff/rad.hpp) a
// sketch of it: the reaction-diffusion control problem of Oktay et al., "Randomized Automatic
// Differentiation" (ICLR 2021, section 6.3).
//
//   dphi/dt = D lap(phi) + C(x, t; theta) phi  on the unit square, phi = 0 on the boundary,
//   phi(0) = sin(pi x) sin(pi y),
//   C = th0 + th1 s + th2 c + (th3 s + th4 c) sin(2 pi x) + (th5 s + th6 c) cos(2 pi x),
//   s = sin(pi t), c = cos(pi t),
//   loss = int_0^T mean over the grid of (phi - phi_target)^2 dt (trapezoid rule),
//   phi_target = phi(0) + 1/4 sin(2 pi x) sin(pi y) sin(pi t),
//
// stepped by explicit FTCS with the 5-point Laplacian. The step is linear in phi, so its Jacobian
// needs no stored state and C is recomputed from theta: the one thing the backward pass needs of
// the forward is each state phi_m, for C's gradient (dt phi_m) and for the loss's (phi_m - target).
// The node saves each state's residual phi_m - target_m (the target is recomputed): exactly, all
// n^2 values of the steps + 1 states; under a RadScope (sampling modes, per example) k =
// ceil(f (n-2)^2) values of each state's interior (the residual is exactly 0 on the boundary), each
// state (a "row") its own choice regenerated from the key in the backward pass, expanded by
// (n-2)^2 / k. Each state's sketch is independent of the later ones that make up the
// adjoint it multiplies, so the gradient stays unbiased.
#include <cstdint>

#include "variate/tensor/tensor.hpp"

namespace variate {

/// The reaction-diffusion control problem of the RAD paper: grid, diffusion, time step and horizon.
struct ReactionDiffusionProblem {
  std::int64_t grid = 33;  // points per side, the boundary included
  double diffusion = 0.25;
  double dt = 1.0 / 4096.0;
  std::int64_t steps = 40960;  // the horizon is steps * dt
};

/// The loss above for theta (7,) f64, as one tape node.
Tensor reaction_diffusion_loss(const Tensor& theta, const ReactionDiffusionProblem& problem);

}  // namespace variate
