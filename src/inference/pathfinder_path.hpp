#pragma once
// One path of Pathfinder (Zhang et al. 2022, Algorithm 1): the L-BFGS trajectory, an ELBO
// estimate for the approximation at each iterate, and draws of the best one.
#include <optional>
#include <vector>

#include "pathfinder_approximation.hpp"
#include "variate/inference/pathfinder.hpp"

namespace variate::inference::detail {

struct PathDraws {
  PathfinderPath path;
  std::vector<double> draws;                        // (options.draws_per_path, d) row-major, unconstrained
  std::vector<double> log_p, log_q;                 // per draw; log p is -inf where the model gives no density
  std::optional<PathfinderGaussian> approximation;  // the chosen one, which drew them
};

/// Runs one path on `space` from a start drawn from `key`. A log p that throws at a point L-BFGS
/// tries ends the path there (PathfinderPath::message says so). Throws naming what failed when no
/// finite start is found, or when no iterate has an approximation with a finite ELBO (L-BFGS made
/// no step, say).
PathDraws run_pathfinder_path(const Unconstrained& space, const PathfinderOptions& options, random::Key key);

}  // namespace variate::inference::detail
