#include "variate/inference/predictive.hpp"

#include "variate/autodiff/tape.hpp"
#include "variate/distributions/categorical.hpp"

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

namespace {
// An enumerated site has no value outside a log joint: say so rather than "no random key".
class RefuseEnumerated : public tracing::Tracer {
 public:
  explicit RefuseEnumerated(const char* op) : op_(op) {}
  void process(tracing::Message& m) override {
    VARIATE_CHECK(!m.enumerate || m.value.defined(), op_, "site '", m.name,
                  "' is enumerated (summed out); this is not supported for a model with an enumerated site");
  }

 private:
  const char* op_;
};
}  // namespace

tracing::Values log_likelihood(const tracing::Program& program, const tracing::Values& latent) {
  tracing::Trace trace;
  {
    RefuseEnumerated refuse("log_likelihood");
    tracing::Substitute values(latent);
    tracing::run_program(program);
  }
  tracing::Values out;
  for (const tracing::Site& s : trace.sites()) {
    if (!s.observed) continue;
    try {
      // One term per observation (a GLM's per row), and on a sharded site this device's terms only.
      out.emplace(s.name, autodiff::stop_gradient(s.distribution->pointwise_log_prob(s.value)));
    } catch (const Error& e) {
      tracing::rethrow_naming_site(s.name, e);
    }
  }
  return out;
}

Tensor infer_discrete(const tracing::Program& program, const tracing::Values& latent, random::Key key) {
  tracing::LogJoint log_joint(0, tracing::site_ranks(program));
  {
    tracing::Substitute values(latent);
    tracing::run_program(program);
  }
  const std::vector<std::string> sites = log_joint.enumerated_sites();
  VARIATE_CHECK(!sites.empty(), "infer_discrete",
                "the program has no enumerated site (mark one with tracing::Enumerate)");
  VARIATE_CHECK(sites.size() == 1, "infer_discrete", "the program has ", sites.size(),
                " enumerated sites; drawing them jointly (forward filtering, backward sampling) is not supported, "
                "only one enumerated site");
  // (K, S...) -> (S..., K): one categorical per element of the site.
  const Tensor table = autodiff::stop_gradient(log_joint.enumerated_log_joint());
  std::vector<int> order;
  for (int i = 1; i < table.rank(); ++i) order.push_back(i);
  order.push_back(0);
  const Tensor index = dist::Categorical::from_logits(permute(table, order)).sample(key);
  return take(log_joint.enumerated_values(), index);
}

}  // namespace variate::inference
