#include "variate/inference/vi_advi.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/nn/module.hpp"
#include "variate/nn/optim.hpp"
#include "variate/nn/schedule.hpp"
#include "variate/random/samplers.hpp"

namespace variate::inference {

namespace {

// 1 on the diagonal (or strictly below it), 0 elsewhere: constants that assemble the full-rank L
// from free parameters.
Tensor triangle_mask(std::int64_t d, bool strictly_lower) {
  std::vector<double> mask(std::size_t(d * d), 0.0);
  for (std::int64_t i = 0; i < d; ++i)
    for (std::int64_t j = 0; j <= i; ++j)
      if (strictly_lower ? j < i : j == i) mask[std::size_t(i * d + j)] = 1.0;
  return Tensor::from(mask, Shape{d, d});
}

// q = N(loc, L L^T): loc and the free parameters of L (log of the diagonal; for full rank, the
// entries below it too).
class GaussianApproximation : public nn::Module {
 public:
  GaussianApproximation(std::int64_t d, AdviFamily family)
      : family_(family),
        loc_(Tensor::zeros(Shape{d})),
        raw_scale_(family == AdviFamily::full_rank ? Tensor::zeros(Shape{d, d}) : Tensor::zeros(Shape{d})),
        eye_(family == AdviFamily::full_rank ? triangle_mask(d, false) : Tensor()),
        strictly_lower_(family == AdviFamily::full_rank ? triangle_mask(d, true) : Tensor()) {}

  void visit_parameters(const nn::ParameterVisitor& visit) override {
    visit("loc", loc_);
    visit("scale", raw_scale_);
  }
  std::string describe() const override {
    return std::string("GaussianApproximation(") + (family_ == AdviFamily::full_rank ? "full_rank" : "mean_field") +
           ", dimension=" + std::to_string(loc_.numel()) + ")";
  }

  const Tensor& loc() const { return loc_; }
  Tensor log_diagonal() const { return family_ == AdviFamily::full_rank ? diagonal(raw_scale_) : raw_scale_; }
  /// Full rank: L, (d, d). Mean field: L's diagonal, (d), so that no d x d matrix is ever made.
  Tensor scale() const {
    // eye * exp(v) broadcasts v along rows: entry (j, j) is exp(v_j).
    if (family_ == AdviFamily::full_rank) return raw_scale_ * strictly_lower_ + eye_ * exp(log_diagonal());
    return exp(raw_scale_);
  }
  /// loc + L eps for eps of shape (n, d).
  Tensor draw(const Tensor& eps) const {
    return family_ == AdviFamily::full_rank ? loc_ + matmul(eps, scale(), false, true) : loc_ + eps * scale();
  }
  Tensor entropy() const {
    const double d = double(loc_.numel());
    return 0.5 * d * (1.0 + std::log(2.0 * std::numbers::pi)) + sum(log_diagonal());
  }

 private:
  AdviFamily family_;
  Tensor loc_, raw_scale_;
  Tensor eye_, strictly_lower_;  // full rank only
};

}  // namespace

AdviResult fit_advi(const tracing::Program& model, const AdviOptions& options) {
  VARIATE_CHECK(options.steps >= 1 && options.particles >= 1 && options.draws >= 1, "fit_advi",
                "steps, particles and draws must be >= 1, got ", options.steps, ", ", options.particles, ", ",
                options.draws);
  const Unconstrained space(model, random::fold_in(options.key, "trace"));
  const std::int64_t d = space.dimension();
  VARIATE_CHECK(d > 0, "fit_advi", "the model has no latent site");
  GaussianApproximation q(d, options.family);
  nn::Parameters params(q);
  nn::Adam adam(params, nn::cosine_decay(options.learning_rate, options.steps));
  std::vector<Tensor> grads(params.size());

  AdviResult out;
  out.elbo_trace.reserve(std::size_t(options.steps));
  const random::Key step_keys = random::fold_in(options.key, "steps");
  for (int t = 0; t < options.steps; ++t) {
    const random::Key key = random::fold_in(step_keys, std::uint64_t(t));
    const Tensor loss = nn::value_and_grad(
        params,
        [&] {
          // One particle at a time: log_density of a single point works for every model, a batch
          // only for those that broadcast a leading dim.
          Tensor log_p = 0.0;
          for (int i = 0; i < options.particles; ++i) {
            const Tensor eps = random::normal(random::fold_in(key, std::uint64_t(i)), Shape{1, d});
            log_p = log_p + space.log_density(reshape(q.draw(eps), {d}));
          }
          return -(log_p / double(options.particles) + q.entropy());
        },
        grads);
    out.elbo_trace.push_back(-loss.item());
    adam.step(grads);
    if (options.on_step) options.on_step(t, out.elbo_trace.back());
  }

  out.sites = space.sites();
  out.loc = q.loc();
  out.scale = q.scale();
  const Tensor eps = random::normal(random::fold_in(options.key, "draws"), Shape{options.draws, d});
  out.unconstrained_draws = q.draw(eps);
  out.draws = space.constrain(out.unconstrained_draws);
  const int event[] = {1};
  out.log_g = -0.5 * sum(square(eps), event);
  return out;
}

}  // namespace variate::inference
