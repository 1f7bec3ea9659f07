#pragma once
// Program transformations: a model is any callable that creates random variables.
//
//   auto model = [&] {
//     auto p = variate::Beta(1.0, 1.0, "p");
//     variate::Bernoulli(p, "x", {50});
//   };
//   auto log_joint = tracing::make_log_joint(model);
//   Tensor lp = log_joint({{"p", 0.3}, {"x", data}});      // Edward2's make_log_joint_fn
//
//   tracing::ProgramJoint joint(model);
//   auto draws = joint.sample(random::Key(0));             // every site, by name
#include <functional>
#include <vector>

#include "variate/tracing/handlers.hpp"

namespace variate::tracing {

using Program = std::function<void()>;

/// Runs `program` once as a program run of its own (ProgramRun) and checks that every name given to
/// Substitute, Condition or Intervene met a site; the way every transformation runs a program.
void run_program(const Program& program);

/// The rank of each site's log density in one run of `program` under Seed (key 0), as LogJoint
/// needs them to tell batch dims (and an enumerated site's values) from a site's own dims.
SiteRanks site_ranks(const Program& program);

/// Gives each site without draws (an improper prior, a restriction with no exact sampler) a value, uniform in
/// (-2, 2) on the unconstrained space as Stan initializes, so that the program can be traced to learn
/// its sites. Goes outside the Seed that gives the keys.
class StartImproperSites : public Tracer {
 public:
  void process(Message& m) override;
};

/// f(values by name) -> log joint density of the program with every site set to its value. A site
/// without a value (and not conditioned inside the program) is an error naming it and the values
/// given; a value for a name that is no site is an error listing the sites. With batch_ndims > 0
/// the values carry that many leading batch dims (chains) and so does the result.
std::function<Tensor(const Values&)> make_log_joint(Program program, int batch_ndims = 0);

/// What tracing the program once tells about a site.
struct SiteInfo {
  std::string name;
  std::string family;  // the distribution's name
  Shape shape;         // of the value
  Shape event_shape;
  Constraint support;
  bool observed;  // conditioned inside the program
  DType dtype;
};

/// The joint distribution of all sites of a program.
class ProgramJoint {
 public:
  explicit ProgramJoint(Program program) : program_(std::move(program)) {}
  /// A draw of every site, run under Seed(key).
  Values sample(random::Key key) const;
  /// The log joint density at `values` (see make_log_joint).
  Tensor log_prob(const Values& values) const;
  /// The sites in creation order, from one run under Seed(key).
  std::vector<SiteInfo> sites(random::Key key = random::Key(0)) const;

 private:
  Program program_;
};

}  // namespace variate::tracing
