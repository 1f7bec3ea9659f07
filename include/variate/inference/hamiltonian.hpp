#pragma once
// The state HMC moves on and the integrator that moves it, for a batch of chains at once. Every
// function takes a mask of active chains: lockstep samplers advance only the chains whose
// trajectories are still growing, while one target call serves the whole batch.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "variate/inference/metric.hpp"
#include "variate/inference/target.hpp"

namespace variate::inference {

/// Positions q, momenta p, log densities and their gradients of `chains` points in R^dimension;
/// chain c's vectors are rows c of the (chains × dimension) arrays.
struct PhasePoints {
  std::int64_t chains = 0, dimension = 0;
  std::vector<double> q, p, grad, log_density;

  PhasePoints() = default;
  PhasePoints(std::int64_t chains, std::int64_t dimension);
  double* q_of(std::int64_t c) { return q.data() + c * dimension; }
  double* p_of(std::int64_t c) { return p.data() + c * dimension; }
  double* grad_of(std::int64_t c) { return grad.data() + c * dimension; }
  const double* q_of(std::int64_t c) const { return q.data() + c * dimension; }
  const double* p_of(std::int64_t c) const { return p.data() + c * dimension; }
  /// Copies chain c of `from` (position, momentum, gradient, log density) into chain c of this.
  void copy_chain(const PhasePoints& from, std::int64_t c);
};

/// A mask over chains: active[c] != 0 means chain c takes part.
using ChainMask = std::vector<char>;

/// Evaluates log density and gradient at the positions of the active chains. A log density the
/// model cannot evaluate there (its arguments' checks throw, as for a zero scale far in a tail)
/// counts as -inf with a zero gradient, as Stan rejects such proposals; `last_error` keeps the
/// message for the initialization error. A batch that throws is retried one chain at a time so a
/// bad chain cannot reject the others. Inside a mesh run an exception ends the run instead: the
/// device that threw has left the log density's collectives, so the devices cannot agree on a
/// rejection.
class Evaluator {
 public:
  explicit Evaluator(const Target& target);
  void evaluate(PhasePoints& z, const ChainMask& active);
  const std::string& last_error() const { return last_error_; }
  std::int64_t calls() const { return calls_; }

 private:
  void evaluate_one(PhasePoints& z, std::int64_t c);
  const Target& target_;
  std::vector<double> q_, lp_, grad_;
  std::string last_error_;
  std::int64_t calls_ = 0;
};

/// H = -log p(q) + ½ pᵀ M⁻¹ p for chain c; NaN counts as +inf (a rejected point).
double hamiltonian(const PhasePoints& z, std::int64_t c, const Metric& metric);

/// One leapfrog step of size step[c] (negative: backward in time) for every active chain.
void leapfrog(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step,
              const ChainMask& active, PhasePoints& z, std::vector<double>& velocity_scratch);

}  // namespace variate::inference
