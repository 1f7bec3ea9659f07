#pragma once
// ChEES-HMC (Hoffman, Radul & Sountsov, "An Adaptive MCMC Scheme for Setting Trajectory Lengths in
// Hamiltonian Monte Carlo", AISTATS 2021): many vectorized chains share one step size, one metric
// and one jittered trajectory length, so every chain takes the same number of leapfrog steps and
// none idles. Warm-up learns the three from all chains together; sampling then runs plain
// Metropolis-adjusted HMC with them fixed, which leaves the posterior invariant.
#include <cstdint>
#include <span>

#include "variate/inference/adaptation.hpp"
#include "variate/inference/hamiltonian.hpp"

namespace variate::inference {

struct CheesOptions {
  /// Dual averaging drives the harmonic mean of the chains' acceptance probabilities to this (the
  /// paper's 0.651, optimal for HMC in high dimension, Beskos et al. 2013). The harmonic mean is
  /// pulled down by a chain that rejects everything, so a stuck chain shrinks the step size.
  double target_accept = 0.651;
  /// Adam on the log trajectory length (the paper's section 4): learning rate, and the decay of
  /// its average squared gradient (β₂; β₁ = 0, no momentum).
  double learning_rate = 0.025;
  double gradient_decay = 0.95;
  /// The trajectory length warm-up starts from (0: one leapfrog step of the searched step size),
  /// and, in a run without adaptation, the one kept.
  double initial_trajectory_length = 0;
  int max_leapfrog_steps = 1000;
  double max_energy_error = 1000;
};

/// The n-th (n >= 1) element of the base-2 Halton (van der Corput) sequence, in (0, 1): the
/// jitter h of iteration n's trajectory length h·T. Quasi-random, so the jitters cover (0, 1)
/// evenly, and the same for every chain.
double halton_jitter(std::int64_t n);

/// The acceptance-weighted estimate over chains of the ChEES criterion's derivative in the
/// trajectory length T (the paper's equation 6): with Δ_c = ‖q'_c − q̄'‖² − ‖q_c − q̄‖²,
///   Σ_c α_c Δ_c (q'_c − q̄')ᵀ v'_c · h / Σ_c α_c,
/// q the chains' starts, q' their proposals after time h·T, v' = M⁻¹p' the proposals' velocities,
/// α the acceptance probabilities, q̄ the mean of the starts and q̄' the α-weighted mean of the
/// proposals. Chains with α = 0 (or a non-finite proposal) carry no weight; 0 if none has any.
double chees_gradient(const PhasePoints& start, const PhasePoints& proposal, std::span<const double> velocity,
                      std::span<const double> accept, double jitter);

/// CheesAdaptation's state between two iterations, for checkpoints (chain_state.hpp).
struct CheesAdaptationState {
  DualAveragingState dual;
  double step_size = 0, trajectory_length = 0;
  double mean_square = 0, log_length_average = 0;  // Adam's average squared gradient; the average of log T
  std::int64_t count = 0;
};

/// The warm-up of the shared step size and trajectory length. The step size: Stan's dual averaging
/// fed with the harmonic mean of the acceptance probabilities. The trajectory length: Adam ascends
/// the ChEES gradient in log T (capped at max_leapfrog_steps steps), and the warm-up's result is
/// the average of log T with dual averaging's weights, restarted with it.
class CheesAdaptation {
 public:
  CheesAdaptation(CheesOptions options, DualAveragingOptions dual);
  /// Starts over from `step_size`, and from `trajectory_length` unless that is 0 (then keeps the
  /// current one, or one step when there is none).
  void restart(double step_size, double trajectory_length);
  /// One warm-up transition's feedback: acceptance probabilities and the ChEES gradient in T.
  void update(std::span<const double> accept, double gradient);
  double step_size() const { return step_size_; }
  double trajectory_length() const { return trajectory_length_; }
  /// The averaged values kept after warm-up.
  double final_step_size() const { return dual_.final_step_size(); }
  double final_trajectory_length() const;
  CheesAdaptationState state() const;
  void restore(const CheesAdaptationState& s);

 private:
  CheesOptions options_;
  DualAveragingOptions dual_options_;
  DualAveraging dual_;
  double step_size_ = 0, trajectory_length_ = 0;
  double mean_square_ = 0, log_length_average_ = 0;
  std::int64_t count_ = 0;
};

}  // namespace variate::inference
