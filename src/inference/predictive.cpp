#include "variate/inference/predictive.hpp"

#include "variate/autodiff/tape.hpp"

namespace variate::inference {

tracing::Values predictive(const tracing::Program& program, const tracing::Values& latent, random::Key key) {
  tracing::Trace trace;
  {
    tracing::Substitute values(latent);
    tracing::Uncondition unconditioned;
    tracing::Seed seed{key};
    tracing::run_program(program);
  }
  tracing::Values out;
  for (const tracing::Site& s : trace.sites()) out.emplace(s.name, autodiff::stop_gradient(s.value));
  return out;
}

tracing::Values log_likelihood(const tracing::Program& program, const tracing::Values& latent) {
  tracing::Trace trace;
  {
    tracing::Substitute values(latent);
    tracing::run_program(program);
  }
  tracing::Values out;
  for (const tracing::Site& s : trace.sites()) {
    if (!s.observed) continue;
    try {
      out.emplace(s.name, autodiff::stop_gradient(s.distribution->log_prob(s.value)));
    } catch (const Error& e) {
      tracing::rethrow_naming_site(s.name, e);
    }
  }
  return out;
}

}  // namespace variate::inference
