#include "variate/inference/vi_elbo.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "variate/autodiff/tape.hpp"
#include "variate/distributions/kl_divergence.hpp"
#include "variate/tracing/random_variable.hpp"

namespace variate::inference {

namespace {

// One particle: the guide's draw z ~ q and the model at z.
struct Particle {
  Tensor log_weight;          // log p(x, z) - log q(z), differentiable
  Tensor discrete_log_q;      // the part of log q(z) from discrete sites (their score-function term)
  std::string discrete_site;  // the first discrete guide site, "" if none
};

// Draws a discrete guide site (as the default draw would, from the key Seed gave it) as a constant:
// a discrete draw has no derivative, and its gradient comes from the score-function term instead.
// Declared outside Seed: tracers process innermost first, so Seed has given the site its key.
class DrawDiscreteAsConstant : public tracing::Tracer {
 public:
  void process(tracing::Message& m) override {
    if (m.value.defined() || !m.key || !m.distribution->support().is_discrete()) return;
    m.value = autodiff::stop_gradient(m.distribution->sample(*m.key, m.sample_shape));
  }
};

// log p(z) - log q(z) of one latent site replaced by -KL(q || p) where the pair has a closed form and
// the shapes agree (no sample shape, the KL's shape that of the guide's log density); the
// correction to add to the log weight, or nothing.
std::optional<Tensor> analytic_kl_correction(const tracing::Site& guide_site, const Tensor& log_q_term,
                                             const tracing::Site& model_site, const Tensor& log_p_term,
                                             int batch_ndims) {
  if (guide_site.sample_shape.rank() != 0 || model_site.sample_shape.rank() != 0) return std::nullopt;
  std::optional<Tensor> kl = dist::try_kl_divergence(*guide_site.distribution, *model_site.distribution);
  if (!kl || kl->shape() != guide_site.distribution->log_prob(guide_site.value).shape()) return std::nullopt;
  return log_q_term - log_p_term - tracing::sum_site_terms(*kl, batch_ndims) * model_site.scale;
}

Particle run_particle(const tracing::Program& model, const tracing::Program& guide, random::Key key,
                      const ElboOptions& options, const char* op) {
  tracing::Trace guide_trace;
  {
    DrawDiscreteAsConstant discrete;
    tracing::Seed seed{key};
    tracing::run_program(guide);
  }
  Particle out;
  Tensor log_q = 0.0;
  out.discrete_log_q = 0.0;
  tracing::Values latent;
  std::map<std::string, Tensor, std::less<>> log_q_terms;
  for (const tracing::Site& s : guide_trace.sites()) {
    if (s.deterministic) continue;
    VARIATE_CHECK(!s.observed && !s.intervened, op, "guide site '", s.name,
                  "' is observed or intervened; a guide draws each of its sites");
    const Tensor lp = s.distribution->log_prob(s.value);
    VARIATE_CHECK(lp.rank() >= options.batch_ndims, op, "the log density of guide site '", s.name, "' has shape ",
                  lp.shape(), "; with batch_ndims = ", options.batch_ndims, " every site needs that many leading dims");
    const Tensor term = tracing::sum_site_terms(lp, options.batch_ndims) * s.scale;
    log_q = log_q + term;
    log_q_terms.emplace(s.name, term);
    if (s.distribution->support().is_discrete()) {
      out.discrete_log_q = out.discrete_log_q + term;
      if (out.discrete_site.empty()) out.discrete_site = s.name;
    }
    latent.emplace(s.name, s.value);
  }

  tracing::Trace model_trace;
  tracing::LogJoint log_p(tracing::LogJoint::LeadingDims{options.batch_ndims}, /*keep_terms=*/options.analytic_kl);
  {
    tracing::Substitute values(latent);
    // A latent site the guide lacks is drawn rather than failing for want of a key, so that the
    // check below can name it.
    tracing::Seed seed{random::fold_in(key, "model")};
    tracing::run_program(model);
  }
  for (const tracing::Site& s : model_trace.sites()) {
    VARIATE_CHECK(s.observed || s.intervened || s.deterministic || latent.contains(s.name), op, "latent site '", s.name,
                  "' of the model has no site of that name in the guide");
  }
  out.log_weight = log_p.value() - log_q;
  if (options.analytic_kl) {
    std::map<std::string, Tensor, std::less<>> log_p_terms;
    for (const tracing::LogJoint::Term& t : log_p.terms()) log_p_terms.emplace(t.name, t.value);
    for (const tracing::Site& s : model_trace.sites()) {
      if (!latent.contains(s.name) || !log_p_terms.contains(s.name)) continue;
      const std::optional<Tensor> correction = analytic_kl_correction(guide_trace.site(s.name), log_q_terms.at(s.name),
                                                                      s, log_p_terms.at(s.name), options.batch_ndims);
      if (correction) out.log_weight = out.log_weight + *correction;
    }
  }
  return out;
}

std::vector<Particle> run_particles(const tracing::Program& model, const tracing::Program& guide, random::Key key,
                                    const ElboOptions& options, const char* op) {
  VARIATE_CHECK(options.particles >= 1, op, "particles must be >= 1, got ", options.particles);
  VARIATE_CHECK(options.batch_ndims >= 0, op, "batch_ndims must be >= 0, got ", options.batch_ndims);
  std::vector<Particle> particles;
  particles.reserve(std::size_t(options.particles));
  for (int i = 0; i < options.particles; ++i)
    particles.push_back(run_particle(model, guide, random::fold_in(key, std::uint64_t(i)), options, op));
  return particles;
}

std::vector<double> weight_values(const std::vector<Particle>& particles) {
  std::vector<double> w;
  w.reserve(particles.size());
  for (const Particle& p : particles) w.push_back(sum(p.log_weight).item());
  return w;
}

// The particles' log weights without gradient: (N), or (N, batch...) with batch dims.
Tensor stacked_weights(const std::vector<Particle>& particles) {
  std::vector<Tensor> weights;
  weights.reserve(particles.size());
  for (const Particle& p : particles) weights.push_back(autodiff::stop_gradient(p.log_weight));
  return stack(weights, 0);
}

}  // namespace

ElboEstimate elbo(const tracing::Program& model, const tracing::Program& guide, random::Key key,
                  const ElboOptions& options) {
  const std::vector<Particle> particles = run_particles(model, guide, key, options, "elbo");
  const std::vector<double> w = weight_values(particles);
  const double n = double(w.size());
  double total = 0.0;
  for (double x : w) total += x;
  const double mean = total / n;
  double squares = 0.0;
  for (double x : w) squares += (x - mean) * (x - mean);

  ElboEstimate out;
  out.value = mean;
  out.standard_error = w.size() > 1 ? std::sqrt(squares / (n - 1.0) / n) : 0.0;
  if (options.batch_ndims > 0) {
    out.log_weights = stacked_weights(particles);
    out.pointwise = variate::mean(out.log_weights, std::vector<int>{0});
  } else {
    out.log_weights = Tensor::from(w);
  }
  Tensor surrogate = 0.0;
  for (std::size_t i = 0; i < particles.size(); ++i) {
    Tensor term = sum(particles[i].log_weight);
    if (!particles[i].discrete_site.empty()) {
      // Leave-one-out baseline: independent of particle i's draw, so the score term stays unbiased.
      const double baseline = w.size() > 1 ? (total - w[i]) / (n - 1.0) : 0.0;
      const Tensor& score = particles[i].discrete_log_q;
      // Zero in value, log q's gradient times the centred weight in gradient.
      term = term + sum(score - autodiff::stop_gradient(score)) * (w[i] - baseline);
    }
    surrogate = surrogate + term;
  }
  out.surrogate = surrogate / n;
  return out;
}

ElboEstimate iwae_bound(const tracing::Program& model, const tracing::Program& guide, random::Key key,
                        const ElboOptions& options) {
  VARIATE_CHECK(!options.analytic_kl, "iwae_bound",
                "analytic_kl applies to the ELBO only (the bound's log weights are per particle)");
  const std::vector<Particle> particles = run_particles(model, guide, key, options, "iwae_bound");
  std::vector<Tensor> weights;
  for (const Particle& p : particles) {
    VARIATE_CHECK(p.discrete_site.empty(), "iwae_bound", "guide site '", p.discrete_site,
                  "' is discrete; the importance-weighted bound needs a reparameterizable guide");
    weights.push_back(p.log_weight);
  }
  // Per data point with batch dims (the particles' dim is the first).
  const Tensor bound = logsumexp(stack(weights, 0), std::vector<int>{0}) - std::log(double(weights.size()));
  ElboEstimate out;
  out.surrogate = sum(bound);
  out.value = out.surrogate.item();
  if (options.batch_ndims > 0) {
    out.log_weights = stacked_weights(particles);
    out.pointwise = autodiff::stop_gradient(bound);
  } else {
    out.log_weights = Tensor::from(weight_values(particles));
  }
  return out;
}

}  // namespace variate::inference
