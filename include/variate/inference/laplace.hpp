#pragma once
// The Laplace approximation N(mode, H⁻¹) of a posterior (H: the negative Hessian of the log density
// on the unconstrained space at its mode, from forward differences of the gradient), and sampling in
// the coordinates it whitens: q = mode + A z with A Aᵀ = H⁻¹, so that the sampler moves on z, where
// the posterior is close to N(0, I) when the approximation is good.
//
// This is a dense preconditioner for posteriors whose correlations no diagonal or low-rank metric
// captures (softmax regression: every feature's weights are free to shift together across the
// classes, and correlated features' weights trade off). A dense metric of the same matrix would cost
// three O(d²) products per chain per leapfrog step (the velocity, the kinetic energy and the
// no-U-turn criterion's momentum); here one triangular product maps a whole batch of chains to the
// model's space and another maps their gradients back. The same idea as NeuTra (Hoffman et al.
// 2019, "NeuTra-lizing bad geometry in Hamiltonian Monte Carlo using neural transport") with an
// affine map, and the approximation Stan's `laplace` method draws from.
//
//   LaplaceApproximation laplace = LaplaceApproximation::at(target, mode);
//   Target whitened = laplace.whiten(target);   // sample this, then
//   laplace.to_position(z, batch, q);           // map its draws back
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "variate/inference/optimize.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/target.hpp"
#include "variate/tracing/program.hpp"

namespace variate::inference {

struct LaplaceOptions {
  /// Forward-difference step on each unconstrained coordinate, relative to its size where that is
  /// above 1.
  double step = 1e-6;
  /// Gradients evaluated per target call while differencing.
  std::int64_t batch = 16;
};

class LaplaceApproximation {
 public:
  struct Factor;  // its storage (laplace.cpp)

  /// Differences `target`'s gradient around `mode` (dimension + 1 gradients) and factors the negative
  /// Hessian. Throws variate::Error when a gradient there is not finite or the negative Hessian is not
  /// positive definite (the mode is not a strict maximum, or the density is not locally Gaussian).
  static LaplaceApproximation at(const Target& target, std::span<const double> mode,
                                 const LaplaceOptions& options = {});

  std::int64_t dimension() const;
  /// The most memory `at` holds for a target of `dimension` coordinates: the f64 Hessian, factored
  /// in place, and the two f32 packings of R⁻¹ (about 12 dimension² bytes; the packings, 4 dimension²,
  /// stay for the sampling).
  static double peak_bytes(std::int64_t dimension);
  /// Gradients the differencing used.
  std::int64_t gradients() const;
  /// The approximation's marginal variances: the diagonal of H⁻¹.
  std::vector<double> variances() const;
  /// q = mode + A z for a batch of (batch × dimension) whitened points, row-major.
  void to_position(std::span<const double> z, std::int64_t batch, std::span<double> q) const;
  /// The target on z: log p(mode + A z) (the map's Jacobian is constant) and gradient Aᵀ ∇log p.
  /// Unsharded targets only. The result shares this approximation.
  Target whiten(Target target) const;

 private:
  /// g ← Aᵀ g for a batch of gradients (batch × dimension), through `scratch` of the same size.
  void to_whitened_gradient(std::span<double> gradient, std::int64_t batch, std::span<double> scratch) const;
  std::shared_ptr<const Factor> factor_;
};

/// What a sampler starts from: the mode (L-BFGS with the Jacobian, from `key`), the approximation
/// there (of `program`'s density in f64: the program's data must be f64) and `chains` whitened
/// starts drawn from N(0, I) with `key`, (chains × dimension) row-major.
struct LaplaceStart {
  OptimizeResult mode;
  LaplaceApproximation approximation;
  std::vector<double> starts;
  /// L-BFGS's evaluations and the Hessian's gradients.
  std::int64_t gradients() const { return mode.evaluations + approximation.gradients(); }
  /// Moves the starts into `sampler` and starts its metric at the unit one: the whitened
  /// coordinates' own scale. (Fisher adaptation would otherwise start from the gradient at each
  /// start, whose components near the mode are near zero: on MNIST that made variances of up to
  /// 1e4 and a first step size of 0.002, where 0.1-0.2 suits.)
  void place_chains(SamplerOptions& sampler);
};
LaplaceStart laplace_start(const tracing::Program& program, int chains, random::Key key);

/// Maps a whitened run's draws back to the model's unconstrained space as they are delivered, one
/// buffer per chain (threaded chains deliver concurrently, each its own chain).
class LaplaceDraws {
 public:
  LaplaceDraws(const LaplaceApproximation& laplace, int chains);
  /// `whitened` with its position mapped back (valid until the chain's next draw).
  Draw to_model(const Draw& whitened);
  /// Every chain's kept draws in `result`, in place.
  void to_model(SampleResult& result) const;

 private:
  const LaplaceApproximation& laplace_;
  std::vector<std::vector<double>> positions_;
};

}  // namespace variate::inference
