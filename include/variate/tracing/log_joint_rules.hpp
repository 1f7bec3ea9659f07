#pragma once
// How LogJoint sums a program's terms when that is more than adding them up. A layer above this one
// registers its rules (dependency inversion): distribute gives a model split over the devices of a
// mesh the unsharded model's density and gradient (src/distribute/sharded_log_joint.cpp). Without
// registered rules, LogJoint adds the terms up.
#include <memory>

#include "variate/tensor/tensor.hpp"
#include "variate/tracing/tracer.hpp"

namespace variate::tracing {

/// The rules of one LogJoint: they see each site with it and keep the sum of its terms.
class LogJointRules {
 public:
  virtual ~LogJointRules() = default;
  /// Called from LogJoint::process, before anything else there: may replace the value of the site
  /// (then set message.prepared) or reject the site.
  virtual void process(Message& message) = 0;
  /// Called from LogJoint::postprocess before the site's term is taken: may reject the site.
  virtual void postprocess(const Message& message) = 0;
  /// Adds the site's term (its log density summed to the batch dims, scaled, plus its log|det J|).
  virtual void add(const Message& message, const Tensor& term) = 0;
  /// The sum of the terms by these rules; undefined when no term was added and the rules need none.
  virtual Tensor total() const = 0;
};

/// Makes the rules for a new LogJoint on the calling thread.
using LogJointRulesFactory = std::unique_ptr<LogJointRules> (*)();
/// Installs `factory` (once, at static initialization, by the layer that defines the rules).
void register_log_joint_rules(LogJointRulesFactory factory);
/// The registered factory's rules for a new LogJoint, or null when none was registered.
std::unique_ptr<LogJointRules> make_log_joint_rules();

}  // namespace variate::tracing
