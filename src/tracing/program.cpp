#include "variate/tracing/program.hpp"

#include <algorithm>
#include <set>

#include "variate/distributions/default_bijector.hpp"
#include "variate/distributions/improper_uniform.hpp"
#include "variate/distributions/reparameterized.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/random/samplers.hpp"

namespace variate::tracing {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

// Substitute that insists: a site reaching it without a value is an error.
class StrictSubstitute : public Tracer {
 public:
  explicit StrictSubstitute(const Values& values) : values_(values) {}
  void process(Message& m) override {
    seen_.push_back(m.name);
    if (m.value.defined() || m.enumerate) return;
    auto it = values_.find(m.name);
    if (it == values_.end()) {
      std::vector<std::string> given;
      for (const auto& [name, v] : values_) given.push_back(name);
      detail::fail("make_log_joint", ": no value for site '", m.name, "'; values were given for: ", join(given));
    }
    m.value = it->second;
  }
  const std::vector<std::string>& seen() const { return seen_; }

 private:
  const Values& values_;
  std::vector<std::string> seen_;
};

}  // namespace

std::function<Tensor(const Values&)> make_log_joint(Program program, int batch_ndims) {
  VARIATE_CHECK(batch_ndims >= 0, "make_log_joint", "batch_ndims must be >= 0, got ", batch_ndims);
  // Which dims of a site's log density belong to the batch of states (or to an enumerated site's
  // values) is read off one unbatched run.
  SiteRanks unbatched = site_ranks(program);
  return [program = std::move(program), batch_ndims, unbatched = std::move(unbatched)](const Values& values) {
    LogJoint log_joint(batch_ndims, unbatched);
    std::vector<std::string> seen;
    {
      StrictSubstitute substitute(values);
      run_program(program);
      seen = substitute.seen();
    }
    const std::set<std::string, std::less<>> sites(seen.begin(), seen.end());
    for (const auto& [name, v] : values)
      VARIATE_CHECK(sites.count(name) > 0, "make_log_joint", "'", name,
                    "' is not a site of the program; its sites are: ", join(seen));
    return log_joint.value();
  };
}

SiteRanks site_ranks(const Program& program) {
  Trace trace;
  {
    StartImproperSites start;
    Seed seed(random::Key(0));
    run_program(program);
  }
  SiteRanks ranks;
  for (const Site& s : trace.sites())
    if (!s.deterministic) ranks[s.name] = s.distribution->local_log_prob(s.value).rank();
  return ranks;
}

namespace {
// Whether a distribution refuses draws: an improper prior, or a restriction without an exact
// sampler (seen through the wrappers that keep the base's draws).
bool has_no_draws(const Distribution& d) {
  if (dynamic_cast<const dist::ImproperUniform*>(&d) != nullptr) return true;
  if (const auto* r = dynamic_cast<const dist::Restricted*>(&d)) return !r->has_sampler();
  if (const auto* r = dynamic_cast<const dist::Reparameterized*>(&d)) return has_no_draws(*r->distribution());
  return false;
}
}  // namespace

void StartImproperSites::process(Message& m) {
  if (m.value.defined() || !has_no_draws(*m.distribution)) return;
  VARIATE_CHECK(m.key.has_value(), "StartImproperSites", "site '", m.name, "' has no random key: put a Seed inside");
  const BijectorPtr bijector = dist::unconstraining_bijector(*m.distribution);
  const Shape shape = bijector->inverse_shape(m.distribution->sample_full_shape(m.sample_shape));
  const Tensor u = random::uniform(*m.key, shape, m.distribution->dtype());
  m.value = bijector->forward(prim::binary(BinaryOp::sub, prim::binary(BinaryOp::mul, u, 4.0), 2.0));
}

void run_program(const Program& program) {
  ProgramRun run;
  program();
  run.check_names_matched();
}

Values ProgramJoint::sample(random::Key key) const {
  Trace trace;
  {
    Seed seed(key);
    run_program(program_);
  }
  Values out;
  for (const Site& s : trace.sites()) out.emplace(s.name, s.value);
  return out;
}

Tensor ProgramJoint::log_prob(const Values& values) const { return make_log_joint(program_)(values); }

std::vector<SiteInfo> ProgramJoint::sites(random::Key key) const {
  Trace trace;
  {
    Seed seed(key);
    run_program(program_);
  }
  std::vector<SiteInfo> out;
  for (const Site& s : trace.sites())
    out.push_back({s.name, s.distribution->name(), s.value.shape(), s.distribution->event_shape(),
                   s.distribution->support(), s.observed, s.value.dtype()});
  return out;
}

}  // namespace variate::tracing
