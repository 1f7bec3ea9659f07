#pragma once
// Programs that are each device's own model. Inside a mesh run, a log joint (tracing::LogJoint,
// make_log_joint, the ELBO) treats the program as one model split over the mesh's axis: its
// unsharded sites are replicated, and a psum adds the devices' terms so that each counts once
// (sharded.hpp). Data-parallel training instead runs an independent copy of the model on each
// device's slice of the minibatch and sums the gradients itself (data_parallel.hpp), so its loss is
// evaluated in a DeviceLocalPrograms scope, where log joints behave as outside a mesh run:
//
//   distribute::DeviceLocalPrograms local;        // on the device's thread, inside Mesh::run
//   Tensor elbo = inference::elbo(model, guide, key).surrogate;   // this device's model only

namespace variate::distribute {

/// While alive, the log joints made on this thread ignore the running mesh. Scopes nest.
class DeviceLocalPrograms {
 public:
  DeviceLocalPrograms();
  ~DeviceLocalPrograms();
  DeviceLocalPrograms(const DeviceLocalPrograms&) = delete;
  DeviceLocalPrograms& operator=(const DeviceLocalPrograms&) = delete;
};

/// Whether a DeviceLocalPrograms scope is alive on this thread.
bool device_local_programs();

}  // namespace variate::distribute
