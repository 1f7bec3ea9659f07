#pragma once
// One collective per gradient of a sharded log density. Inside Mesh::run the log joint of a
// sharded program is psum(replicated terms / n + this device's sharded terms), and each replicated
// latent value passes through pbroadcast, whose backward rule sums its cotangent over the devices
// (distribute/sharded.hpp): a gradient took one collective forward and one per replicated site
// backward, and each collective waits for every device to be on a core, which on a busy machine
// costs a scheduling delay per collective.
//
// A gradient does not need the summed log density, only every device's terms: while a
// DeferredPsumScope is alive, the log joint returns this device's share unsummed, and replicated
// latent values skip pbroadcast (inference/unconstrained.cpp). The caller then sums the share and
// the gradient of the replicated coordinates over the devices in one psum:
//
//   Tensor value, grad;
//   {
//     const distribute::DeferredPsumScope deferred;
//     std::tie(value, grad) = value_and_gradient_of_the_log_density(x);  // this device's share
//   }
//   std::tie(value, grad) = distribute::psum_value_and_gradient(value, grad, replicated, axis);
//
// The sums are the same numbers added in the same (device) order as without the scope, so the
// results are bitwise the same: a psum's backward rule passes the cotangent on unchanged, and a
// pbroadcast's sums the cotangents its value got on each device, which is what the gradient of the
// replicated coordinates holds before the final psum. Collectives the program calls itself are
// unaffected: their results still enter it through pbroadcast, which sums their cotangents in the
// sweep.
#include <string_view>
#include <utility>

#include "variate/tensor/tensor.hpp"

namespace variate::distribute {

/// While alive on this thread, log joints return this device's unsummed share and replicated
/// latent values skip pbroadcast (see above). Nests.
class DeferredPsumScope {
 public:
  DeferredPsumScope();
  ~DeferredPsumScope();
  DeferredPsumScope(const DeferredPsumScope&) = delete;
  DeferredPsumScope& operator=(const DeferredPsumScope&) = delete;
};

/// Whether a DeferredPsumScope is alive on this thread.
bool psum_deferred();

/// `value` (a scalar, or one per chain: [batch]) and the psum over `axis` of the first
/// `replicated` coordinates of `gradient` ([dimension], or [batch, dimension]) together with
/// `value`, in one collective; the other coordinates (this device's shard) are kept as they are.
/// Every device of the axis calls it.
std::pair<Tensor, Tensor> psum_value_and_gradient(const Tensor& value, const Tensor& gradient, std::int64_t replicated,
                                                  std::string_view axis);

}  // namespace variate::distribute
