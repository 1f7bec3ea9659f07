#pragma once
// Collectives over a mesh axis, each a differentiable op (layer 6, DESIGN.md "distribute").
// Call them inside Mesh::run; every device of the axis must call the same collectives in the same
// order (and, for pbroadcast, reach the same nodes in its backward sweep), as in any SPMD program.
//
// Gradient semantics (TFP experimental.distribute, DESIGN.md: "a replicated term is counted once"):
// a collective's result is *replicated*: it has the same value on every device and stands for one
// quantity of the unsharded model, so each device's cotangent of it is that one quantity's
// cotangent, not a share of a sum over devices. Hence
//   - psum's backward passes the cotangent through unsummed: loss = psum(local_loss) gives each
//     device d loss / d local = d local_loss / d local, the unsharded gradient of its shard;
//   - pbroadcast (identity forward) marks a replicated value used in device-local terms; its
//     backward is the psum of the per-device cotangents, so every device gets the whole unsharded
//     gradient of the replicated value.
// JAX's pmap instead treats the per-device losses as separate terms summed together, which makes
// psum's transpose a psum; with replicated losses that would count each term once per device.
//
// Inside a program whose log joint is summed over the mesh (a LogJoint traced in Mesh::run,
// docs/sharding.md), every cotangent before the log joint's own psum is a device's share, so the
// results of psum, pmean, pmax and all_gather of tracked values come out through pbroadcast, ready
// for any term, and an explicit pbroadcast there is an error (it would sum the shares twice).
//
// Determinism: each device reduces the contributions itself, in device order 0, 1, 2, ..., with
// the same kernels, so results are bitwise identical on every device and across runs, whatever the
// thread timing. Devices whose inputs differ in shape or dtype all throw variate::Error naming the
// op, the devices and the shapes.
#include <cstdint>
#include <span>
#include <string_view>

#include "variate/tensor/tensor.hpp"

namespace variate::distribute {

/// Element-wise sum over the devices of `axis`, identical on every device.
/// Backward: the cotangent passes through unsummed (see above).
Tensor psum(const Tensor& x, std::string_view axis);

/// psum(x) / axis_size, in the floating type of x. Backward: cotangent / axis_size.
Tensor pmean(const Tensor& x, std::string_view axis);

/// Element-wise maximum over the devices of `axis`, identical on every device. Backward: each
/// element's cotangent goes to the devices holding the maximum, shared equally among ties (as the
/// local max does), so the cotangents summed over devices equal the unsharded max's gradient.
Tensor pmax(const Tensor& x, std::string_view axis);

/// Identity forward, for a replicated value (the same on every device) used in device-local terms.
/// Backward: the psum of the cotangents, so each device gets the whole gradient.
/// An error inside a sharded program (see above).
Tensor pbroadcast(const Tensor& x, std::string_view axis);

/// The devices' tensors concatenated along `dim` in device order, identical on every device. The
/// tensors must agree in dtype and in every dimension but `dim` (shards may be ragged). The result
/// is replicated, so backward gives each device its own slice of the cotangent (the unsharded
/// gradient of its shard); outside a sharded program, wrap the result in pbroadcast if it feeds
/// device-local terms.
Tensor all_gather(const Tensor& x, std::string_view axis, int dim = 0);

/// One transfer of a ppermute: the tensor of device `source` goes to device `destination`.
struct Transfer {
  int source;
  int destination;
};

/// Point-to-point transfers between the devices of `axis` (JAX's ppermute): on each destination,
/// the result is its source's x (that tensor's shape and dtype); on a device no transfer goes to,
/// zeros shaped like its own x. A device is the source of at most one transfer and the destination
/// of at most one; every device calls ppermute with the same transfers. The result is not
/// replicated: each device's result stands for its own quantity.
/// Backward: the transpose, a ppermute of the cotangents with every transfer reversed: a source gets
/// the cotangent of its destination's result; a device that sends nothing gets zeros. The op is on
/// every device's tape whenever a gradient is taken, x tracked or not (a device that only receives
/// must still send the cotangent back), and every device must reach it in its backward sweep.
/// Built on the exchange of the other collectives, so each device sees every device's tensor;
/// meant for activations of moderate size (a pipeline of flow layers, distribute/pipelined_flow.hpp).
Tensor ppermute(const Tensor& x, std::string_view axis, std::span<const Transfer> transfers);

/// psum for plain numbers, in place: each entry becomes its sum over the devices of `axis` (the
/// samplers' energies, dot products and flags). Not differentiable. `what` (a string literal)
/// names the sum, so that devices reaching different sums get an error naming both instead of
/// adding unrelated numbers.
void psum_in_place(std::span<double> values, std::string_view axis, const char* what);

/// Checks that every device of `axis` passes the same `value` (a fingerprint of what must be
/// replicated, such as the data each MPI rank read): otherwise throws variate::Error, the same on
/// every device, starting with `what` (a string literal) and naming the first device that differs
/// from device 0 and both values. Not differentiable.
void check_replicated(std::uint64_t value, std::string_view axis, const char* what);

}  // namespace variate::distribute
