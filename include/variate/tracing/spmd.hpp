#pragma once
// What the tracers need to know of SPMD execution (layer 6, distribute) to give sharded programs
// their log joint: the mesh axis running on this thread and two collectives. The distribute layer
// sits above this one, so it registers them (dependency inversion); a program that never links the
// Sharded distribution has no sharded sites, and its log joint needs no collectives.
#include <string>
#include <string_view>

#include "variate/tensor/tensor.hpp"

namespace variate::tracing {

class SpmdCollectives {
 public:
  virtual ~SpmdCollectives() = default;
  /// The axis of the mesh running on this thread, or null outside a mesh run.
  virtual const std::string* running_axis() const = 0;
  virtual int axis_size(std::string_view axis) const = 0;
  /// Sum over the axis; the backward pass passes the cotangent through.
  virtual Tensor psum(const Tensor& x, std::string_view axis) const = 0;
  /// Identity; the backward pass sums the cotangents over the axis.
  virtual Tensor pbroadcast(const Tensor& x, std::string_view axis) const = 0;
};

/// Installs the collectives (called once by the distribute layer at static initialization).
void register_spmd_collectives(const SpmdCollectives* collectives);
/// The axis of the mesh running on this thread and the collectives over it, or {null, null} when no
/// mesh runs here or no collectives were registered.
struct SpmdContext {
  const SpmdCollectives* collectives = nullptr;
  const std::string* axis = nullptr;
  explicit operator bool() const { return collectives != nullptr && axis != nullptr; }
};
SpmdContext spmd_context();

}  // namespace variate::tracing
