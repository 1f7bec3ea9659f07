#pragma once
// The transition of ChEES-HMC (chees.hpp): every chain takes the same number of leapfrog steps,
// and the kernel keeps what the trajectory-length adaptation needs from each transition.
#include <cstdint>
#include <span>
#include <vector>

#include "variate/inference/chees.hpp"
#include "variate/inference/kernel.hpp"

namespace variate::inference {

class CheesKernel final : public Kernel {
 public:
  CheesKernel(CheesOptions options, std::int64_t chains, std::int64_t dimension);
  /// The next transitions run for time jitter·trajectory_length, rounded up to whole steps of the
  /// (shared) step size, 1 to max_leapfrog_steps of them.
  void set_trajectory(double trajectory_length, double jitter);
  void transition(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step_size,
                  std::span<const random::Key> keys, const ChainMask& active, PhasePoints& state,
                  std::span<TransitionStats> stats) override;
  /// The ChEES gradient in the trajectory length of the last transition (chees_gradient).
  double last_gradient() const;
  /// The acceptance probabilities of the last transition's proposals.
  std::span<const double> last_accept() const { return accept_; }

 private:
  CheesOptions options_;
  std::int64_t chains_;
  double trajectory_length_ = 0, jitter_ = 1;
  PhasePoints start_, z_;
  std::vector<double> accept_, velocities_, normals_, scratch_;
};

}  // namespace variate::inference
