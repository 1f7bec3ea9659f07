#pragma once
// Collectives inside a sharded program (DESIGN.md layer 6, docs/sharding.md). While a LogJoint sums
// a program split over the devices of a mesh (sharded_log_joint.cpp), each device's cotangent of a
// replicated value is that device's share of the value's gradient: the log joint takes each
// replicated term as term / n on every device, and a device's sharded terms reach a replicated value
// on that device only. The whole gradient is the sum of the shares, which pbroadcast's backward
// takes where a replicated value enters the program:
//   - a latent site's value enters through broadcast_entering_value (the log joint's rules and
//     inference::Unconstrained call it);
//   - while a ShardedProgramScope is alive, the results of psum, pmean, pmax and all_gather of
//     tracked values come out through pbroadcast, so a program may use them in any term;
//   - an explicit pbroadcast would sum the shares a second time, so it is an error there.
// The log joint's own total is summed by psum_of_terms, whose cotangent (that of the total itself)
// passes to every device's terms unchanged.
#include <string_view>

#include "variate/tensor/tensor.hpp"

namespace variate::distribute::detail {

/// While alive on this thread, collective results enter the traced program as replicated values
/// (see above). Nests. Made by a LogJoint's rules inside a mesh run.
class ShardedProgramScope {
 public:
  ShardedProgramScope();
  ~ShardedProgramScope();
  ShardedProgramScope(const ShardedProgramScope&) = delete;
  ShardedProgramScope& operator=(const ShardedProgramScope&) = delete;
};

/// pbroadcast, also inside a ShardedProgramScope: for the value of a replicated site.
Tensor broadcast_entering_value(const Tensor& x, std::string_view axis);

/// psum whose backward passes the cotangent through, also inside a ShardedProgramScope: for the
/// log joint's total.
Tensor psum_of_terms(const Tensor& x, std::string_view axis);

}  // namespace variate::distribute::detail
