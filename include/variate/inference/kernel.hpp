#pragma once
// A transition kernel advances a batch of chains by one MCMC transition each. The kernels are
// lockstep: each leapfrog step makes one target call for all active chains, and a chain whose
// trajectory is complete waits, masked, for the others.
#include <cstdint>
#include <memory>
#include <span>

#include "variate/inference/hamiltonian.hpp"
#include "variate/random/key.hpp"

namespace variate::inference {

/// What Stan reports for each draw (its CSV columns lp__ ... energy__).
struct TransitionStats {
  double log_density = 0;  // lp__: log density on the unconstrained space, Jacobian included; unlike
                           // Stan's it keeps the normalizing constants, so it differs by a constant
  double accept_stat = 0;  // mean Metropolis acceptance over the trajectory (NUTS) or of the proposal (HMC)
  double step_size = 0;
  int tree_depth = 0;  // NUTS only
  int n_leapfrog = 0;
  bool divergent = false;  // the energy error exceeded max_energy_error
  double energy = 0;       // the Hamiltonian at the selected point
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  /// One transition of every active chain from `state` (positions, gradients and log densities
  /// valid; momenta are resampled). keys[c] is chain c's key for this transition: all of the
  /// transition's randomness is drawn from it, so a chain's path does not depend on the others.
  virtual void transition(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step_size,
                          std::span<const random::Key> keys, const ChainMask& active, PhasePoints& state,
                          std::span<TransitionStats> stats) = 0;
};

struct NutsOptions {
  int max_tree_depth = 10;
  double max_energy_error = 1000;
};

/// The No-U-Turn sampler as Stan implements it (Hoffman & Gelman 2014; Betancourt, "A Conceptual
/// Introduction to Hamiltonian Monte Carlo", arXiv:1701.02434, appendix A): the trajectory doubles
/// forward or backward; points are drawn multinomially, uniformly within a new subtree and with
/// Betancourt's biased progressive sampling at the top level; the generalized no-U-turn criterion
/// is checked over each merged subtree and across the seams of merged subtrees; a subtree whose
/// energy error exceeds max_energy_error is divergent and ends the trajectory.
std::unique_ptr<Kernel> make_nuts(NutsOptions options, std::int64_t chains, std::int64_t dimension);

struct StaticHmcOptions {
  /// Leapfrog steps per transition; if 0, floor(trajectory_length / step size), at least 1 and at
  /// most 10^6 (Stan's rule).
  int num_steps = 0;
  double trajectory_length = 2 * 3.141592653589793;  // Stan's default int_time, 2π
  /// In [0, 1): each chain's every transition integrates for u times the steps above, u uniform in
  /// (1 - jitter, 1 + jitter) from the chain's own stream (then floor, at least 1). A fixed length
  /// can resonate with a period of the posterior (a Gaussian's half period maps x to -x, and x² to
  /// itself); a jittered one cannot (Neal 2011, section 5.4.2.3). 0: no draw, the fixed length.
  double jitter = 0;
  double max_energy_error = 1000;
};

/// HMC with a fixed number of steps or a fixed trajectory length and a Metropolis correction
/// (Neal, "MCMC using Hamiltonian dynamics", Handbook of MCMC, 2011).
std::unique_ptr<Kernel> make_static_hmc(StaticHmcOptions options, std::int64_t chains, std::int64_t dimension);

}  // namespace variate::inference
