#pragma once
// Inside Mesh::run a traced program is one model split over the mesh's axis (SPMD): its log joint
// is summed over the devices (distribute/sharded.hpp). A device that computes a whole model on its
// own, as the home device of a model-parallel flow does (distribute/pipelined_flow.hpp) while the
// other devices run only their layers, opens a LocalProgramScope around it:
//
//   mesh.run_each([&](int device) {
//     if (device == 0) {
//       const distribute::LocalProgramScope whole_model_here;
//       loss = -elbo(model, guide, key).surrogate;  // the log joints are this device's alone
//     } else {
//       loss = flow->serve();
//     }
//   });
//
// Data-parallel training does the same on every device: each runs its own copy of the model on its
// slice of the minibatch and sums the gradients itself (data_parallel.hpp).
//
// Collectives called explicitly (ppermute inside the flow, the gradients' psum) still reach the
// other devices.
#include <string>

namespace variate::distribute {

/// While alive, the programs this thread traces are its own: program_axis() is null. Nests.
class LocalProgramScope {
 public:
  LocalProgramScope();
  ~LocalProgramScope();
  LocalProgramScope(const LocalProgramScope&) = delete;
  LocalProgramScope& operator=(const LocalProgramScope&) = delete;
};

/// The axis a program traced on this thread is split over: running_axis(), or null outside a mesh
/// run and inside a LocalProgramScope.
const std::string* program_axis();

}  // namespace variate::distribute
